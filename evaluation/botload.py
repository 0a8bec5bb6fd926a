"""`python -m evaluation.botload`: load and faults against `selfheal bot serve` (its own process, the
fake GitHub, real HTTP, real signatures), printing the figures docs/bot.md quotes.

    deliveries   N signed deliveries (ignored comments) from 32 concurrent senders: per second, p50/p99
    redelivery   one delivery sent 100 times: the jobs it made (1 expected)
    slow         200 clients stalled mid-headers/mid-body: the server's threads, /healthz p50/p99
    kill -9      SQLite: a server killed mid-heal, then started again; PostgreSQL: one of two servers
                 killed mid-heal: the job's attempts, open PRs, seconds from the kill to done
    two /heals   rounds of two /heals of one failure on two issues at once: rounds with exactly one
                 open PR, both issues concluded with its link, no job failed

Exit code 0 when every fault figure is as expected, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import secrets
import socket
import statistics
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.action.conftest import REPO, seed_remote
from tests.bot import payloads
from tests.bot.botserver import BOT_LOGIN, BotProcess, BotWorld, app_state, installed, make_app_key, start_bot
from tests.bot.postgres import running_postgres
from tests.fakes.github_server import FakeGitHub


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def world(tmp: Path) -> BotWorld:
    remote, shas = seed_remote(tmp)
    key = make_app_key(tmp / "keys")
    fake = FakeGitHub.start(tmp / "fake", app_state(remote, key.public_pem))
    return BotWorld(tmp, remote, shas, key, fake, "whsec_" + secrets.token_hex(20))


def deliveries(bot: BotProcess, count: int, senders: int) -> dict[str, Any]:
    payload = installed(payloads.issue_comment("looks good to me"))

    def send(_: int) -> tuple[int, float]:
        started = time.monotonic()
        status = bot.deliver("issue_comment", payload, delivery=str(uuid.uuid4())).status
        return status, time.monotonic() - started

    started = time.monotonic()
    with ThreadPoolExecutor(senders) as pool:
        results = list(pool.map(send, range(count)))
    took = time.monotonic() - started
    latencies = [t for _, t in results]
    return {"deliveries": count, "senders": senders, "per_second": round(count / took, 1),
            "p50_ms": round(percentile(latencies, 0.5) * 1000, 1),
            "p99_ms": round(percentile(latencies, 0.99) * 1000, 1),
            "statuses": sorted({s for s, _ in results})}  # fmt: skip


def redelivery(bot: BotProcess, times: int) -> dict[str, Any]:
    bot.fake_comment = None
    payload = installed(
        payloads.issue_comment("/heal", number=3, comment_id=6001, login="bob", pull_request=False)
    )
    before = len(bot.jobs())
    statuses = [bot.deliver("issue_comment", payload, delivery="redelivered-1").status for _ in range(times)]
    return {"sent": times, "jobs_made": len(bot.jobs()) - before, "statuses": sorted(set(statuses))}


def slow_clients(bot: BotProcess, count: int) -> dict[str, Any]:
    bot.health()
    host, port = bot.url.removeprefix("http://").split(":")
    threads_before = len(list(Path(f"/proc/{bot.proc.pid}/task").iterdir()))
    conns = []
    for n in range(count):
        conn = socket.create_connection((host, int(port)), timeout=10)
        conn.sendall(b"POST /webhook HTTP/1.1\r\nHost: b\r\nContent-Length: 1000\r\n\r\n{" if n % 2
                     else b"POST /webhook HTTP/1.1\r\nHost: b\r\nX-GitHub-Ev")  # fmt: skip
        conns.append(conn)
    time.sleep(0.5)
    latencies = []
    for _ in range(50):
        started = time.monotonic()
        bot.health()
        latencies.append(time.monotonic() - started)
    threads = len(list(Path(f"/proc/{bot.proc.pid}/task").iterdir()))
    for conn in conns:
        conn.close()
    return {"slow_clients": count, "threads_before": threads_before, "threads_with_them": threads,
            "healthz_p50_ms": round(percentile(latencies, 0.5) * 1000, 1),
            "healthz_p99_ms": round(percentile(latencies, 0.99) * 1000, 1)}  # fmt: skip


def pg_jobs(url: str) -> list[dict[str, Any]]:
    import psycopg
    from psycopg.rows import dict_row

    with psycopg.connect(url, row_factory=dict_row) as conn:
        return list(conn.execute("SELECT * FROM jobs ORDER BY id"))


def kill_mid_heal(w: BotWorld, url: str | None) -> dict[str, Any]:
    """SQLite: kill -9 mid-heal, then start again. PostgreSQL: two servers, the one healing killed."""
    options = ("--sandbox", "local", "--workers", "1")
    number = w.fake.seed_issue(REPO, title="merge drops touching intervals", user="alice")
    w.fake.seed_comment(REPO, number, 9000 + number, "alice", "/heal")
    comment = payloads.issue_comment("/heal", number=number, comment_id=9000 + number, pull_request=False)
    delivery = f"kill-{number}"

    def start() -> BotProcess:
        if url is None:
            return w.start(*options)
        bot = start_bot(w.tmp / "bot", w.key, w.fake, url, *options, secret=w.secret)  # type: ignore
        w.bots.append(bot)
        return bot

    def job() -> dict[str, Any] | None:
        jobs = pg_jobs(url) if url else w.bots[-1].jobs()
        return next((j for j in jobs if j["delivery_id"] == delivery), None)

    first = start()
    first.deliver("issue_comment", installed(comment), delivery=delivery)
    first.wait_for("the job running", lambda: (j := job()) and j["status"] == "running")
    second = start() if url else None
    time.sleep(2)
    first.kill()
    started = time.monotonic()
    second = second or start()
    done = second.wait_for("the job done", lambda: (j := job()) and j["status"] in ("done", "failed") and j,
                           timeout=600)  # fmt: skip
    took = time.monotonic() - started
    pulls = [
        p
        for p in w.repo_state()["pulls"]
        if p["head"]["ref"].startswith("selfheal/") and p["state"] == "open"
    ]
    second.terminate()
    for pull in pulls:
        w.fake.github().get_repo(REPO).get_git_ref(f"heads/{pull['head']['ref']}").delete()
    return {"backend": "postgresql" if url else "sqlite", "attempts": done["attempts"],
            "status": done["status"], "open_pull_requests": len(pulls),
            "seconds_from_kill_to_done": round(took, 1)}  # fmt: skip


def heal_at_once(bot: BotProcess, asks: list[dict]) -> list[dict]:
    barrier = threading.Barrier(len(asks))

    def send(payload: dict) -> None:
        barrier.wait(10)
        bot.deliver("issue_comment", payload)

    threads = [threading.Thread(target=send, args=(a,)) for a in asks]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)

    def finished() -> list[dict] | None:
        jobs = bot.jobs()[-len(asks) :]
        return jobs if all(j["status"] in ("done", "failed") for j in jobs) else None

    return bot.wait_for("the jobs", finished, timeout=600)


def concluded_with(state: dict, number: int, pull: dict) -> bool:
    ours = [c for c in state["comments"] if c["issue_number"] == number and c["user"]["login"] == BOT_LOGIN]
    return len(ours) == 1 and pull["html_url"] in ours[0]["body"] and "⏳" not in ours[0]["body"]


def two_heals(w: BotWorld, rounds: int) -> dict[str, Any]:
    bot = w.start("--sandbox", "local", "--workers", "2")
    good, seconds = 0, []
    for _ in range(rounds):
        asks = []
        for _ in range(2):
            number = w.fake.seed_issue(REPO, title="merge drops touching intervals", user="alice")
            w.fake.seed_comment(REPO, number, 9000 + number, "alice", "/heal")
            comment = payloads.issue_comment(
                "/heal", number=number, comment_id=9000 + number, pull_request=False
            )
            asks.append((number, installed(comment)))
        started = time.monotonic()
        jobs = heal_at_once(bot, [payload for _, payload in asks])
        seconds.append(time.monotonic() - started)
        state = w.repo_state()
        pulls = [
            p for p in state["pulls"] if p["head"]["ref"].startswith("selfheal/") and p["state"] == "open"
        ]
        concluded = len(pulls) == 1 and all(concluded_with(state, n, pulls[0]) for n, _ in asks)
        if len(pulls) == 1 and concluded and all(j["status"] == "done" for j in jobs):
            good += 1
        if pulls:
            w.fake.github().get_repo(REPO).get_git_ref(f"heads/{pulls[0]['head']['ref']}").delete()
    bot.terminate()
    return {"rounds": rounds, "one_open_pr_both_concluded": good,
            "seconds_per_round_p50": round(statistics.median(seconds), 1)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.botload", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--deliveries", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of two simultaneous /heals")
    parser.add_argument("--json", type=Path, metavar="FILE")
    args = parser.parse_args(argv)
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="selfheal-botload-") as tmp:
        w = world(Path(tmp))
        try:
            bot = w.start("--sandbox", "local", "--workers", "1")
            figures["deliveries"] = deliveries(bot, args.deliveries, 32)
            figures["redelivery"] = redelivery(bot, 100)
            figures["slow"] = slow_clients(bot, 200)
            bot.terminate()
            figures["kill_9_sqlite"] = kill_mid_heal(w, None)
            with running_postgres(Path(tmp) / "pg") as url:
                figures["kill_9_postgresql"] = kill_mid_heal(w, url)
            figures["two_heals"] = two_heals(w, args.rounds)
        finally:
            for b in w.bots:
                if b.proc.poll() is None:
                    b.kill()
            w.fake.stop()
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    held = (
        figures["redelivery"]["jobs_made"] == 1
        and all(figures[k]["attempts"] == 2 and figures[k]["status"] == "done"
                and figures[k]["open_pull_requests"] == 1 for k in ("kill_9_sqlite", "kill_9_postgresql"))
        and figures["two_heals"]["one_open_pr_both_concluded"] == figures["two_heals"]["rounds"]
    )  # fmt: skip
    return 0 if held else 1


if __name__ == "__main__":
    sys.exit(main())
