"""`selfheal bot serve` keeps its secrets in memory only: started as a real process, read from outside."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from tests.bot.botserver import LISTENING, BotProcess, BotWorld, serve_command

OTHER_TOKEN = "ghp_" + os.urandom(18).hex()


def environ_of(pid: int) -> bytes | None:
    """/proc/<pid>/environ, or None when it is closed to us (an undumpable process of the same
    user, when the tests do not run as root)."""
    try:
        return Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None


def test_bot_serve_holds_neither_the_webhook_secret_nor_other_keys_in_its_environment(
    bot_world: BotWorld, tmp_path: Path
) -> None:
    """The server keeps its webhook secret, even in a variable whose name does not look secret, in
    memory only: /proc/<pid>/environ has none, and signed deliveries still verify."""
    db, log_path = tmp_path / "bot" / "q.sqlite3", tmp_path / "bot.log"
    db.parent.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "LANG": "C.UTF-8",
           "HOOK_SIGNING": bot_world.secret, "OTHER_API_TOKEN": OTHER_TOKEN}  # fmt: skip
    argv = serve_command(bot_world.key, bot_world.fake, db, "--webhook-secret-env", "HOOK_SIGNING")
    with log_path.open("wb") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env, cwd=tmp_path)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not (found := LISTENING.search(log_path.read_text())) and time.monotonic() < deadline:
            assert proc.poll() is None, log_path.read_text()
            time.sleep(0.05)
        assert found, log_path.read_text()
        bot = BotProcess(proc, log_path, found.group(1), db, bot_world.secret)
        environ = environ_of(proc.pid)
        if environ is not None:  # None: undumpable and we are not root, which hides it as well
            assert b"SELFHEAL_SECRETS_FD=" in environ
            assert bot_world.secret.encode() not in environ and b"HOOK_SIGNING=" not in environ
            assert OTHER_TOKEN.encode() not in environ
        pong = bot.deliver("ping", {"zen": "Design for failure.", "hook_id": 1, "hook": {"type": "App"}})
        assert pong.status == 200, bot.output()
        assert bot.deliver("ping", {"zen": "x"}, secret="not-the-secret-at-all").status == 401
        assert bot.terminate() == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
