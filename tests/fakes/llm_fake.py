"""Shared plumbing of the fake model APIs (anthropic_server.py, ollama_server.py): stdlib only.

A fake replays a *script* and records every request. Script (JSON)::

    {"api_key": "sk-ant-test-...",          # the key the fake expects (Ollama: optional bearer)
     "models": ["llama3.2"],                # Ollama only, optional: other names get a 404
     "steps": [
       {"body": {...}},                                           # 200 + this JSON body
       {"status": 429, "body": {...}, "headers": {"retry-after": "1"}},
       {"status": 529, "body": {...}, "repeat": 3},               # the same answer 3 times
       {"body": {...}, "delay": 0.5}                              # answer after 0.5 s
     ]}

Each API request that passes the fake's checks (key, required headers, request shape as the real
API validates it) consumes the next step; requests that fail a check are answered like the real
API would (401, 400, 404) and consume none. When the steps run out the fake answers with an error
saying so. Test-control endpoints (no auth): ``GET /_fake/requests`` (the request log),
``GET /_fake/state``, ``POST /_fake/steps`` (append steps), ``POST /_fake/reset-log``.

Request log entries: ``{"seq", "time", "method", "path", "headers" (lower-cased; x-api-key and
authorization removed), "key_ok" (true/false; null when no key was expected or sent),
"key_headers" (which of x-api-key/authorization were sent, values never kept), "body"
(parsed JSON or null), "status", "step" (index of the step used, or null)}``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

ROOT = Path(__file__).resolve().parents[2]
SECRET_HEADERS = ("x-api-key", "authorization")


@dataclass
class Step:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def expand_steps(raw: list[dict[str, Any]]) -> list[Step]:
    steps: list[Step] = []
    for item in raw:
        unknown = set(item) - {"status", "body", "headers", "delay", "repeat"}
        if unknown:
            raise ValueError(f"unknown step keys {sorted(unknown)}")
        step = Step(
            status=int(item.get("status", 200)),
            body=item.get("body"),
            headers={str(k): str(v) for k, v in (item.get("headers") or {}).items()},
            delay=float(item.get("delay", 0.0)),
        )
        steps.extend([step] * int(item.get("repeat", 1)))
    return steps


@dataclass
class Incoming:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    raw_body: bytes
    body: Any  # parsed JSON, or None


@dataclass
class Outcome:
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    step: int | None = None
    key_ok: bool | None = None
    delay: float = 0.0


class FakeState:
    def __init__(self, script: dict[str, Any]) -> None:
        self.lock = threading.RLock()
        self.script = script
        self.api_key: str | None = script.get("api_key")
        self.steps = expand_steps(script.get("steps", []))
        self.used = 0
        self.requests: list[dict[str, Any]] = []
        self.seq = 0

    def next_step(self) -> tuple[int, Step] | None:
        with self.lock:
            if self.used >= len(self.steps):
                return None
            index = self.used
            self.used += 1
            return index, self.steps[index]

    def record(self, incoming: Incoming, outcome: Outcome) -> None:
        headers = {k: v for k, v in incoming.headers.items() if k not in SECRET_HEADERS}
        if self.api_key:
            headers = {k: v for k, v in headers.items() if self.api_key not in v}
        with self.lock:
            self.seq += 1
            self.requests.append(
                {
                    "seq": self.seq,
                    "time": time.time(),
                    "method": incoming.method,
                    "path": incoming.path,
                    "headers": headers,
                    "key_ok": outcome.key_ok,
                    "key_headers": [name for name in SECRET_HEADERS if name in incoming.headers],
                    "body": incoming.body,
                    "status": outcome.status,
                    "step": outcome.step,
                }
            )

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            return {"steps_total": len(self.steps), "steps_used": self.used, "requests": len(self.requests)}


class App:
    """One fake API: `handle` answers an API request (control endpoints are handled for it)."""

    name: ClassVar[str] = "fake"
    server_header: ClassVar[str] = "fake"

    def __init__(self, state: FakeState) -> None:
        self.state = state

    def handle(self, incoming: Incoming) -> Outcome:  # pragma: no cover - overridden
        raise NotImplementedError

    def extra_headers(self) -> dict[str, str]:
        return {}


class FakeServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, port: int, app: App, *, verbose: bool = False) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.app = app
        self.verbose = verbose
        self.url = f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: FakeServer

    def version_string(self) -> str:
        return self.server.app.server_header

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            sys.stderr.write(f"{self.server.app.name}: {format % args}\n")

    def read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline(65537).split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        out = {"Content-Type": "application/json", **(headers or {})}
        for name, value in out.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self.dispatch()

    def do_POST(self) -> None:
        self.dispatch()

    def do_DELETE(self) -> None:
        self.dispatch()

    def dispatch(self) -> None:
        raw = self.read_body()
        path = self.path
        state = self.server.app.state
        if path.startswith("/_fake/"):
            self.control(path[len("/_fake/") :], raw, state)
            return
        try:
            body = json.loads(raw) if raw.strip() else None
        except ValueError:
            body = None
        incoming = Incoming(self.command, path, {k.lower(): v for k, v in self.headers.items()}, raw, body)
        try:
            outcome = self.server.app.handle(incoming)
        except Exception as exc:  # a bug in the fake: say so loudly, in the API's error shape
            outcome = Outcome(500, {"error": f"fake {self.server.app.name} crashed: {exc!r}"})
        state.record(incoming, outcome)
        if outcome.delay:
            time.sleep(outcome.delay)
        self.send_json(outcome.status, outcome.body, {**self.server.app.extra_headers(), **outcome.headers})

    def control(self, what: str, raw: bytes, state: FakeState) -> None:
        if self.command == "GET" and what == "requests":
            with state.lock:
                self.send_json(200, list(state.requests))
        elif self.command == "GET" and what == "state":
            self.send_json(200, state.snapshot())
        elif self.command == "POST" and what == "steps":
            added = expand_steps(json.loads(raw or b"[]"))
            with state.lock:
                state.steps.extend(added)
            self.send_json(200, state.snapshot())
        elif self.command == "POST" and what == "reset-log":
            with state.lock:
                state.requests.clear()
            self.send_json(200, state.snapshot())
        else:
            self.send_json(404, {"error": f"no control endpoint {self.command} /_fake/{what}"})


def write_json_atomic(path: Path, payload: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(payload, fh)
    os.replace(tmp, path)


def serve_main(app_factory: Callable[[FakeState], App], description: str, argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--script", required=True, type=Path, help="the scripted conversation (JSON)")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--ready-file", type=Path, help='{"url", "pid", "port"}, written once listening')
    parser.add_argument("--exit-with-parent", action="store_true", help="stop when the parent process dies")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    args = parser.parse_args(argv)

    state = FakeState(json.loads(args.script.read_text(encoding="utf-8")))
    server = FakeServer(args.port, app_factory(state), verbose=args.verbose)

    def stop(*_: Any) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if args.exit_with_parent:
        parent = os.getppid()

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            stop()

        threading.Thread(target=watch, daemon=True).start()
    if args.ready_file:
        port = server.server_address[1]
        write_json_atomic(args.ready_file, {"url": server.url, "pid": os.getpid(), "port": port})
    try:
        server.serve_forever(poll_interval=0.1)
    finally:
        server.server_close()
    return 0


class FakeLLMServer:
    """Client-side handle on a fake model-API process (for pytest; stdlib only)."""

    module: ClassVar[str] = ""  # e.g. "tests.fakes.anthropic_server"
    label: ClassVar[str] = "fake"
    default_key: ClassVar[str | None] = None

    def __init__(self, proc: subprocess.Popen[bytes], workdir: Path, ready: dict[str, Any], key: str | None):
        self.proc = proc
        self.workdir = workdir
        self.url: str = ready["url"]
        self.pid: int = ready["pid"]
        self.api_key = key
        self.log_path = workdir / "server.log"
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    @classmethod
    def start(
        cls,
        tmp_path: Path,
        script: dict[str, Any] | list[dict[str, Any]],
        *,
        timeout: float = 15.0,
        verbose: bool = False,
    ) -> Any:
        """Start the fake on a free loopback port. `script` is a script dict, or just its steps
        (then the key is the class default)."""
        if isinstance(script, list):
            script = {"steps": script}
        if "api_key" not in script and cls.default_key is not None:
            script = {**script, "api_key": cls.default_key}
        tmp_path.mkdir(parents=True, exist_ok=True)
        workdir = Path(tempfile.mkdtemp(prefix=f"{cls.label}-", dir=tmp_path))
        script_path = workdir / "script.json"
        script_path.write_text(json.dumps(script, indent=2), encoding="utf-8")
        ready_path = workdir / "ready.json"
        cmd = [
            sys.executable,
            "-m",
            cls.module,
            "--script",
            str(script_path),
            "--port",
            "0",
            "--ready-file",
            str(ready_path),
            "--exit-with-parent",
        ]
        if verbose:
            cmd.append("--verbose")
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        }
        with (workdir / "server.log").open("wb") as log:
            proc = subprocess.Popen(
                cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=ROOT, env=env
            )
        deadline = time.monotonic() + timeout
        while not ready_path.exists():
            if proc.poll() is not None:
                raise RuntimeError(
                    f"{cls.label} exited with {proc.returncode}:\n"
                    + (workdir / "server.log").read_text(errors="replace")
                )
            if time.monotonic() > deadline:
                proc.kill()
                raise TimeoutError(f"{cls.label} did not become ready within {timeout}s")
            time.sleep(0.02)
        ready = json.loads(ready_path.read_text(encoding="utf-8"))
        return cls(proc, workdir, ready, script.get("api_key"))

    def _control(self, method: str, what: str, payload: Any = None) -> Any:
        data = None if payload is None else json.dumps(payload).encode()
        request = urllib.request.Request(
            f"{self.url}/_fake/{what}", data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with self._opener.open(request, timeout=30) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as err:
            raise RuntimeError(f"{self.label} control {method} {what}: {err.code} {err.read()!r}") from err

    def requests(self) -> list[dict[str, Any]]:
        """Every API request so far (control requests are not logged)."""
        return self._control("GET", "requests")

    def state(self) -> dict[str, Any]:
        return self._control("GET", "state")

    def add_steps(self, steps: list[dict[str, Any]]) -> dict[str, Any]:
        return self._control("POST", "steps", steps)

    def reset_log(self) -> None:
        self._control("POST", "reset-log", {})

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
