"""What report.json's `sandbox` says holds, read back from inside the sandbox, for every backend.

A probe runs as a command of each kind of session this machine can open — docker, local with
bubblewrap and local without namespaces, as root and as a normal user — and reports what it finds
(its uid, its capabilities, its namespaces compared with the host's, whether it reaches a server
on the host's loopback, whether a write outside the workspace lands, whether it can make a user
namespace, its file-size limit). Each finding must equal what the session's `Isolation` claims.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from selfheal.sandbox import Limits, LocalSandbox
from selfheal.sandbox.base import Isolation
from tests.sandbox.conftest import interpreter_folders

MiB = 1024 * 1024
NORMAL_UID = 43_210
NS_FILES = {"mount": "mnt", "pid": "pid", "net": "net", "ipc": "ipc", "uts": "uts", "user": "user"}

PROBE = textwrap.dedent(
    """
    import ctypes, json, os, resource, socket, sys
    port, target = int(sys.argv[1]), sys.argv[2]
    status = {}
    for line in open("/proc/self/status").read().splitlines():
        name, _, value = line.partition(":")
        status[name] = value.strip()
    found = {
        "uid": os.getuid(),
        "cap_eff": int(status["CapEff"], 16),
        "ns": {n: os.readlink("/proc/self/ns/" + n) for n in ("mnt", "pid", "net", "ipc", "uts", "user")},
        "fsize": resource.getrlimit(resource.RLIMIT_FSIZE)[0],
    }
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        found["network"] = True
    except OSError:
        found["network"] = False
    try:
        with open(target, "w") as handle:
            handle.write("written from inside")
        found["wrote_outside"] = True
    except OSError:
        found["wrote_outside"] = False
    libc = ctypes.CDLL(None, use_errno=True)
    child = os.fork()
    if child == 0:
        os._exit(0 if libc.unshare(0x10000000) == 0 else 1)
    found["user_namespace"] = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0
    print(json.dumps(found))
    """
)

# Run as another user: starts a local session the way selfheal does and prints what it states
# and what the probe found inside.
AS_USER = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from selfheal.sandbox import Limits, LocalSandbox
    workspace, namespaces, python, port, target = sys.argv[1:6]
    expose = tuple(Path(p) for p in sys.argv[6:])
    with LocalSandbox(Limits(disk_mb=64), namespaces=namespaces == "1").start(
        Path(workspace), expose=expose
    ) as session:
        done = session.run([python, "-c", sys.stdin.read(), port, target], timeout=60)
        print(json.dumps({"facts": session.facts.as_dict(), "stdout": done.stdout, "stderr": done.stderr}))
    """
)


def host_namespaces() -> dict[str, str]:
    return {name: os.readlink(f"/proc/self/ns/{name}") for name in NS_FILES.values()}


@pytest.fixture
def outside() -> Iterator[Path]:
    """A file's path in a world-writable folder outside the workspace and outside /tmp: only
    the sandbox, not the permissions, can keep a command from writing it."""
    folder = Path(tempfile.mkdtemp(prefix="selfheal-facts-", dir="/var/tmp"))
    folder.chmod(0o1777)
    yield folder / "written.txt"
    shutil.rmtree(folder, ignore_errors=True)


def check(facts: Isolation | dict, found: dict, outside_file: Path, limits: Limits) -> None:
    facts = facts.as_dict() if isinstance(facts, Isolation) else facts
    host = host_namespaces()
    assert found["uid"] == facts["uid"]
    if facts["separate_user"]:
        assert found["uid"] != os.getuid()
    assert (found["cap_eff"] == 0) is (facts["capabilities"] == [])
    for name, file in NS_FILES.items():
        own = found["ns"][file] != host[file]
        if name == "user" and facts["separate_user"] and "user" not in facts["namespaces"]:
            assert not own  # no user namespace: the uid is a host uid
        assert own is (name in facts["namespaces"]), (name, found["ns"][file], host[file], facts)
    assert found["network"] is facts["network"]
    assert found["wrote_outside"] is (not facts["read_only_elsewhere"])
    assert outside_file.exists() is found["wrote_outside"]
    assert found["user_namespace"] is facts["nested_user_namespaces"]
    assert found["fsize"] == min(limits.max_file_mb, limits.disk_mb) * MiB
    assert facts["disk_limit_mb"] == limits.disk_mb


def open_workspace(parent: Path) -> Path:
    parent.chmod(0o711)
    workspace = parent / "ws"
    workspace.mkdir()
    return workspace


@pytest.mark.parametrize("namespaces", [True, False], ids=["bwrap", "no-namespaces"])
def test_local_facts_hold_inside(
    namespaces: bool, open_python: str, open_folder: Path, tcp_server: tuple[int, list[int]], outside: Path
) -> None:
    limits = Limits(disk_mb=64)
    workspace = open_workspace(open_folder)
    with LocalSandbox(limits, namespaces=namespaces).start(
        workspace, expose=interpreter_folders(open_python)
    ) as session:
        if namespaces and not session.facts.namespaces:
            pytest.skip(f"bubblewrap unusable here: {session.info.isolation}")
        done = session.run([open_python, "-c", PROBE, str(tcp_server[0]), str(outside)], timeout=60)
        facts = session.facts
    assert done.returncode == 0, done.stderr
    check(facts, json.loads(done.stdout), outside, limits)
    if os.geteuid() == 0:
        assert facts.separate_user and facts.contained
        assert facts.capabilities == ()
        assert facts.nested_user_namespaces is False


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to become another user")
@pytest.mark.parametrize("namespaces", [True, False], ids=["bwrap", "no-namespaces"])
def test_local_facts_hold_inside_as_a_normal_user(
    namespaces: bool, open_python: str, open_folder: Path, tcp_server: tuple[int, list[int]], outside: Path
) -> None:
    workspace = open_workspace(open_folder)
    os.chown(workspace, NORMAL_UID, NORMAL_UID)
    folders = [str(p) for p in interpreter_folders(open_python)]

    def become() -> None:
        os.setgroups([])
        os.setgid(NORMAL_UID)
        os.setuid(NORMAL_UID)

    done = subprocess.run(
        [open_python, "-c", AS_USER, str(workspace), "1" if namespaces else "0", open_python,
         str(tcp_server[0]), str(outside), *folders],
        input=PROBE, capture_output=True, text=True, timeout=120, preexec_fn=become, cwd=workspace,
        env={"PATH": os.environ["PATH"], "HOME": str(workspace)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    told = json.loads(done.stdout)
    facts = told["facts"]
    if namespaces and not facts["namespaces"]:
        pytest.skip("bubblewrap unusable for a normal user here")
    assert told["stdout"], told["stderr"]
    found = json.loads(told["stdout"])
    check(facts, found, outside, Limits(disk_mb=64))
    assert found["uid"] == NORMAL_UID and facts["separate_user"] is False
    assert facts["contained"] is namespaces
    assert facts["capabilities"] == []


def test_docker_facts_hold_inside(tmp_path: Path, tcp_server: tuple[int, list[int]], outside: Path) -> None:
    from tests.sandbox.test_docker_sandbox import CLIENT, IMAGE, REASON

    if CLIENT is None:
        pytest.skip(REASON)
    from selfheal.sandbox.docker import DockerSandbox

    (tmp_path / "a.py").write_text("x = 1\n")
    limits = Limits(disk_mb=64)
    with DockerSandbox(IMAGE, limits).start(tmp_path) as session:
        # the probe travels as an argument: nothing of the host is mounted
        done = session.run(["python3", "-c", PROBE, str(tcp_server[0]), str(outside)], timeout=60)
        facts = session.facts
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    check(facts, found, outside, limits)
    assert found["uid"] == 1000 and facts.contained


def test_no_sandbox_statement_is_made_without_facts() -> None:
    """Every backend states its isolation as facts, and report.json carries them."""
    with tempfile.TemporaryDirectory() as folder:
        workspace = open_workspace(Path(folder))
        session = LocalSandbox(namespaces=False, accept_unsafe=True).start(
            workspace, expose=(Path(sys.prefix), Path(sys.base_prefix))
        )
        try:
            info = session.info.as_dict()
        finally:
            session.close()
    assert info["facts"]["uid"] == session.facts.uid
    assert info["isolation"] == session.facts.describe()
