"""Commands in the docker backend's main container: one-shot runs and long-lived channels.

A command runs through the command server when it is up (a fork inside the container), else
through a fresh `docker exec`; either way an in-container runner bounds its time and output.
"""

from __future__ import annotations

import base64
import contextlib
import json
import posixpath
import struct
import threading
import time
import uuid
from typing import Any

from selfheal.sandbox.base import STATE_DIR, ExecResult, MiB
from selfheal.sandbox.docker.archive import files_archive
from selfheal.sandbox.docker.incontainer import KILLER, RUNNER, SERVER
from selfheal.sandbox.docker.layout import CONTAINER_PATH, USER, WORKSPACE
from selfheal.sandbox.env import FIXED, expand_path, is_secret_name
from selfheal.sandbox.exceptions import LimitExceeded, SessionLost
from selfheal.sandbox.output import CappedBuffer, LineQueue, capped_text

GRACE_S = 10.0
FILE_TIMEOUT_S = 30.0  # a file written or read by the command server
# The workspace is full when less than this is left: what it takes for a test to fail on it.
FULL_BELOW = 2 * MiB


class Commands:
    """The part of `DockerSession` that runs commands and opens channels in its main container."""

    def _environment(self, env: dict[str, str] | None) -> dict[str, str]:
        home, tmp = f"{WORKSPACE}/{STATE_DIR}/home", f"{WORKSPACE}/{STATE_DIR}/tmp"
        base = {"PATH": CONTAINER_PATH, "LANG": "C.UTF-8", **FIXED}
        given = expand_path(env or {}, CONTAINER_PATH)
        merged = {**base, **given, "HOME": home, "TMPDIR": tmp, "TMP": tmp, "TEMP": tmp}
        return {k: v for k, v in merged.items() if not is_secret_name(k)}

    def _workdir(self, cwd: str | None) -> str:
        normal = posixpath.normpath(posixpath.join(WORKSPACE, cwd or "."))
        if normal != WORKSPACE and not normal.startswith(WORKSPACE + "/"):
            raise ValueError(f"path escapes the workspace: {cwd}")
        return normal

    def _ensure_state_dirs(self) -> None:
        if not getattr(self, "_state_ready", False):
            self._put(files_archive([STATE_DIR, f"{STATE_DIR}/home", f"{STATE_DIR}/tmp"]))
            self._state_ready = True

    def _check_usable(self) -> None:
        if self._limit_error is not None:
            raise self._limit_error

    def _note_free_space(self, free: int | None) -> None:
        if free is not None and free < FULL_BELOW:
            self._limit_error = LimitExceeded(
                f"the tests filled the workspace's disk limit of {self.limits.disk_mb} MiB (a "
                f"{self.workspace_mb} MiB tmpfs with the repository); the heal stopped"
            )

    def run(
        self, argv: list[str], *, timeout: float, env: dict[str, str] | None = None, cwd: str | None = None
    ) -> ExecResult:
        """Through the command server when it is up (a fork, not a Docker API round trip);
        through a fresh exec when it is not (before it starts, or after something killed it).
        A container that stopped under the heal (killed from outside) is SessionLost."""
        import docker.errors

        try:
            return self._run(argv, timeout=timeout, env=env, cwd=cwd)
        except docker.errors.DockerException as exc:
            raise self._lost(exc) from exc

    def _lost(self, exc: Exception) -> SessionLost:
        state = "gone"
        with contextlib.suppress(Exception):
            self.container.reload()
            state = str(self.container.status)
        name = getattr(self.container, "name", "?")
        first = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        return SessionLost(
            f"the sandbox's container {name} is {state}: it stopped under the heal (killed or removed "
            f"from outside?); the Docker engine said: {first}"
        )

    def _run(
        self, argv: list[str], *, timeout: float, env: dict[str, str] | None = None, cwd: str | None = None
    ) -> ExecResult:
        if not argv:
            return ExecResult(127, "", "selfheal: empty command", 0.0)
        self._check_usable()
        self._ensure_state_dirs()
        with self._run_lock:
            server = self._command_server()
            if server is not None:
                result, free = self._run_on_server(server, argv, timeout, env, cwd)
            else:
                result, free = self._run_by_exec(argv, timeout, env, cwd), self._free_space()
        self._note_free_space(free)
        self._check_usable()
        return result

    def _free_space(self) -> int | None:
        probe = self._run_by_exec(
            ["python3", "-c", f"import os; s = os.statvfs({WORKSPACE!r}); print(s.f_bavail * s.f_frsize)"],
            30, None, None,
        )  # fmt: skip
        try:
            return int(probe.stdout.strip())
        except ValueError:
            return None

    def _command_server(self) -> DockerChannel | None:
        if self._server is not None and not self._server.closed:
            return self._server
        if self._server_failures >= 3:
            return None
        channel = self.open_channel(["python3", "-u", "-c", SERVER])
        if channel.receive(30) != '{"ready": true}':
            channel.close()
            self._server_failures += 1
            return None
        self._server = channel
        return channel

    def _run_on_server(
        self,
        server: DockerChannel,
        argv: list[str],
        timeout: float,
        env: dict[str, str] | None,
        cwd: str | None,
    ) -> tuple[ExecResult, int | None]:
        """The command's result, and the workspace's free space after it."""
        started = time.monotonic()
        marker = uuid.uuid4().hex
        request = {
            "argv": argv,
            "env": self._environment(env),
            "cwd": self._workdir(cwd),
            "timeout": timeout,
            "marker": marker,
            "limit": self.limits.output_bytes,
            "watch": WORKSPACE,
        }
        reply = _ask(server, request, timeout + GRACE_S if timeout > 0 else 24 * 3600)
        if reply is None or "code" not in reply:
            # The server died or hung (the command took it down). Not re-run: a command runs
            # once. The next command gets a new server.
            self._kill(marker)
            server.close()
            self._server_failures += 1
            return ExecResult(
                -1, "", "selfheal: the sandbox's command server stopped while running this command",
                time.monotonic() - started, argv=tuple(argv),
            ), self._free_space()  # fmt: skip
        out, err = (_decoded(reply["out"]), _decoded(reply["err"]))
        timed_out = bool(reply["timed_out"])
        free = reply.get("free")
        return ExecResult(
            returncode=-9 if timed_out else int(reply["code"]),
            stdout=capped_text(*out), stderr=capped_text(*err),
            duration_s=float(reply["duration"]), timed_out=timed_out,
            truncated=bool(out[2] or err[2]), argv=tuple(argv),
        ), free if isinstance(free, int) else None  # fmt: skip

    def _file_on_server(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """The command server's reply to a file request (SERVER in incontainer.py); None where the
        engine's archives must do it: no server, one busy with a command (a write never waits for
        the tests), or one that could not (its {"error"})."""
        if not self._run_lock.acquire(blocking=False):
            return None
        try:
            server = self._command_server()
            if server is None:
                return None
            reply = _ask(server, {**request, "root": WORKSPACE}, FILE_TIMEOUT_S)
            if reply is None:  # it died under the request: the next one starts anew
                server.close()
                self._server_failures += 1
                return None
            return None if "error" in reply else reply
        finally:
            self._run_lock.release()

    def _run_by_exec(
        self, argv: list[str], timeout: float, env: dict[str, str] | None, cwd: str | None
    ) -> ExecResult:
        started = time.monotonic()
        marker = uuid.uuid4().hex
        api = self.client.api
        exec_id = api.exec_create(
            self.container.id, ["python3", "-c", RUNNER, f"{timeout:g}", marker, *argv],
            environment=self._environment(env), workdir=self._workdir(cwd), user=USER,
            stdout=True, stderr=True, stdin=False,
        )["Id"]  # fmt: skip
        out, err = CappedBuffer(self.limits.output_bytes), CappedBuffer(self.limits.output_bytes)
        stream = api.exec_start(exec_id, stream=True, demux=True)

        def pump() -> None:
            with contextlib.suppress(Exception):
                for chunk_out, chunk_err in stream:
                    if chunk_out:
                        out.feed(chunk_out)
                    if chunk_err:
                        err.feed(chunk_err)

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        reader.join(timeout + GRACE_S if timeout > 0 else None)
        if reader.is_alive():  # the in-container runner did not end it: end it from here
            self._kill(marker)
            reader.join(GRACE_S)
        code = api.exec_inspect(exec_id).get("ExitCode")
        duration = time.monotonic() - started
        timed_out = timeout > 0 and code == 137 and duration >= timeout
        return ExecResult(
            returncode=-9 if timed_out else (code if code is not None else -1),
            stdout=out.text(), stderr=err.text(), duration_s=duration, timed_out=timed_out,
            truncated=out.truncated or err.truncated, argv=tuple(argv),
        )  # fmt: skip

    def _kill(self, marker: str) -> None:
        with contextlib.suppress(Exception):
            exec_id = self.client.api.exec_create(
                self.container.id, ["python3", "-c", KILLER, marker], user=USER
            )["Id"]
            self.client.api.exec_start(exec_id)

    def open_channel(self, argv: list[str], *, env: dict[str, str] | None = None) -> DockerChannel:
        import docker.errors

        try:
            return self._open_channel(argv, env=env)
        except docker.errors.DockerException as exc:
            raise self._lost(exc) from exc

    def _open_channel(self, argv: list[str], *, env: dict[str, str] | None = None) -> DockerChannel:
        self._ensure_state_dirs()
        marker = uuid.uuid4().hex
        exec_id = self.client.api.exec_create(
            self.container.id, ["python3", "-c", RUNNER, "0", marker, *argv],
            environment=self._environment(env), workdir=WORKSPACE, user=USER,
            stdout=True, stderr=True, stdin=True,
        )["Id"]  # fmt: skip
        sock = self.client.api.exec_start(exec_id, socket=True)
        channel = DockerChannel(self, sock, marker, self.limits.output_bytes)
        self._channels.append(channel)
        return channel


def _ask(server: DockerChannel, request: dict[str, Any], timeout: float) -> dict[str, Any] | None:
    """The command server's reply to one request; None when it gave none, or not a JSON object."""
    server.send(json.dumps(request))
    line = server.receive(timeout)
    try:
        reply = json.loads(line) if line else None
    except ValueError:
        return None
    return reply if isinstance(reply, dict) else None


def _decoded(part: list) -> tuple[bytes, bytes, int]:
    head, tail, dropped = part
    return base64.b64decode(head), base64.b64decode(tail), int(dropped)


class DockerChannel:
    """A long-lived exec (the screening worker) spoken to over the exec's attached socket."""

    def __init__(self, session: Commands, sock: Any, marker: str, limit: int) -> None:
        self._session = session
        self._sock = sock
        self._raw = getattr(sock, "_sock", sock)
        self._marker = marker
        self._lines = LineQueue()
        self._stderr = CappedBuffer(limit)
        self.closed = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        """Demultiplex docker's stream frames: 8-byte header (stream, size), then payload."""
        pending = b""
        try:
            while True:
                header = self._recv_exact(8)
                if header is None:
                    break
                kind, size = header[0], struct.unpack(">I", header[4:])[0]
                payload = self._recv_exact(size) or b""
                if kind == 2:
                    self._stderr.feed(payload)
                    continue
                pending += payload
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    self._lines.put(line.decode("utf-8", "replace"))
        except OSError:
            pass
        self._lines.end()

    def _recv_exact(self, size: int) -> bytes | None:
        data = b""
        while len(data) < size:
            chunk = self._raw.recv(size - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    def send(self, line: str) -> None:
        with contextlib.suppress(OSError):
            self._raw.sendall(line.encode("utf-8") + b"\n")

    def receive(self, timeout: float) -> str | None:
        return self._lines.get(timeout)

    def close(self) -> str:
        if not self.closed:
            self.closed = True
            self._session._kill(self._marker)
            with contextlib.suppress(OSError):
                self._raw.close()
            self._reader.join(timeout=5)
        return self._stderr.text()
