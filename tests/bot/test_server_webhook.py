"""`selfheal bot serve` in its own process, reached over real HTTP with real signatures: what it
refuses, ignores and answers before any job exists, and how it refuses to start."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from selfheal.bot.server.webhook import signature
from tests.bot import payloads
from tests.bot.botserver import BotWorld, installed, key_body, serve_command, server_env, start_bot

HEAL = installed(payloads.issue_comment("/heal", number=7, comment_id=5001))
NOTHING_QUEUED = {"queued": 0, "running": 0, "done": 0, "failed": 0}


def test_missing_or_wrong_signatures_are_refused_and_nothing_is_queued(bot_world: BotWorld) -> None:
    bot = bot_world.start("--sandbox", "local")
    body = json.dumps(HEAL).encode()
    tampered = body.replace(b'"/heal"', b'"/heal "')

    assert bot.deliver("issue_comment", HEAL, sign=False).status == 401
    assert bot.deliver("issue_comment", HEAL, secret="not-the-secret-at-all").status == 401
    forged = bot.deliver(
        "issue_comment",
        None,
        body=tampered,
        headers={"X-Hub-Signature-256": signature(bot.secret.encode(), body)},
    )
    assert (forged.status, forged.body) == (401, {"error": "X-Hub-Signature-256 does not match the body"})
    sha1 = bot.deliver(
        "issue_comment", HEAL, headers={"X-Hub-Signature-256": None, "X-Hub-Signature": "sha1=0"}
    )
    assert (sha1.status, sha1.body) == (401, {"error": "X-Hub-Signature-256 is missing"})
    # unsigned garbage is refused as unsigned, never parsed: not 400
    assert bot.deliver("issue_comment", None, body=b"\xff not json", sign=False).status == 401

    assert bot.health()["queue"] == NOTHING_QUEUED
    assert bot.jobs() == []
    assert "refused (401): X-Hub-Signature-256 does not match the body" in bot.output()
    assert bot.terminate() == 0


def test_ping_skips_and_malformed_deliveries_get_no_job(bot_world: BotWorld) -> None:
    bot = bot_world.start("--sandbox", "local", "--max-body", "65536")

    pong = bot.deliver(
        "ping", {"zen": "Keep it logically awesome.", "hook_id": 1234, "hook": {"type": "App"}}
    )
    assert (pong.status, pong.body) == (200, {"status": "pong", "zen": "Keep it logically awesome."})

    chatter = bot.deliver("issue_comment", installed(payloads.issue_comment("looks good to me")))
    assert (chatter.status, chatter.body) == (
        200, {"status": "ignored", "reason": "the comment is not a /heal command"},
    )  # fmt: skip
    edited = bot.deliver("issue_comment", installed(payloads.issue_comment("/heal", action="edited")))
    assert edited.body["reason"] == "comment edited: only new comments are commands"
    by_bot = bot.deliver("issue_comment", installed(payloads.issue_comment("/heal", login="renovate[bot]")))
    assert by_bot.body == {"status": "ignored", "reason": "comment by the bot renovate[bot]"}
    green = bot.deliver(
        "workflow_run", installed(payloads.workflow_run(conclusion="success", head_sha="a" * 40))
    )
    assert green.body["status"] == "ignored"
    install = bot.deliver(
        "installation", {"action": "created", "installation": {"id": 77}, "repositories": []}
    )
    assert install.body == {"status": "ignored", "reason": "selfheal does not act on installation events"}

    form = {"Content-Type": "application/x-www-form-urlencoded"}
    assert bot.deliver("issue_comment", None, body=b"payload=%7B%7D", headers=form).status == 400
    assert bot.deliver("issue_comment", None, body=b"{not json").body == {"error": "the body is not JSON"}
    assert bot.deliver("issue_comment", [1, 2]).body == {"error": "the body is not a JSON object"}
    no_repo = bot.deliver("issue_comment", {"action": "created"})
    assert (no_repo.status, no_repo.body) == (
        400,
        {"error": "issue_comment event without repository.full_name"},
    )
    no_id = bot.deliver("issue_comment", HEAL, headers={"X-GitHub-Delivery": ""})
    assert (no_id.status, no_id.body) == (400, {"error": "X-GitHub-Event and X-GitHub-Delivery are required"})
    huge = installed(payloads.issue_comment("/heal", issue_body="x" * 70_000))
    too_big = bot.deliver("issue_comment", huge)
    assert (too_big.status, too_big.body) == (413, {"error": "the body is over 65536 bytes"})

    assert bot.get("/nowhere").status == 404
    assert bot.get("/webhook").status == 405
    assert bot.post("/elsewhere", b"{}", {"Content-Type": "application/json"}).status == 404
    health = bot.health()
    assert health == {"status": "ok", "executor": "local", "workers": 2, "busy": 0, "queue": NOTHING_QUEUED}
    assert bot.jobs() == []
    assert bot.terminate() == 0


def test_a_body_announced_too_large_is_refused_before_it_is_read(bot_world: BotWorld) -> None:
    bot = bot_world.start("--max-body", "4096")
    host, port = bot.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(
            b"POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"X-GitHub-Event: issue_comment\r\nContent-Length: 1073741824\r\n\r\n{"
        )
        answer = conn.recv(4096).decode()
    assert answer.startswith("HTTP/1.1 413 ")
    assert "connection: close" in answer.lower()  # names are case-insensitive; h11 sends lower-case
    assert bot.health()["queue"] == NOTHING_QUEUED


def test_the_server_does_not_start_without_what_it_needs(bot_world: BotWorld, tmp_path: Path) -> None:
    key, fake, db = bot_world.key, bot_world.fake, tmp_path / "q.sqlite3"

    def serve(
        *extra: str, secret: str | None = bot_world.secret, key_path: Path | None = None
    ) -> tuple[int, str]:
        argv = serve_command(key, fake, db, *extra)
        if key_path:
            argv[argv.index(str(key.path))] = str(key_path)
        done = subprocess.run(
            argv, env=server_env(tmp_path, secret), capture_output=True, text=True, timeout=60
        )
        return done.returncode, done.stdout + done.stderr

    code, out = serve(secret=None)
    assert code == 2
    assert "read from the environment variable SELFHEAL_WEBHOOK_SECRET, which is not set or empty" in out
    code, out = serve("--webhook-secret-env", "MY_SECRET")
    assert code == 2 and "environment variable MY_SECRET" in out
    code, out = serve(secret="tiny-secret")
    assert code == 2 and "has 11 characters; use at least 16" in out and "tiny-secret" not in out

    junk = tmp_path / "junk.pem"
    junk.write_text(
        "-----BEGIN RSA PRIVATE KEY-----\nbm90IGEga2V5IGF0IGFsbA==\n-----END RSA PRIVATE KEY-----\n"
    )
    code, out = serve(key_path=junk)
    assert code == 2 and "could not sign a JWT" in out and "bm90IGEga2V5" not in out

    code, out = serve("--app-id", "999")  # argparse: the last --app-id wins
    assert code == 2 and "GitHub rejected the app's JWT" in out
    for line in key_body(key.private_pem):
        assert line not in out
    assert bot_world.secret not in out

    first = bot_world.start()
    code, out = serve("--db", str(first.db))
    assert code == 2 and f"another selfheal bot server is using {first.db}" in out
    assert first.terminate() == 0


def test_the_server_refuses_a_key_or_database_its_jobs_would_see(bot_world: BotWorld, tmp_path: Path) -> None:
    # The local sandbox shows the tests the system's folders and selfheal's own installation: an
    # App key kept beside selfheal's Python, or a queue database under /usr/local, would be read by
    # every installed repository's tests.
    name = f"selfheal-shown-{os.getpid()}"
    beside_selfheal = Path(sys.prefix) / name
    beside_selfheal.mkdir()
    shutil.copy(bot_world.key.path, beside_selfheal / "app.pem")
    places = [("--private-key", beside_selfheal / "app.pem", "the App's private key (--private-key)")]
    system = Path("/usr/local/share") / name
    if os.access("/usr/local/share", os.W_OK):  # root, as in CI and the Action's container
        system.mkdir()
        places.append(("--db", system / "q.sqlite3", "the queue's database (--db)"))
    try:
        for option, path, said in places:
            argv = serve_command(bot_world.key, bot_world.fake, tmp_path / "q.sqlite3")
            argv[argv.index(option) + 1] = str(path)
            done = subprocess.run(
                argv, env=server_env(tmp_path, bot_world.secret), capture_output=True, text=True, timeout=60
            )
            out = done.stdout + done.stderr
            assert done.returncode == 2, out
            assert f"cannot start: {said} {path}" in out
            assert "the local sandbox shows this place to every job's tests" in out
            assert not path.with_name("q.sqlite3-work").exists() and not (tmp_path / "q-work").exists()
        # the docker sandbox shows the tests only their workspace: the same key is accepted there
        moved = dataclasses.replace(bot_world.key, path=beside_selfheal / "app.pem")
        bot = start_bot(tmp_path / "docker", moved, bot_world.fake, tmp_path / "d.sqlite3",
                        "--sandbox", "docker", secret=bot_world.secret)  # fmt: skip
        assert bot.terminate() == 0
    finally:
        shutil.rmtree(beside_selfheal, ignore_errors=True)
        shutil.rmtree(system, ignore_errors=True)
