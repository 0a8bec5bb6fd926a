"""The job queue on a real SQLite file: dedupe, atomic claims (threads and processes), lanes, retries,
graceful release and crash recovery."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from selfheal.bot.exceptions import QueueError
from selfheal.bot.server.jobs import DONE, FAILED, QUEUED, RUNNING, JobResult
from selfheal.bot.server.queue import JobQueue


def payload(n: object) -> str:
    return json.dumps(
        {"action": "created", "comment": {"id": n}, "repository": {"full_name": "acme/widgets"}}
    )


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def add(queue: JobQueue, delivery: str, lane: str = "acme/widgets#7") -> int:
    job_id, created = queue.enqueue(
        delivery_id=delivery,
        event="issue_comment",
        payload=payload(delivery),
        repo="acme/widgets",
        lane=lane,
        installation_id=77,
    )
    assert created
    return job_id


def test_a_delivery_id_is_queued_once_and_survives_reopening(tmp_path: Path) -> None:
    queue = JobQueue(tmp_path / "q.sqlite3")
    first = add(queue, "d-1")
    again = queue.enqueue(delivery_id="d-1", event="issue_comment", payload="{}", repo="x/y", lane="x/y#1")
    assert again == (first, False)
    replayed = queue.enqueue(
        delivery_id="d-2", event="issue_comment", payload=payload("d-1"), repo="x/y", lane="l"
    )
    assert replayed == (first, False)  # the same signed body under a new (unsigned) delivery id
    queue.close()

    reopened = JobQueue(tmp_path / "q.sqlite3")
    assert reopened.enqueue(delivery_id="d-1", event="e", payload="{}", repo="x/y", lane="l") == (
        first,
        False,
    )
    assert reopened.counts() == {QUEUED: 1, RUNNING: 0, DONE: 0, FAILED: 0}
    job = reopened.get(first)
    assert job and job.payload["repository"]["full_name"] == "acme/widgets" and job.installation_id == 77
    mode = sqlite3.connect(tmp_path / "q.sqlite3").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    assert (tmp_path / "q.sqlite3").stat().st_mode & 0o077 == 0  # payloads of private repos: owner only


def test_concurrent_claims_never_hand_out_a_job_twice(tmp_path: Path) -> None:
    queue = JobQueue(tmp_path / "q.sqlite3")
    ids = {add(queue, f"d-{n}", lane=f"acme/widgets#{n}") for n in range(60)}
    claimed: list[int] = []
    lock = threading.Lock()

    def worker(name: str) -> None:
        while (job := queue.claim(name)) is not None:
            with lock:
                claimed.append(job.id)
            assert queue.finish(job, JobResult(True, "ok")) == DONE

    threads = [threading.Thread(target=worker, args=(f"w{n}",)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(claimed) == sorted(ids)
    assert queue.counts()[DONE] == 60


def test_two_processes_claiming_from_one_file_get_disjoint_jobs(tmp_path: Path) -> None:
    db = tmp_path / "q.sqlite3"
    queue = JobQueue(db)
    for n in range(40):
        add(queue, f"d-{n}", lane=f"lane-{n}")
    script = (
        "import sys\nfrom pathlib import Path\nfrom selfheal.bot.server.queue import JobQueue\n"
        "q = JobQueue(Path(sys.argv[1]))\nwhile (job := q.claim(sys.argv[2])) is not None:\n"
        "    print(job.id, flush=True)\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(db), f"p{n}"], stdout=subprocess.PIPE, text=True)
        for n in range(3)
    ]
    outputs = [proc.communicate(timeout=60)[0] for proc in procs]
    claimed = [int(line) for out in outputs for line in out.split()]
    assert sorted(claimed) == list(range(1, 41))
    assert queue.counts()[RUNNING] == 40


def test_one_job_per_lane_runs_at_a_time_and_others_pass_it(tmp_path: Path) -> None:
    queue = JobQueue(tmp_path / "q.sqlite3")
    a1 = add(queue, "a1", lane="acme/widgets#7")
    a2 = add(queue, "a2", lane="acme/widgets#7")
    b1 = add(queue, "b1", lane="acme/widgets@main")

    first = queue.claim("w1")
    second = queue.claim("w2")
    assert first is not None and second is not None
    assert (first.id, second.id) == (a1, b1)  # a2 waits for a1: same issue
    assert queue.claim("w3") is None
    queue.finish(first, JobResult(True, "done"))
    third = queue.claim("w3")
    assert third is not None and third.id == a2


def test_a_passing_failure_is_retried_with_backoff_until_the_attempts_are_spent(tmp_path: Path) -> None:
    clock = Clock()
    queue = JobQueue(tmp_path / "q.sqlite3", max_attempts=3, retry_delay=10, clock=clock)
    job_id = add(queue, "d-1")
    for attempt, delay in ((1, 10), (2, 20)):
        job = queue.claim("w")
        assert job is not None and job.attempts == attempt
        assert queue.finish(job, JobResult(False, "GitHub answered 502", retry=True)) == QUEUED
        clock.now += delay - 1
        assert queue.claim("w") is None  # not due yet
        clock.now += 1
    job = queue.claim("w")
    assert job is not None and job.attempts == 3
    assert queue.finish(job, JobResult(False, "GitHub answered 502", retry=True)) == FAILED
    final = queue.get(job_id)
    assert final and (final.status, final.attempts, final.error) == (FAILED, 3, "GitHub answered 502")

    permanent = add(queue, "d-2")
    job = queue.claim("w")
    assert job is not None and job.id == permanent
    assert queue.finish(job, JobResult(False, "EventError: no comment", retry=False)) == FAILED


def test_release_and_recover_put_running_jobs_back(tmp_path: Path) -> None:
    queue = JobQueue(tmp_path / "q.sqlite3", max_attempts=2)
    stopped, crashed, doomed = add(queue, "s", "l1"), add(queue, "c", "l2"), add(queue, "d", "l3")
    jobs = {job.id: job for job in (queue.claim("w"), queue.claim("w"), queue.claim("w")) if job}

    assert queue.release(jobs[stopped])  # a graceful stop: the attempt does not count
    assert not queue.release(jobs[stopped])  # the claim is gone
    assert queue.finish(jobs[stopped], JobResult(True, "late")) is None  # a worker that outlived its claim
    back = queue.get(stopped)
    assert back and (back.status, back.attempts) == (QUEUED, 0)

    # the server dies: `doomed` has used up its attempts by being interrupted twice
    second_life = queue.claim("w")  # `stopped` again
    assert second_life and second_life.id == stopped
    queue.finish(second_life, JobResult(True, "ok"))
    with sqlite3.connect(tmp_path / "q.sqlite3") as conn:  # as if interrupted twice before
        conn.execute("UPDATE jobs SET attempts = 2 WHERE id = ?", (doomed,))
    queue.close()

    restarted = JobQueue(tmp_path / "q.sqlite3", max_attempts=2)
    assert restarted.recover() == (1, 1)
    crashed_job, doomed_job = restarted.get(crashed), restarted.get(doomed)
    assert crashed_job and (crashed_job.status, crashed_job.attempts) == (QUEUED, 1)
    assert doomed_job and doomed_job.status == FAILED and "2 times" in (doomed_job.error or "")
    again = restarted.claim("w")
    assert again and (again.id, again.attempts) == (crashed, 2)


def test_an_unusable_database_is_a_queue_error(tmp_path: Path) -> None:
    not_a_db = tmp_path / "junk.sqlite3"
    not_a_db.write_bytes(b"this is not a database file" * 100)
    with pytest.raises(QueueError, match="job database"):
        JobQueue(not_a_db)
    (tmp_path / "dir.sqlite3").mkdir()
    with pytest.raises(QueueError):
        JobQueue(tmp_path / "dir.sqlite3")
