"""The webhook server's transport, against `selfheal bot serve` in its own process over real sockets:
a too-large body sent whole receives its 413, slow clients are bounded and dropped while /healthz
stays fast, and /metrics is read with the Prometheus client's own parser."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from selfheal.bot.server.webhook import signature
from tests.bot import payloads
from tests.bot.botserver import BotProcess, BotWorld, installed

NOTHING_QUEUED = {"queued": 0, "running": 0, "done": 0, "failed": 0}


def address(bot: BotProcess) -> tuple[str, int]:
    host, port = bot.url.removeprefix("http://").split(":")
    return host, int(port)


def signed_request(bot: BotProcess, body: bytes) -> bytes:
    head = (
        "POST /webhook HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\n"
        "X-GitHub-Event: issue_comment\r\nX-GitHub-Delivery: big-1\r\n"
        f"X-Hub-Signature-256: {signature(bot.secret.encode(), body)}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def read_answer(conn: socket.socket) -> tuple[str, str]:
    """(status line and headers, JSON body) of one answer, read to its end."""
    answer = b""
    while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        answer += chunk
    head, _, text = answer.decode().partition("\r\n\r\n")
    return head, text


def threads_of(bot: BotProcess) -> int:
    return len(list(Path(f"/proc/{bot.proc.pid}/task").iterdir()))


def test_a_6_mb_body_sent_whole_receives_its_413(bot_world: BotWorld) -> None:
    bot = bot_world.start("--sandbox", "local")  # the default cap: 5 MiB
    payload = installed(payloads.issue_comment("/heal", issue_body="x" * (6 * 1024 * 1024)))
    body = json.dumps(payload).encode()
    with socket.create_connection(address(bot), timeout=30) as conn:
        conn.sendall(signed_request(bot, body))  # all of it, as GitHub sends: no broken pipe
        head, text = read_answer(conn)
    assert head.startswith("HTTP/1.1 413 ")
    assert json.loads(text) == {"error": f"the body is over {5 * 1024 * 1024} bytes"}
    assert bot.health()["queue"] == NOTHING_QUEUED
    assert bot.terminate() == 0


def test_200_slow_clients_stay_within_the_bound_and_healthz_answers_in_under_100_ms(
    bot_world: BotWorld,
) -> None:
    bot = bot_world.start("--sandbox", "local", "--max-connections", "256", "--read-timeout", "3")
    assert bot.health()["status"] == "ok"  # the first answer opens the pool's thread and its database link
    before = threads_of(bot)
    slow = []
    for n in range(200):  # half stop mid-body, half mid-headers
        conn = socket.create_connection(address(bot), timeout=10)
        if n % 2:
            conn.sendall(b"POST /webhook HTTP/1.1\r\nHost: bot\r\nContent-Length: 1000\r\n\r\n{")
        else:
            conn.sendall(b"POST /webhook HTTP/1.1\r\nHost: bot\r\nX-GitHub-Ev")
        slow.append(conn)
    time.sleep(0.5)
    latencies = []
    for _ in range(20):
        started = time.monotonic()
        assert bot.health()["status"] == "ok"
        latencies.append(time.monotonic() - started)
    assert max(latencies) < 0.1, latencies
    assert threads_of(bot) <= before + 2  # no thread per connection (the stdlib server made 205)

    # the clients stalled mid-body are answered 408 and closed once the read timeout passes
    time.sleep(3.5)
    answers = []
    for conn in slow[1::2]:
        conn.settimeout(5)
        answers.append(conn.recv(4096).split(b"\r\n", 1)[0])
    assert set(answers) == {b"HTTP/1.1 408 Request Timeout"}
    # and those stalled mid-headers (no request yet, so no answer) are closed: none holds its
    # connection, and with enough of them every connection the server allows, forever
    closed = []
    for conn in slow[0::2]:
        conn.settimeout(5)
        closed.append(conn.recv(4096))
    assert set(closed) == {b""}
    for conn in slow:
        conn.close()
    assert bot.health()["queue"] == NOTHING_QUEUED
    assert bot.terminate() == 0


def test_unsigned_bodies_in_flight_are_bounded_before_any_signature_is_checked(bot_world: BotWorld) -> None:
    # a body is read whole before its signature can be checked: senders without the secret may
    # not make the server hold more than 8 bodies of the largest size at once
    bot = bot_world.start("--sandbox", "local", "--max-body", "1024", "--read-timeout", "5")
    held = []
    for _ in range(8):
        conn = socket.create_connection(address(bot), timeout=10)
        conn.sendall(b"POST /webhook HTTP/1.1\r\nHost: bot\r\nContent-Length: 1024\r\n\r\n{")
        held.append(conn)
    time.sleep(0.5)
    with socket.create_connection(address(bot), timeout=10) as ninth:
        ninth.sendall(b"POST /webhook HTTP/1.1\r\nHost: bot\r\nContent-Length: 1024\r\n\r\n{")
        head, text = read_answer(ninth)
    assert head.startswith("HTTP/1.1 503 ")
    assert json.loads(text) == {"error": "too many deliveries are being read; retry later"}
    for conn in held:
        conn.close()
    time.sleep(0.5)
    # the room is given back: a signed delivery is read and decided again
    body = json.dumps(installed(payloads.issue_comment("/heal nothing", number=7, comment_id=9))).encode()
    with socket.create_connection(address(bot), timeout=10) as conn:
        conn.sendall(signed_request(bot, body))
        assert conn.recv(4096).split(b"\r\n", 1)[0] != b"HTTP/1.1 503 Service Unavailable"
    assert bot.terminate() == 0


def test_metrics_are_scraped_and_parsed_by_the_prometheus_client(bot_world: BotWorld) -> None:
    bot = bot_world.start("--sandbox", "local")
    assert bot.deliver("ping", {"zen": "z", "hook_id": 1}).status == 200
    assert bot.deliver("issue_comment", installed(payloads.issue_comment("lgtm"))).status == 200
    assert bot.deliver("issue_comment", installed(payloads.issue_comment("/heal")), sign=False).status == 401
    request = bot.opener.open(bot.url + "/metrics", timeout=10)
    assert request.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    families = {f.name: f for f in text_string_to_metric_families(request.read().decode())}

    totals = [s for s in families["selfheal_deliveries"].samples if s.name == "selfheal_deliveries_total"]
    deliveries = {(s.labels["event"], s.labels["outcome"]): s.value for s in totals}
    assert deliveries == {("ping", "pong"): 1.0, ("issue_comment", "ignored"): 1.0,
                          ("issue_comment", "http_401"): 1.0}  # fmt: skip
    queue = {s.labels["status"]: s.value for s in families["selfheal_queue_jobs"].samples}
    assert queue == {"queued": 0.0, "running": 0.0, "done": 0.0, "failed": 0.0}
    assert families["selfheal_job_duration_seconds"].type == "histogram"
    assert bot.terminate() == 0
