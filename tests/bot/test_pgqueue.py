"""The PostgreSQL queue against a real PostgreSQL: two queues (two servers' connections) claiming at
once never take one job twice nor two jobs of one lane; a job whose server stopped beating is taken
back; the signature lanes exclude each other."""

from __future__ import annotations

import threading
import time

from selfheal.bot.server.jobs import JobResult
from selfheal.bot.server.pgqueue import PgJobQueue


def test_two_servers_claiming_at_once_take_each_job_once_and_one_per_lane(postgres_url: str) -> None:
    first, second = PgJobQueue(postgres_url), PgJobQueue(postgres_url)
    for n in range(40):
        created = first.enqueue(delivery_id=f"d{n}", event="issue_comment", payload=f'{{"n": {n}}}',
                                repo="acme/w", lane=f"acme/w#{n % 10}")  # fmt: skip
        assert created == (n + 1, True)
    assert second.enqueue(delivery_id="d3", event="issue_comment", payload="{}", repo="acme/w",
                          lane="x") == (4, False)  # fmt: skip
    taken: list[tuple[str, int]] = []
    running: set[str] = set()
    guard = threading.Lock()

    def work(queue: PgJobQueue, name: str) -> None:
        idle = 0
        while idle < 20:
            job = queue.claim(name)
            if job is None:
                idle += 1
                time.sleep(0.01)
                continue
            idle = 0
            with guard:
                assert job.lane not in running, f"two jobs of lane {job.lane} at once"
                running.add(job.lane)
                taken.append((name, job.id))
            time.sleep(0.02)  # the job runs: another claim of its lane would happen now
            with guard:
                running.discard(job.lane)
            assert queue.finish(job, JobResult(True, "ok")) == "done"

    threads = [threading.Thread(target=work, args=(q, f"{q_name}-{t}"))
               for q, q_name in ((first, "a"), (second, "b")) for t in range(3)]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert sorted(job_id for _, job_id in taken) == list(range(1, 41))  # every job, each once
    assert {name[0] for name, _ in taken} == {"a", "b"}  # both servers took some
    assert first.counts() == {"queued": 0, "running": 0, "done": 40, "failed": 0}


def test_a_job_whose_server_stopped_beating_is_taken_back_by_another(postgres_url: str) -> None:
    clock = [1000.0]
    dead, alive = (PgJobQueue(postgres_url, clock=lambda: clock[0]) for _ in range(2))
    dead.enqueue(delivery_id="d1", event="issue_comment", payload="{}", repo="acme/w", lane="acme/w#1")
    job = dead.claim("dead-1")
    assert job is not None and job.attempts == 1
    clock[0] += 10
    assert alive.recover_stale(stale_after=20) == (0, 0)  # still beating recently enough
    clock[0] += 15
    assert alive.recover_stale(stale_after=20) == (1, 0)
    again = alive.claim("alive-1")
    assert again is not None and (again.id, again.attempts) == (job.id, 2)
    assert dead.finish(job, JobResult(True, "late")) is None  # the dead worker's claim is void
    assert alive.finish(again, JobResult(True, "ok")) == "done"


def test_signature_lanes_exclude_each_other_across_servers(postgres_url: str) -> None:
    first, second = PgJobQueue(postgres_url), PgJobQueue(postgres_url)
    assert first.try_lock("acme/w!sig", "job-1")
    assert not second.try_lock("acme/w!sig", "job-2")
    assert first.try_lock("acme/w!sig", "job-1")  # the holder again: renewed
    first.unlock("acme/w!sig", "job-1")
    assert second.try_lock("acme/w!sig", "job-2")


def test_two_servers_on_one_database_count_one_daily_cap(postgres_url: str) -> None:
    from selfheal.bot.server.spend import PgDailySpend

    first, second = PgDailySpend(postgres_url, 2.0), PgDailySpend(postgres_url, 2.0)
    first.record(77, 0.75)
    second.record(77, 0.5)
    second.record(78, 0.1)
    assert (first.spent(77), second.spent(77), first.spent(78)) == (1.25, 1.25, 0.1)
    assert first.budget_for(77, 1.0) == 0.75  # the job's own max lowered to what is left of the day
    second.record(77, 1.0)
    assert (first.budget_for(77, 1.0), first.budget_for(77, None)) == (0.0, 0.0)
    assert PgDailySpend(postgres_url, None).budget_for(77, 1.0) == 1.0  # no cap
