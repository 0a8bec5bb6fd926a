"""A world for the webhook bot server: a GitHub App key pair, the fake GitHub (its own process) that
knows the App, and `selfheal bot serve` run as a real process that deliveries reach over real HTTP,
signed as GitHub signs them. Nothing of ours is patched."""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from selfheal.bot.server.webhook import signature
from tests.action.conftest import COLLABORATORS, REPO, seed_remote
from tests.fakes.github_server import FakeGitHub

APP_ID = 424242
INSTALLATION = 77
BOT_LOGIN = "selfheal[bot]"
LISTENING = re.compile(r"listening on (http://\S+)")
# the workflow the repository copied: the dispatch inputs selfheal's heal.yml declares, read from it
HEAL_YML = yaml.safe_load(
    (Path(__file__).parents[2] / ".github" / "workflows" / "heal.yml").read_text("utf-8")
)
HEAL_WORKFLOW = {"id": 161616, "name": "selfheal", "path": ".github/workflows/heal.yml",
                 "inputs": sorted(HEAL_YML[True]["workflow_dispatch"]["inputs"])}  # fmt: skip
# one copied before the dispatch forwarded the server's model settings
OLD_HEAL_WORKFLOW = {"id": 161617, "name": "selfheal (old)", "path": ".github/workflows/old-heal.yml",
                     "inputs": ["ref", "test-command"]}  # fmt: skip


@dataclass(frozen=True)
class AppKey:
    path: Path
    private_pem: str
    public_pem: str


def make_app_key(directory: Path, name: str = "app.pem") -> AppKey:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()
    public_pem = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(private_pem, encoding="utf-8")
    path.chmod(0o600)
    return AppKey(path, private_pem, public_pem)


def key_body(pem: str) -> list[str]:
    """The base64 lines of a PEM: what must never show anywhere."""
    return [line for line in pem.splitlines() if line and not line.startswith("-----")]


def app_state(remote: Path, public_pem: str, *, token_ttl: int = 3600) -> dict[str, Any]:
    """The action tests' repository (PR #7 from `feature`, PR #8 from a fork, issue #3), installed."""
    return {
        "token": "ghp_seed_" + secrets.token_hex(12),  # the fake's own admin-ish token; never used here
        "bot_login": BOT_LOGIN,
        "app": {"id": APP_ID, "slug": "selfheal", "public_key": public_pem, "token_ttl": token_ttl},
        "installations": [{"id": INSTALLATION, "account": "acme", "repositories": [REPO]}],
        "repos": [
            {
                "full_name": REPO,
                "default_branch": "main",
                "git_dir": str(remote),
                "collaborators": COLLABORATORS,
                "workflows": [HEAL_WORKFLOW, OLD_HEAL_WORKFLOW],
                "pulls": [
                    {
                        "number": 7,
                        "title": "Add notes",
                        "user": "alice",
                        "head_ref": "feature",
                        "base_ref": "main",
                        "head_full_name": REPO,
                    },
                    {
                        "number": 8,
                        "title": "From a fork",
                        "user": "mallory",
                        "head_ref": "feature",
                        "base_ref": "main",
                        "head_full_name": "mallory/widgets",
                    },
                ],
                "issues": [
                    {"number": 3, "title": "merge drops touching intervals", "body": "", "user": "alice"}
                ],
            },
            {"full_name": "other/elsewhere", "default_branch": "main", "git_dir": None},
        ],
    }


def installed(payload: dict[str, Any], installation: int | None = INSTALLATION) -> dict[str, Any]:
    """A payload as an App's webhook delivers it: with the installation it is for."""
    if installation is not None:
        payload = {**payload, "installation": {"id": installation, "node_id": f"MDIz{installation}"}}
    return payload


@dataclass
class Reply:
    status: int
    body: dict[str, Any]


@dataclass
class BotProcess:
    proc: subprocess.Popen[bytes]
    log_path: Path
    url: str
    db: Path
    secret: str
    opener: urllib.request.OpenerDirector = field(
        default_factory=lambda: urllib.request.build_opener(urllib.request.ProxyHandler({}))
    )

    # -- talking to it --------------------------------------------------------------------------------
    def post(self, path: str, body: bytes, headers: dict[str, str]) -> Reply:
        request = urllib.request.Request(self.url + path, data=body, method="POST", headers=headers)
        return self._send(request)

    def get(self, path: str) -> Reply:
        return self._send(urllib.request.Request(self.url + path, method="GET"))

    def _send(self, request: urllib.request.Request) -> Reply:
        try:
            with self.opener.open(request, timeout=30) as response:
                return Reply(response.status, json.loads(response.read() or b"{}"))
        except urllib.error.HTTPError as err:
            raw = err.read()
            return Reply(err.code, json.loads(raw) if raw.startswith(b"{") else {"raw": raw.decode()})

    def deliver(
        self,
        event: str,
        payload: Any,
        *,
        delivery: str | None = None,
        secret: str | None = None,
        sign: bool = True,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        """POST /webhook the way GitHub does: JSON body, X-GitHub-Event/-Delivery, X-Hub-Signature-256."""
        raw = body if body is not None else json.dumps(payload).encode()
        sent = {
            "Content-Type": "application/json",
            "User-Agent": "GitHub-Hookshot/fake",
            "X-GitHub-Event": event,
            "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
            "X-GitHub-Hook-ID": "1234",
            "X-GitHub-Hook-Installation-Target-Type": "integration",
            "X-GitHub-Hook-Installation-Target-ID": str(APP_ID),
        }
        if sign:
            sent["X-Hub-Signature-256"] = signature((secret or self.secret).encode(), raw)
        sent.update(headers or {})
        return self.post("/webhook", raw, {k: v for k, v in sent.items() if v is not None})

    def health(self) -> dict[str, Any]:
        reply = self.get("/healthz")
        assert reply.status == 200, reply
        return reply.body

    # -- watching it ----------------------------------------------------------------------------------
    def output(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def jobs(self) -> list[dict[str, Any]]:
        if not self.db.exists():
            return []
        conn = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=10)
        conn.row_factory = sqlite3.Row
        try:
            return [dict(row) for row in conn.execute("SELECT * FROM jobs ORDER BY id")]
        finally:
            conn.close()

    def wait_for(self, what: str, check: Callable[[], Any], timeout: float = 120.0) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = check()
            if value:
                return value
            if self.proc.poll() is not None:
                raise AssertionError(f"the bot server exited ({self.proc.returncode}):\n{self.output()}")
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}:\n{self.output()}")

    def wait_jobs(self, status: str, count: int, timeout: float = 150.0) -> list[dict[str, Any]]:
        def settled() -> list[dict[str, Any]] | None:
            jobs = self.jobs()
            return jobs if sum(j["status"] == status for j in jobs) >= count else None

        return self.wait_for(f"{count} job(s) {status}", settled, timeout)

    # -- stopping it ----------------------------------------------------------------------------------
    def terminate(self, timeout: float = 30.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()


def serve_command(key: AppKey, fake: FakeGitHub, db: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "selfheal", "bot", "serve",
        "--host", "127.0.0.1", "--port", "0", "--db", str(db),
        "--app-id", str(APP_ID), "--private-key", str(key.path), "--api-url", fake.api_url,
        "--write-interval", "0", "--retry-delay", "0.5", "--stop-timeout", "5", *extra,
    ]  # fmt: skip


def server_env(home: Path, secret: str | None) -> dict[str, str]:
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "LANG": "C.UTF-8"}
    if secret is not None:
        env["SELFHEAL_WEBHOOK_SECRET"] = secret
    return env


def start_bot(
    tmp: Path,
    key: AppKey,
    fake: FakeGitHub,
    db: Path,
    *extra: str,
    secret: str,
    timeout: float = 30.0,
    env: dict[str, str] | None = None,
) -> BotProcess:
    tmp.mkdir(parents=True, exist_ok=True)
    log_path = tmp / f"bot-{uuid.uuid4().hex[:6]}.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            serve_command(key, fake, db, *extra),
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={**server_env(tmp, secret), **(env or {})}, cwd=tmp,
        )  # fmt: skip
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = LISTENING.search(log_path.read_text(encoding="utf-8", errors="replace"))
        if found:
            return BotProcess(proc, log_path, found.group(1), db, secret)
        if proc.poll() is not None:
            raise AssertionError(f"the bot server exited ({proc.returncode}):\n{log_path.read_text()}")
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"the bot server did not listen within {timeout}s:\n{log_path.read_text()}")


@dataclass
class BotWorld:
    tmp: Path
    remote: Path
    shas: dict[str, str]
    key: AppKey
    fake: FakeGitHub
    secret: str
    bots: list[BotProcess] = field(default_factory=list)

    @property
    def db(self) -> Path:
        return self.tmp / "bot" / "queue.sqlite3"

    def start(self, *extra: str, env: dict[str, str] | None = None) -> BotProcess:
        """`env`: variables of the server's environment besides PATH, HOME and the webhook secret."""
        bot = start_bot(self.tmp / "bot", self.key, self.fake, self.db, *extra, secret=self.secret, env=env)
        self.bots.append(bot)
        return bot

    def repo_state(self) -> dict[str, Any]:
        return self.fake.repo_state(REPO)

    def issued_tokens(self) -> list[str]:
        return [t["token"] for t in self.fake.state()["app_tokens"]]

    def secrets(self) -> list[str]:
        """Everything that must never be printed or stored: key lines, tokens, the webhook secret."""
        return [*key_body(self.key.private_pem), *self.issued_tokens(), self.secret]


@pytest.fixture
def bot_world(tmp_path: Path) -> Iterator[BotWorld]:
    remote, shas = seed_remote(tmp_path)
    key = make_app_key(tmp_path / "keys")
    fake = FakeGitHub.start(tmp_path / "fake", app_state(remote, key.public_pem))
    world = BotWorld(tmp_path, remote, shas, key, fake, "whsec_" + secrets.token_hex(20))
    try:
        yield world
    finally:
        for bot in world.bots:
            if bot.proc.poll() is None:
                bot.kill()
        fake.stop()


def files_text(*roots: Path) -> str:
    """Every byte under the roots (the queue's db, -wal and -shm files included), as text."""
    chunks = []
    for root in roots:
        paths = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        chunks += [p.read_bytes().decode("utf-8", "replace") for p in paths]
    return "\n".join(chunks)
