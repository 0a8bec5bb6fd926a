"""LocalSandbox containment, proven with real processes.

Every probe process carries a unique marker in its argv so the test can look for survivors in the
host's /proc. Tests that exercise containment run twice: with bubblewrap namespaces (where the
machine allows them) and with `namespaces=False`, which must still kill whole process trees,
apply rlimits and filter the environment. Run as root, both run the commands as the session's own
unprivileged uid, so workspaces are made in open folders and commands run on an interpreter that
uid can reach (tests/sandbox/conftest.py).
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from selfheal.sandbox import (
    STATE_DIR,
    Channel,
    ExecResult,
    Limits,
    LocalSandbox,
    LocalSession,
    Session,
)
from selfheal.sandbox.exceptions import WorkspaceTrap
from selfheal.sandbox.local import LocalChannel
from tests.sandbox.conftest import interpreter_folders

PY = sys.executable  # replaced by an interpreter the sandbox user can run (see use_open_python)
MiB = 1024 * 1024
PIDS_ROOT = Path("/sys/fs/cgroup/pids")


# -- helpers ------------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def use_open_python(open_python: str) -> None:
    global PY
    PY = open_python


def start(sandbox: LocalSandbox, workspace: Path) -> LocalSession:
    return sandbox.start(workspace, expose=interpreter_folders(PY))


def marker_pids(marker: str) -> list[int]:
    """Live processes (host view) whose command line contains `marker`."""
    needle = marker.encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as handle:
                cmdline = handle.read()
        except OSError:
            continue
        if needle in cmdline:
            found.append(int(entry.name))
    return found


def run_py(session: LocalSession, code: str, *, timeout: float, **kwargs: object) -> ExecResult:
    return session.run([PY, "-c", textwrap.dedent(code)], timeout=timeout, **kwargs)


def wait_for(predicate, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


# Starts a plain child and a child that leaves the process group and session with setsid(); both
# sleep "forever" and carry a derived marker (built by concatenation so the parent's own argv,
# which contains this source, does not match it). Waits until both are running.
SPAWN_CHILDREN = """
import os, subprocess, sys, time
M = {marker!r}
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)", M + "-child"])
subprocess.Popen([sys.executable, "-c",
                  "import os, sys, time; os.setsid(); open(sys.argv[1], 'w').close(); "
                  "time.sleep(1000)",
                  M + "-setsid.ready", M + "-setsid"])
deadline = time.monotonic() + 10
while not os.path.exists(M + "-setsid.ready") and time.monotonic() < deadline:
    time.sleep(0.01)
print("children started", os.path.exists(M + "-setsid.ready"), flush=True)
"""


@pytest.fixture
def marker() -> Iterator[str]:
    value = f"selfheal-probe-{uuid.uuid4().hex}"
    yield value
    # A failing test must not leave its probes running (or the next tests fighting them).
    for pid in marker_pids(value):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def workspace(open_folder: Path) -> Path:
    ws = open_folder / "ws"
    ws.mkdir()
    return ws


@pytest.fixture(params=[True, False], ids=["namespaces", "no-namespaces"])
def namespaces(request: pytest.FixtureRequest) -> bool:
    return request.param


@pytest.fixture
def session(workspace: Path, namespaces: bool) -> Iterator[LocalSession]:
    with start(LocalSandbox(namespaces=namespaces), workspace) as opened:
        yield opened


@pytest.fixture
def bwrap_session(workspace: Path) -> Iterator[LocalSession]:
    with start(LocalSandbox(), workspace) as opened:
        if opened.info.network:
            pytest.skip(f"bubblewrap unusable on this machine: {opened.info.isolation}")
        yield opened


# -- 1. timeout kills the whole tree -----------------------------------------------------------
def test_timeout_kills_loop_and_all_its_children(session: LocalSession, marker: str) -> None:
    code = SPAWN_CHILDREN.format(marker=marker) + "while True:\n    pass\n"
    box: dict[str, ExecResult] = {}
    started = time.monotonic()
    runner = threading.Thread(target=lambda: box.setdefault("result", run_py(session, code, timeout=3)))
    runner.start()
    # Prove on the host that both children really existed while the command ran.
    seen_child = wait_for(lambda: bool(marker_pids(marker + "-child")), timeout=3)
    seen_setsid = wait_for(lambda: bool(marker_pids(marker + "-setsid")), timeout=3)
    runner.join(timeout=15)
    elapsed = time.monotonic() - started

    assert not runner.is_alive()
    result = box["result"]
    assert seen_child and seen_setsid
    assert result.stdout == "children started True\n"
    assert result.timed_out is True
    assert result.returncode == -signal.SIGKILL
    assert result.ok is False
    assert 3.0 <= result.duration_s < 6.0
    assert elapsed < 6.0
    assert marker_pids(marker) == []


def test_background_leftovers_are_killed_when_the_command_exits(session: LocalSession, marker: str) -> None:
    code = SPAWN_CHILDREN.format(marker=marker) + "print('parent done', flush=True)\n"
    result = run_py(session, code, timeout=5)
    assert result.returncode == 0
    assert result.timed_out is False
    assert result.stdout == "children started True\nparent done\n"
    # The setsid child keeps stdout open; run() must not wait for it to finish.
    assert result.duration_s < 4.0
    assert marker_pids(marker) == []


# -- 2. fork bomb and process count ------------------------------------------------------------
def test_fork_bomb_is_contained(workspace: Path, namespaces: bool, marker: str) -> None:
    with start(LocalSandbox(Limits(max_processes=64), namespaces=namespaces), workspace) as session:
        # Refuse to light the bomb unless something bounds the process count.
        assert "cgroup (64 processes" in session.facts.processes or "NPROC (" in session.facts.processes, (
            session.info.isolation
        )
        code = f"""
        import os
        M = {marker!r}
        print("bomb", flush=True)
        while True:
            try:
                os.fork()
            except BaseException:
                pass
        """
        box: dict[str, ExecResult] = {}
        runner = threading.Thread(target=lambda: box.setdefault("result", run_py(session, code, timeout=3)))
        started = time.monotonic()
        runner.start()
        peak = 0
        while time.monotonic() - started < 2.5:  # stop sampling before the kill starts
            peak = max(peak, len(marker_pids(marker)))
            time.sleep(0.05)
        runner.join(timeout=20)
        elapsed = time.monotonic() - started

        assert not runner.is_alive()
        result = box["result"]
        assert result.timed_out is True
        assert result.returncode == -signal.SIGKILL
        assert elapsed < 8.0
        assert 2 <= peak <= 64
        assert marker_pids(marker) == []

        # The machine and the session still work.
        assert subprocess.run(["true"], check=False).returncode == 0
        after = run_py(session, "print('still alive')", timeout=5)
        assert (after.returncode, after.stdout) == (0, "still alive\n")


def test_max_processes_bounds_how_many_children_a_command_creates(
    workspace: Path, namespaces: bool, marker: str
) -> None:
    code = f"""
    import os, time
    M = {marker!r}
    count = 0
    for _ in range(1000):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(1000)
            os._exit(0)
        count += 1
    print("forked", count, flush=True)
    """
    with start(LocalSandbox(Limits(max_processes=64), namespaces=namespaces), workspace) as session:
        result = run_py(session, code, timeout=10)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("forked ")
    count = int(result.stdout.split()[1])
    # bwrap, its namespace init and the script itself count towards the same 64.
    assert 56 <= count <= 64
    assert result.duration_s < 5.0
    assert marker_pids(marker) == []


# -- 3. memory --------------------------------------------------------------------------------
def test_4gb_allocation_fails_with_memory_error(session: LocalSession) -> None:
    code = """
    import resource
    try:
        block = bytearray(4 * 1024**3)
        print("allocated", len(block))
    except MemoryError:
        print("MemoryError")
    # VmHWM, not ru_maxrss: Linux carries the peak of the image before exec (here, a forked
    # copy of the test worker, hundreds of MiB late in a run) into ru_maxrss
    peak = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
    print("maxrss_kib", peak.split()[1])
    print("as_limit", *resource.getrlimit(resource.RLIMIT_AS))
    """
    result = run_py(session, code, timeout=10)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "MemoryError"
    assert lines[2] == f"as_limit {2048 * MiB} {2048 * MiB}"
    maxrss_kib = int(lines[1].split()[1])
    assert maxrss_kib < 200 * 1024  # the 4 GiB were never touched
    assert result.duration_s < 5.0


# -- 4. output cap -----------------------------------------------------------------------------
def test_100mb_of_stdout_is_capped_keeping_head_and_tail(session: LocalSession) -> None:
    code = """
    import sys
    out = sys.stdout.buffer
    out.write(b"HEAD-START\\n")
    chunk = b"x" * 1023 + b"\\n"
    for _ in range(100 * 1024):
        out.write(chunk)
    out.write(b"TAIL-END\\n")
    out.flush()
    """
    result = run_py(session, code, timeout=30)
    limit = Limits().output_bytes
    assert limit == 2 * MiB
    assert result.returncode == 0
    assert result.timed_out is False
    assert result.truncated is True

    chunk = b"x" * 1023 + b"\n"
    total = len(b"HEAD-START\n") + 100 * 1024 * len(chunk) + len(b"TAIL-END\n")
    head = (b"HEAD-START\n" + chunk * 600)[: limit // 4]
    tail = (chunk * 1600 + b"TAIL-END\n")[-(limit - limit // 4) :]
    notice = f"\n[... {total - limit} bytes of output dropped by selfheal ...]\n".encode()
    assert result.stdout == (head + notice + tail).decode()
    assert len(result.stdout.encode()) == limit + len(notice)
    assert result.stdout.startswith("HEAD-START\nxxx")
    assert result.stdout.endswith("xxx\nTAIL-END\n")
    assert result.stderr == ""
    assert result.duration_s < 20.0


# -- 5. secrets -------------------------------------------------------------------------------
SECRETS = {
    "GITHUB_TOKEN": "ghp_testsecret111",
    "ANTHROPIC_API_KEY": "sk-ant-testsecret222",
    "AWS_SECRET_ACCESS_KEY": "aws-testsecret333",
    "MY_PASSWORD": "pw-testsecret444",
}


def test_secrets_never_reach_the_command(
    workspace: Path, namespaces: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("SELFHEAL_TEST_UNLISTED", "not-allowlisted")
    code = """
    import json, os
    with open("/proc/self/environ", "rb") as handle:
        raw = handle.read().decode()
    print(json.dumps({"environ": dict(os.environ), "proc": raw}))
    """
    sandbox = LocalSandbox(namespaces=namespaces, extra_env={"ANTHROPIC_API_KEY": "sk-ant-via-extra-env"})
    with start(sandbox, workspace) as session:
        result = run_py(
            session,
            code,
            timeout=10,
            env={"GITHUB_TOKEN": "ghp_passed_explicitly", "SAFE_SETTING": "kept"},
        )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    environ, proc = seen["environ"], seen["proc"]
    for name in SECRETS:
        assert name not in environ
        assert name not in proc
    for value in [*SECRETS.values(), "ghp_passed_explicitly", "sk-ant-via-extra-env"]:
        assert value not in result.stdout
    assert "SELFHEAL_TEST_UNLISTED" not in environ
    assert environ["SAFE_SETTING"] == "kept"
    state = workspace.resolve() / STATE_DIR
    assert environ["HOME"] == str(state / "home")
    assert environ["TMPDIR"] == str(state / "tmp")
    assert environ["TMP"] == environ["TEMP"] == environ["TMPDIR"]
    assert "HOME=" + str(state / "home") in proc.split("\0")


# -- 6. namespaces: network and file system ------------------------------------------------------
CONNECT = """
import json, socket
results = {{}}
for name, addr in [("dns", ("1.1.1.1", 53)), ("host_loopback", ("127.0.0.1", {port}))]:
    try:
        socket.create_connection(addr, timeout=2).close()
        results[name] = "connected"
    except OSError as exc:
        results[name] = exc.errno if exc.errno is not None else type(exc).__name__
print(json.dumps(results))
"""


def test_no_network_under_bwrap(bwrap_session: LocalSession, tcp_server: tuple[int, list[int]]) -> None:
    port, accepted = tcp_server
    socket.create_connection(("127.0.0.1", port), timeout=2).close()  # the server works
    assert wait_for(lambda: accepted[0] == 1, timeout=2)

    assert bwrap_session.info.network is False
    assert "net" in bwrap_session.facts.namespaces
    assert "network: none" in bwrap_session.info.isolation
    result = run_py(bwrap_session, CONNECT.format(port=port), timeout=10)
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["dns"] != "connected"
    assert outcome["host_loopback"] != "connected"
    assert outcome["dns"] in (errno.ENETUNREACH, errno.EHOSTUNREACH, errno.EACCES, "TimeoutError")
    time.sleep(0.3)
    assert accepted[0] == 1  # nothing from inside the sandbox arrived


def test_without_namespaces_network_is_reported_and_real(
    workspace: Path, tcp_server: tuple[int, list[int]]
) -> None:
    port, accepted = tcp_server
    with start(LocalSandbox(namespaces=False), workspace) as session:
        assert session.info.network is True
        result = run_py(session, CONNECT.format(port=port), timeout=10)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["host_loopback"] == "connected"
    assert wait_for(lambda: accepted[0] == 1, timeout=2)


ATTEMPT_WRITES = """
import json, os
def attempt(action):
    try:
        action()
        return "ok"
    except OSError as exc:
        return exc.errno
folder = {folder!r}
print(json.dumps({{
    "overwrite": attempt(lambda: open(folder + "/existing.txt", "w").write("pwned")),
    "create": attempt(lambda: open(folder + "/new.txt", "w").write("pwned")),
    "delete": attempt(lambda: os.remove(folder + "/existing.txt")),
    "workspace": attempt(lambda: open("inside.txt", "w").write("written")),
    "home": attempt(lambda: open(os.path.join(os.environ["HOME"], "h.txt"), "w").write("h")),
}}))
"""


def test_what_the_command_is_shown_of_the_host_is_read_only(workspace: Path, open_python: str) -> None:
    # A folder the command needs (here: one passed as `expose`, as the test interpreter is) is
    # bound in read-only: even mode 0777 does not let the command write it.
    shared = Path(tempfile.mkdtemp(prefix="selfheal-ro-", dir="/var/tmp"))
    shared.chmod(0o777)  # so that only the read-only mount can refuse, not the permissions
    (shared / "existing.txt").write_text("original")
    sandbox = LocalSandbox()
    try:
        with sandbox.start(workspace, expose=(*interpreter_folders(PY), shared)) as session:
            if session.info.network:
                pytest.skip(f"bubblewrap unusable on this machine: {session.info.isolation}")
            result = run_py(session, ATTEMPT_WRITES.format(folder=str(shared)), timeout=10)
            assert result.returncode == 0, result.stderr
            assert json.loads(result.stdout) == {
                "overwrite": errno.EROFS, "create": errno.EROFS, "delete": errno.EROFS,
                "workspace": "ok", "home": "ok",
            }  # fmt: skip
            assert session.read_file("inside.txt") == b"written"
            assert session.read_file(f"{STATE_DIR}/home/h.txt") == b"h"
        assert (shared / "existing.txt").read_text() == "original"
        assert not (shared / "new.txt").exists()
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def _operator_files(beside_workspace: Path) -> list[Path]:
    """Where a bot's operator keeps a key, a queue database, settings and other jobs' folders,
    each readable by its mode: places a hidden-folder list did not name."""
    name = f"selfheal-view-{uuid.uuid4().hex[:8]}"
    wanted = [
        Path("/etc") / name / "app-key.pem",
        Path("/var/lib") / name / "queue.db",
        Path("/opt") / name / "settings.toml",
        Path("/var/tmp") / name / "report.json",
        Path.home() / name / "token",
        beside_workspace / "other-job" / "report.json",
    ]
    made = []
    for path in wanted:
        try:
            path.parent.mkdir(mode=0o755, parents=True)
            path.write_text(f"operator secret {name}\n")
            path.chmod(0o644)
        except OSError:
            continue  # not root: /etc and /var/lib are not ours to write
        made.append(path)
    return made


READ_EACH = """
import json, os, sys
def read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read(64).decode("utf-8", "replace")
    except OSError as exc:
        return exc.errno
print(json.dumps({p: read(p) for p in json.loads(sys.argv[1])}))
"""


def test_the_host_outside_the_allowlist_cannot_be_read(workspace: Path, namespaces: bool) -> None:
    # With namespaces the operator's files are not in bubblewrap's view (ENOENT); without them
    # Landlock refuses to open what its rules do not name (EACCES), whatever the file's mode.
    files = _operator_files(workspace.parent)
    assert len(files) >= 3  # /var/tmp, the home folder and beside the workspace, for any user
    try:
        with start(LocalSandbox(namespaces=namespaces), workspace) as session:
            if namespaces and session.info.network:
                pytest.skip(f"bubblewrap unusable on this machine: {session.info.isolation}")
            if not namespaces and "Landlock" not in session.info.isolation:
                pytest.skip(f"no Landlock here: {session.info.isolation}")
            paths = [*map(str, files), "/etc/passwd", "/etc/pip.conf", "/etc/hostname"]
            result = session.run([PY, "-c", READ_EACH, json.dumps(paths)], timeout=10)
        assert result.returncode == 0, result.stderr
        refused = errno.ENOENT if namespaces else errno.EACCES
        outcome = json.loads(result.stdout)
        assert {p: outcome[p] for p in map(str, files)} == {str(p): refused for p in files}
        assert outcome["/etc/passwd"].startswith("root:")
        for unlisted in ("/etc/pip.conf", "/etc/hostname"):  # on the host, readable by anyone
            assert outcome[unlisted] in (refused, errno.ENOENT)
    finally:
        for path in files:
            shutil.rmtree(path.parent, ignore_errors=True)


# -- 7. without namespaces ---------------------------------------------------------------------
def test_no_namespaces_info(workspace: Path) -> None:
    with start(LocalSandbox(namespaces=False), workspace) as session:
        info, facts = session.info, session.facts
    assert info.backend == "local"
    assert info.network is True
    assert facts.namespaces == ()
    assert "namespaces: none; network: reachable" in info.isolation
    assert info.isolation.endswith("; no namespaces (disabled)")
    assert "rlimits: address space 2048 MiB, file size 512 MiB, CPU time" in info.isolation
    assert info.as_dict() == {
        "backend": "local",
        "network": True,
        "isolation": info.isolation,
        "facts": facts.as_dict(),
    }
    assert facts.separate_user is (os.geteuid() == 0)
    assert facts.contained is (os.geteuid() == 0)


def test_rlimits_are_applied(workspace: Path, namespaces: bool) -> None:
    limits = Limits(memory_mb=1024, max_file_mb=1)
    code = """
    import errno, resource
    for name in ("RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_CORE", "RLIMIT_CPU"):
        print(name, *resource.getrlimit(getattr(resource, name)))
    try:
        with open("big.bin", "wb") as handle:
            handle.write(b"x" * (2 * 1024 * 1024))
        print("write ok")
    except OSError as exc:
        print("write failed", errno.errorcode[exc.errno])
    """
    with start(LocalSandbox(limits, namespaces=namespaces), workspace) as session:
        result = run_py(session, code, timeout=3)
    assert result.returncode == 0, result.stderr
    cpu = math.ceil(3) + 10
    assert result.stdout.splitlines() == [
        f"RLIMIT_AS {1024 * MiB} {1024 * MiB}",
        f"RLIMIT_FSIZE {MiB} {MiB}",
        "RLIMIT_CORE 0 0",
        f"RLIMIT_CPU {cpu} {cpu + 5}",
        "write failed EFBIG",
    ]
    assert (workspace / "big.bin").stat().st_size <= MiB


def test_cpu_limit_stops_a_busy_loop_before_the_timeout(workspace: Path, namespaces: bool) -> None:
    with start(LocalSandbox(Limits(cpu_seconds=1), namespaces=namespaces), workspace) as session:
        result = run_py(session, "while True:\n    pass\n", timeout=10)
    assert result.timed_out is False
    # SIGXCPU: -24 from Popen directly; bwrap reports a signalled child as 128 + 24.
    assert result.returncode in (-signal.SIGXCPU, 128 + signal.SIGXCPU)
    assert result.duration_s < 5.0


# -- 8. missing commands and path escapes ------------------------------------------------------
def test_missing_command_is_a_result_not_an_exception(session: LocalSession) -> None:
    result = session.run(["selfheal-no-such-command-xyz", "--flag"], timeout=5)
    assert result.returncode == 127
    assert result.stdout == ""
    assert result.stderr == "selfheal: command not found: selfheal-no-such-command-xyz"
    assert result.timed_out is False
    assert result.argv == ("selfheal-no-such-command-xyz", "--flag")

    relative = session.run(["./missing.sh"], timeout=5)
    assert relative.returncode == 127
    assert "missing.sh" in relative.stderr

    empty = session.run([], timeout=5)
    assert empty.returncode == 127
    assert empty.stderr == "selfheal: empty command"


def test_relative_executable_is_resolved_against_cwd(session: LocalSession) -> None:
    session.write_file("sub/run.sh", "#!/bin/sh\necho hi from sub\n")
    (session.root / "sub" / "run.sh").chmod(0o755)
    result = session.run(["./run.sh"], timeout=5, cwd="sub")
    assert (result.returncode, result.stdout) == (0, "hi from sub\n"), result.stderr


def test_exec_failure_inside_the_sandbox_is_127(session: LocalSession) -> None:
    # The interpreter of the script does not exist, so the command cannot be run: 127, not an
    # exit status a test runner could have produced (pytest's 1 means "tests failed").
    session.write_file("bad.sh", "#!/nonexistent/interpreter\n")
    (session.root / "bad.sh").chmod(0o755)
    bad = session.run(["./bad.sh"], timeout=5)
    assert bad.returncode == 127, (bad.returncode, bad.stderr)
    assert "bad.sh" in bad.stderr


def test_program_hidden_by_bwrap_is_127(bwrap_session: LocalSession, tmp_path: Path) -> None:
    # On the host's PATH but under /tmp, which bwrap replaces with a private tmpfs: the host-side
    # "command exists" check passes, the exec inside the sandbox fails.
    hostbin = tmp_path / "hostbin"
    hostbin.mkdir()
    (hostbin / "hosttool").write_text("#!/bin/sh\necho tool ran\n")
    (hostbin / "hosttool").chmod(0o755)
    result = bwrap_session.run(["hosttool"], timeout=5, env={"PATH": f"{hostbin}:/usr/bin:/bin"})
    assert result.returncode == 127, (result.returncode, result.stderr)
    assert "hosttool" in result.stderr


def test_file_access_cannot_escape_the_workspace(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    (workspace / "link").symlink_to(outside)
    with start(LocalSandbox(namespaces=False), workspace) as session:
        for bad in ("../x", "sub/../../x", "../outside/secret.txt", str(outside / "secret.txt")):
            with pytest.raises(ValueError, match="escapes the workspace"):
                session.write_file(bad, "pwned")
            with pytest.raises(ValueError, match="escapes the workspace"):
                session.read_file(bad)
        for through_link in ("link/secret.txt", "link/new.txt"):
            with pytest.raises(WorkspaceTrap, match=r"link is a symbolic link \(to .*outside\)"):
                session.write_file(through_link, "pwned")
            assert session.read_file(through_link) is None
        assert not (tmp_path / "x").exists()
        assert not (outside / "new.txt").exists()
        assert (outside / "secret.txt").read_text() == "secret"

        session.write_file("a/b/c.txt", "content")
        assert (workspace / "a" / "b" / "c.txt").read_text() == "content"
        assert session.read_file("a/b/c.txt") == b"content"
        assert session.read_file("a/../a/b/c.txt") == b"content"
        session.write_file("bytes.bin", b"\x00\x01")
        assert session.read_file("bytes.bin") == b"\x00\x01"
        assert session.read_file("missing.txt") is None
        assert session.read_file("a") is None


def test_session_requires_an_existing_directory(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError):
        LocalSandbox().start(tmp_path / "does-not-exist")


def test_protocols_are_satisfied(session: LocalSession) -> None:
    assert isinstance(session, Session)
    assert session.root.is_absolute()
    assert (session.root / STATE_DIR / "home").is_dir()
    assert (session.root / STATE_DIR / "tmp").is_dir()


# -- 9. channels -------------------------------------------------------------------------------
ECHO = """
import sys
sys.stderr.write("worker stderr line\\n")
sys.stderr.flush()
print("ready", flush=True)
for line in sys.stdin:
    print("echo:" + line.rstrip("\\n"), flush=True)
"""


def test_channel_send_receive_timeout_and_close(session: LocalSession, marker: str) -> None:
    code = SPAWN_CHILDREN.format(marker=marker) + ECHO
    channel = session.open_channel([PY, "-c", code])
    assert isinstance(channel, Channel)
    try:
        assert channel.receive(10) == "children started True"
        assert channel.receive(5) == "ready"
        channel.send("hello")
        assert channel.receive(5) == "echo:hello"
        channel.send("second line with spaces")
        assert channel.receive(5) == "echo:second line with spaces"

        started = time.monotonic()
        assert channel.receive(0.3) is None
        waited = time.monotonic() - started
        assert 0.25 <= waited < 2.0
        assert channel.alive is True
        assert marker_pids(marker + "-child") and marker_pids(marker + "-setsid")
    finally:
        stderr = channel.close()
    assert "worker stderr line" in stderr
    assert channel.alive is False
    assert channel.receive(0.2) is None
    assert marker_pids(marker) == []
    assert channel.close() == stderr  # idempotent


def test_channel_end_of_stream(session: LocalSession) -> None:
    channel = session.open_channel([PY, "-c", "print('only line')"])
    try:
        assert channel.receive(5) == "only line"
        assert channel.receive(5) is None
        assert channel.receive(0.1) is None  # keeps reporting end of stream
        channel.send("ignored")  # writing to a dead worker is not an exception
    finally:
        channel.close()


def test_session_close_closes_channels(workspace: Path, namespaces: bool, marker: str) -> None:
    session = start(LocalSandbox(namespaces=namespaces), workspace)
    channel = session.open_channel([PY, "-c", SPAWN_CHILDREN.format(marker=marker) + ECHO])
    assert channel.receive(10) == "children started True"
    session.close()
    assert channel.alive is False
    assert marker_pids(marker) == []


def test_channel_survives_the_thread_that_opened_it(session: LocalSession) -> None:
    # bwrap runs with --die-with-parent, and Linux delivers the parent-death signal when the
    # *thread* that forked the child exits. A channel opened from a worker thread (which then
    # ends, as a ThreadPoolExecutor worker may) must keep working.
    box: dict[str, LocalChannel] = {}
    ready = threading.Event()

    def opener() -> None:
        box["ch"] = session.open_channel([PY, "-c", ECHO])
        # Stay alive until the worker has answered, so bwrap has certainly started; then exit.
        ready.wait(10)

    thread = threading.Thread(target=opener)
    thread.start()
    assert wait_for(lambda: "ch" in box, timeout=10)
    channel = box["ch"]
    try:
        assert channel.receive(10) == "ready"
        ready.set()
        thread.join(timeout=5)
        assert not thread.is_alive()
        time.sleep(0.5)
        assert channel.alive is True
        channel.send("ping")
        assert channel.receive(5) == "echo:ping"
    finally:
        ready.set()
        channel.close()


# -- cgroup bookkeeping ------------------------------------------------------------------------
def _selfheal_cgroups() -> set[str]:
    """The cgroups this process's sandboxes made (named `selfheal-<pid>-…`): another test worker's
    sandbox may make its own at the same moment."""
    if not PIDS_ROOT.is_dir():
        return set()
    return {entry.name for entry in PIDS_ROOT.iterdir() if entry.name.startswith(f"selfheal-{os.getpid()}-")}


def test_cgroups_are_removed_after_runs_and_close(workspace: Path, namespaces: bool) -> None:
    before = _selfheal_cgroups()
    session = start(LocalSandbox(namespaces=namespaces), workspace)
    if "pids cgroup" not in session.info.isolation:
        session.close()
        pytest.skip(f"no pids cgroup here: {session.info.isolation}")
    created = _selfheal_cgroups() - before
    assert len(created) == 1
    parent = PIDS_ROOT / created.pop()
    result = run_py(session, "print(open('/proc/self/cgroup').read())", timeout=5)
    assert result.returncode == 0
    if not namespaces:  # without a cgroup namespace the path is visible
        assert f"pids:/{parent.name}/cmd-0" in result.stdout
    assert [p.name for p in parent.iterdir() if p.is_dir()] == []
    session.close()
    assert not parent.exists()


# -- the workspace's git metadata ----------------------------------------------------------------
PLANT_FSMONITOR = """
import os, subprocess
hook = os.path.join(os.getcwd(), ".selfheal-sandbox", "tmp", "hook.sh")
with open(hook, "w") as handle:
    handle.write("#!/bin/sh\\necho \\"ran on the host, token=$GITHUB_TOKEN\\" > {proof}\\n")
os.chmod(hook, 0o755)
with open(".git/config", "a") as handle:
    handle.write("[core]\\n\\tfsmonitor = " + hook + "\\n")
print("planted", flush=True)
"""


def test_sandboxed_code_cannot_plant_git_config_that_the_host_runs(
    make_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # selfheal's Workspace keeps its .git inside the workspace and runs git there on the host
    # (Workspace.diff: `git diff --cached`, with the full host environment). If sandboxed code can
    # edit .git/config, `core.fsmonitor` turns that into code execution outside the sandbox.
    from selfheal.agent.run.workspace import Origin, Workspace

    monkeypatch.setenv("GITHUB_TOKEN", "ghp_host_only_secret")
    repo = make_repo({"mod.py": "VALUE = 1\n"})
    workspace = Workspace.create(Origin.inspect(repo), parent=tmp_path)
    proof = tmp_path / "escaped.txt"
    try:
        with LocalSandbox().start(workspace.root) as session:
            if session.info.network:
                pytest.skip(f"bubblewrap unusable on this machine: {session.info.isolation}")
            planted = run_py(session, PLANT_FSMONITOR.format(proof=proof), timeout=10)
        workspace.diff({"mod.py": "VALUE = 2\n"})
        assert not proof.exists(), proof.read_text()
        assert planted.returncode != 0  # .git must not be writable from inside
    finally:
        workspace.cleanup()
