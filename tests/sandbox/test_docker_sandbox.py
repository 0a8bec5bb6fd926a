"""The docker backend against a real engine: the escape corpus, leftovers, dependency setup.

Needs a Docker engine and the sandbox image (`docker/build-base-image.sh`; `.ci/run` starts the
engine and builds the image). Where no engine answers, every test here is skipped with the reason.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from selfheal.sandbox import Limits
from selfheal.sandbox.docker import (
    LABEL,
    OWNER_LABEL,
    OWNER_PIDNS_LABEL,
    DockerSandbox,
    DockerSession,
    docker_client,
    pid_namespace,
    remove_leftovers,
)
from selfheal.sandbox.exceptions import (
    LimitExceeded,
    SandboxUnavailable,
    SessionLost,
    SetupFailed,
    SetupRefused,
)
from selfheal.sandbox.select import choose_sandbox

IMAGE = os.environ.get("SELFHEAL_TEST_IMAGE", "selfheal-sandbox:bookworm")


def _client_or_reason():
    try:
        client = docker_client(timeout=10)
    except SandboxUnavailable as exc:
        return None, f"no Docker engine: {exc}"
    try:
        client.images.get(IMAGE)
    except Exception:
        return None, f"image {IMAGE} missing: build it with docker/build-base-image.sh"
    return client, ""


CLIENT, REASON = _client_or_reason()
pytestmark = pytest.mark.skipif(CLIENT is None, reason=REASON)


def ours(*, any_owner: bool = False) -> dict[str, list[str]]:
    """selfheal's containers, volumes and networks: this process's only, unless `any_owner` (other
    test processes may be healing in docker at the same time)."""
    labels = [LABEL] if any_owner else [LABEL, f"{OWNER_LABEL}={socket.gethostname()}:{os.getpid()}"]
    return {
        "containers": sorted(c.name for c in CLIENT.containers.list(all=True, filters={"label": labels})),
        "volumes": sorted(v.name for v in CLIENT.volumes.list(filters={"label": labels})),
        "networks": sorted(n.name for n in CLIENT.networks.list(filters={"label": labels})),
    }


@pytest.fixture(scope="module", autouse=True)
def nothing_left_behind() -> Iterator[None]:
    """After the whole corpus: no container, volume or network of ours remains."""
    before = ours() if CLIENT is not None else None
    yield
    if before is not None:
        assert ours() == before


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> Iterator[DockerSession]:
    workspace = tmp_path_factory.mktemp("ws")
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "mod.py").write_text("VALUE = 1\n")
    sandbox = DockerSandbox(IMAGE, Limits(memory_mb=512, max_processes=64, cpus=1.0))
    opened = sandbox.start(workspace)
    try:
        yield opened
    finally:
        opened.close()


def py(session: DockerSession, code: str, timeout: float = 20, **kwargs):
    return session.run(["python3", "-c", code], timeout=timeout, **kwargs)


SCAN = """
import os, sys
needle, spare = sys.argv[1].encode(), {os.getpid(), os.getppid()}
for pid in os.listdir('/proc'):
    if pid.isdigit() and int(pid) not in spare:
        try:
            if needle in open('/proc/%s/cmdline' % pid, 'rb').read():
                print(pid)
        except OSError:
            pass
"""


def marked_processes(session: DockerSession, marker: str) -> list[str]:
    """Processes in the container whose command line carries `marker` (the scan excluded)."""
    return session.run(["python3", "-c", SCAN, marker], timeout=20).stdout.split()


@pytest.fixture
def host_server() -> Iterator[tuple[list[str], int, list[int]]]:
    """A TCP server on the host's loopback and on every host address, counting connections."""
    hits: list[int] = []
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("0.0.0.0", 0))
    server.listen(8)
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                hits.append(1)
                conn.close()
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    config = CLIENT.networks.get("bridge").attrs["IPAM"]["Config"][0]
    # the engine omits the gateway when it is the subnet's first address
    gateway = config.get("Gateway") or config["Subnet"].rsplit(".", 2)[0] + ".0.1"
    try:
        yield ["127.0.0.1", gateway, "host.docker.internal"], server.getsockname()[1], hits
    finally:
        stop.set()
        thread.join(2)
        server.close()


CONNECT = """
import socket, sys
host, port = sys.argv[1], int(sys.argv[2])
try:
    socket.create_connection((host, port), timeout=3).close()
    print("CONNECTED")
except OSError as exc:
    print("blocked:", exc)
"""


# -- the escape corpus ----------------------------------------------------------------------
def test_no_network_to_the_outside(session):
    for host, port in (("1.1.1.1", 53), ("8.8.8.8", 443), ("151.101.0.223", 443)):
        result = session.run(["python3", "-c", CONNECT, host, str(port)], timeout=20)
        assert result.stdout.startswith("blocked:"), (host, result.stdout)


def test_no_network_to_services_on_the_docker_host(session, host_server):
    hosts, port, hits = host_server
    for host in hosts:
        result = session.run(["python3", "-c", CONNECT, host, str(port)], timeout=20)
        assert result.stdout.startswith("blocked:"), (host, result.stdout)
    assert hits == []
    # control: the server does accept connections from the host itself
    socket.create_connection(("127.0.0.1", port), timeout=3).close()
    time.sleep(0.3)
    assert hits == [1]


def test_no_dns(session):
    result = py(
        session,
        "import socket\ntry:\n    print(socket.getaddrinfo('pypi.org', 443))\n"
        "except OSError as exc:\n    print('blocked:', exc)",
    )
    assert result.stdout.startswith("blocked:")


def test_secrets_never_enter(session, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_docker_secret")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-docker-secret")
    code = (
        "import os\nprint(sorted(os.environ))\n"
        "for p in ('/proc/self/environ', '/proc/1/environ'):\n"
        "    try:\n        data = open(p, 'rb').read()\n    except OSError as exc:\n"
        "        print('unreadable', p)\n        continue\n"
        "    print(p, b'docker_secret' in data or b'docker-secret' in data)"
    )
    result = py(session, code, env={"GITHUB_TOKEN": "ghp_docker_secret", "EXTRA": "x"})
    assert "GITHUB_TOKEN" not in result.stdout and "ANTHROPIC_API_KEY" not in result.stdout
    assert "/proc/self/environ False" in result.stdout
    assert "/proc/1/environ False" in result.stdout  # PID 1 (docker's init) is readable and clean
    assert "True" not in result.stdout
    assert "'EXTRA'" in result.stdout  # ordinary variables do pass


def test_writes_outside_the_workspace_fail_or_stay_in_the_container(session, tmp_path):
    result = py(
        session,
        """
import os
for path in ('/etc/selfheal-escape', '/usr/selfheal-escape', '/selfheal-escape',
             '/sandbox/selfheal-escape'):
    try:
        open(path, 'w').write('x')
        print('WROTE', path)
    except OSError as exc:
        print('blocked', path, exc.errno)
open('/tmp/private', 'w').write('x')
open('pkg/inside.txt', 'w').write('x')
print('ok')
""",
    )
    assert "WROTE" not in result.stdout, result.stdout
    assert result.stdout.count("blocked") == 4
    assert session.read_file("pkg/inside.txt") == b"x"
    assert not Path("/tmp/private").exists() or Path("/tmp/private").read_text() != "x"


def test_fork_bomb_is_contained(session):
    marker = f"bomb-{uuid.uuid4().hex[:8]}"
    started = time.monotonic()
    result = session.run(
        [
            "python3",
            "-c",
            "import os, sys\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass",
            marker,
        ],
        timeout=4,
    )
    assert result.timed_out
    assert time.monotonic() - started < 4 + 15
    assert marked_processes(session, marker) == []
    assert py(session, "print('alive')").stdout == "alive\n"


def test_memory_bomb_is_contained(session):
    result = py(session, "b = bytearray(4 * 1024**3)\nprint('allocated', len(b))", timeout=30)
    assert "allocated" not in result.stdout
    assert result.returncode != 0
    assert py(session, "print('alive')").stdout == "alive\n"


def test_infinite_loop_is_killed_with_its_whole_tree(session):
    marker = f"loop-{uuid.uuid4().hex[:8]}"
    code = f"""
import os, subprocess, sys
subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(1000)', '{marker}-child'])
subprocess.Popen([sys.executable, '-c', 'import os, time; os.setsid(); time.sleep(1000)',
                  '{marker}-escapee'])
while True:
    pass
"""
    result = session.run(["python3", "-c", code, marker], timeout=3)
    assert result.timed_out and result.returncode == -9
    assert 3 <= result.duration_s < 3 + 12
    assert marked_processes(session, marker) == []


def test_output_is_capped(session):
    code = "import sys\nfor i in range(100):\n    sys.stdout.write(chr(65 + i % 26) * (1024 * 1024))"
    result = py(session, code, timeout=60)
    assert result.returncode == 0
    assert result.truncated
    assert len(result.stdout) <= session.limits.output_bytes + 200
    assert result.stdout.startswith("A" * 1000) and result.stdout.endswith("V" * 1000)


def test_the_docker_socket_is_not_reachable(session):
    result = py(
        session,
        """
import os, socket
print('socket file', os.path.exists('/var/run/docker.sock') or os.path.exists('/run/docker.sock'))
for host, port in (('172.17.0.1', 2375), ('172.17.0.1', 2376)):
    try:
        socket.create_connection((host, port), timeout=3).close()
        print('CONNECTED', port)
    except OSError:
        print('blocked', port)
""",
    )
    assert "socket file False" in result.stdout
    assert "CONNECTED" not in result.stdout


def test_the_container_is_locked_down(session):
    result = py(
        session,
        """
import os
print('uid', os.getuid())
status = open('/proc/self/status').read()
print([line for line in status.splitlines() if line.startswith(('CapEff', 'NoNewPrivs'))])
print('mounts', [l.split()[1] for l in open('/proc/self/mounts') if ' / ' in l and 'ro,' in l])
""",
    )
    assert "uid 1000" in result.stdout
    assert "CapEff:\\t0000000000000000" in result.stdout
    assert "NoNewPrivs:\\t1" in result.stdout
    assert "mounts ['/']" in result.stdout
    assert "tmpfs /tmp tmpfs rw,nosuid,nodev" in py(session, "print(open('/proc/mounts').read())").stdout
    host = CLIENT.containers.get(session.container.id).attrs["HostConfig"]
    assert host["NetworkMode"] == "none"
    assert host["ReadonlyRootfs"] is True
    assert host["CapDrop"] == ["ALL"]
    assert host["SecurityOpt"] == ["no-new-privileges"]
    # the workspace is a tmpfs, whose pages count as the container's memory
    assert host["Memory"] == (512 + session.workspace_mb) * 1024 * 1024
    assert host["MemorySwap"] == host["Memory"]
    assert host["PidsLimit"] == 64
    assert host["NanoCpus"] == 1_000_000_000
    assert host["Init"] is True
    # the workspace is a named volume filled through the API: no host path is mounted; the
    # dependencies are read-only for the repository's code
    workspace, deps = session.volumes
    assert sorted(host["Binds"]) == sorted(
        [f"{workspace.name}:/sandbox/workspace:rw", f"{deps.name}:/sandbox/deps:ro"]
    )
    assert workspace.attrs["Options"]["type"] == "tmpfs"
    assert f"size={session.workspace_mb}m" in workspace.attrs["Options"]["o"]
    assert session.info.backend == "docker" and session.info.network is False


def test_files_travel_through_the_api(session):
    session.write_file("deep/er/file.txt", "héllo")
    assert session.read_file("deep/er/file.txt") == "héllo".encode()
    assert session.read_file("missing.txt") is None
    assert session.read_file("deep") is None
    py(session, "import os\nos.symlink('/etc/passwd', 'link')")
    assert session.read_file("link") is None  # a planted symlink is not followed
    with pytest.raises(ValueError, match="escapes the workspace"):
        session.write_file("../outside", "x")
    result = session.run(["python3", "-c", "print(open('deep/er/file.txt').read())"], timeout=10)
    assert result.stdout == "héllo\n"


def test_files_written_over_what_the_tests_planted_replace_it_and_follow_no_link(session):
    # the command server writes and reads the files as the engine's archives would: a link or a
    # file where a folder of the path belongs, a folder or a link at the file's own name, are
    # replaced; a FIFO is not read; a file only root could read is read the engine's way
    py(
        session,
        "import os\n"
        "os.makedirs('trap/real', exist_ok=True)\n"
        "os.symlink('/tmp', 'trap/dir')\n"
        "open('trap/file', 'w').close()\n"
        "os.makedirs('trap/folder/inner', exist_ok=True)\n"
        "os.symlink('/etc/hostname', 'trap/link')\n"
        "os.mkfifo('trap/fifo')\n",
    )
    session.write_file("trap/dir/x.txt", "through the link?")
    session.write_file("trap/file/y.txt", "under a file?")
    session.write_file("trap/folder", "over a folder")
    session.write_file("trap/link", "over a link")
    seen = py(
        session,
        "import os\n"
        "print(os.path.islink('trap/dir'), os.path.isfile('trap/dir/x.txt'), os.path.exists('/tmp/x.txt'))\n"
        "print(os.path.isdir('trap/file'), open('trap/file/y.txt').read())\n"
        "print(os.path.isfile('trap/folder'), os.path.islink('trap/link'), open('trap/link').read())\n"
        "print(oct(os.stat('trap/link').st_mode & 0o777), oct(os.stat('trap/dir').st_mode & 0o777))\n",
    ).stdout
    assert seen.splitlines() == [
        "False True False",
        "True under a file?",
        "True False over a link",
        "0o644 0o755",
    ]
    assert session.read_file("trap/fifo") is None
    assert session.read_file("trap/dir/x.txt") == b"through the link?"
    py(session, "import os\nos.chmod('trap/folder', 0)")
    assert session.read_file("trap/folder") == b"over a folder"


def test_commands_that_cannot_start_are_127(session):
    assert session.run(["no-such-program"], timeout=10).returncode == 127
    assert session.run([], timeout=10).returncode == 127


def test_a_channel_talks_and_dies_with_its_children(session):
    marker = f"chan-{uuid.uuid4().hex[:8]}"
    channel = session.open_channel(
        [
            "python3",
            "-u",
            "-c",
            f"""
import subprocess, sys
subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(1000)', '{marker}'])
print('ready', flush=True)
for line in sys.stdin:
    print('echo:' + line.strip(), flush=True)
""",
        ]
    )
    assert channel.receive(20) == "ready"
    channel.send("ping")
    assert channel.receive(10) == "echo:ping"
    assert channel.receive(0.3) is None
    assert marked_processes(session, marker) != []
    channel.close()
    assert marked_processes(session, marker) == []


# Takes every process slot of the container but one, from outside the command server, and holds
# them until its stdin closes.
FILL_SLOTS = """
import subprocess, sys
held = []
while True:
    try:
        held.append(subprocess.Popen(['sleep', '600']))
    except OSError:
        break
freed = held.pop()
freed.kill()
freed.wait()
print('full', flush=True)
sys.stdin.read()
for process in held:
    process.kill()
    process.wait()
"""


def test_a_command_that_leaves_the_server_no_slot_for_its_readers_is_still_answered(session):
    # the command takes the container's last process slot: the server cannot start the threads
    # that read its output until the command's time is up and the kill frees the slot (a fork
    # bomb does this at random; here it is certain)
    assert py(session, "print('server up')").stdout == "server up\n"
    filler = session.open_channel(["python3", "-u", "-c", FILL_SLOTS])
    try:
        assert filler.receive(60) == "full"
        result = py(session, "print('ran')", timeout=3)
    finally:
        filler.close()
    assert (result.returncode, result.stdout, result.timed_out) == (0, "ran\n", False), result
    assert py(session, "print('alive')").stdout == "alive\n"


# -- lifecycle ------------------------------------------------------------------------------
def test_nothing_of_ours_is_left_after_close(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    before = ours()
    session = DockerSandbox(IMAGE).start(tmp_path)
    assert session.container.name in ours()["containers"]
    session.run(["python3", "-c", "print(1)"], timeout=10)
    session.close()
    assert ours() == before


def test_a_container_killed_from_outside_is_a_lost_session_not_an_engine_error(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    before = ours()
    session = DockerSandbox(IMAGE).start(tmp_path)
    try:
        assert session.run(["python3", "-c", "print(1)"], timeout=10).stdout.strip() == "1"
        subprocess.run(["docker", "kill", session.container.name], capture_output=True, check=True)
        with pytest.raises(SessionLost, match=r"container selfheal-\w+ is exited: it stopped under the heal"):
            session.run(["python3", "-c", "print(2)"], timeout=10)
        with pytest.raises(SessionLost):  # the screening worker's channel, too
            session.open_channel(["python3", "-c", "print(3)"])
    finally:
        session.close()
    assert ours() == before


def test_a_dead_owner_pid_removes_a_container_only_from_the_owner_pid_namespace():
    """A selfheal in a container with the host's network has the host's name but other pids: the
    pid of this test's owner means nothing there, and its live containers must survive it."""
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead = f"{socket.gethostname()}:{ended.stdout.strip()}"
    made = {}
    try:
        for name, pidns in (("elsewhere", "pid:[1]"), ("here", pid_namespace())):
            labels = {LABEL: "1", OWNER_LABEL: dead, OWNER_PIDNS_LABEL: pidns}
            made[name] = CLIENT.containers.create(IMAGE, ["true"], labels=labels).name
        remove_leftovers(CLIENT)
        left = ours(any_owner=True)["containers"]
        assert made["elsewhere"] in left
        assert made["here"] not in left
    finally:
        for name in made.values():
            with contextlib.suppress(Exception):
                CLIENT.containers.get(name).remove(force=True)


def test_a_killed_run_leaves_a_container_the_next_start_removes(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    script = (
        "import sys, time\nfrom pathlib import Path\n"
        "from selfheal.sandbox.docker import DockerSandbox\n"
        f"session = DockerSandbox({IMAGE!r}).start(Path({str(tmp_path)!r}))\n"
        "print(session.container.name, flush=True)\ntime.sleep(600)\n"
    )
    owner = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    name = owner.stdout.readline().strip()
    assert name.startswith("selfheal-")
    owner.kill()  # SIGKILL: no finally, no close()
    owner.wait()
    assert name in ours(any_owner=True)["containers"]
    assert f"{name}-ws" in ours(any_owner=True)["volumes"]
    session = DockerSandbox(IMAGE).start(tmp_path)
    try:
        assert name not in ours(any_owner=True)["containers"]
        assert f"{name}-ws" not in ours(any_owner=True)["volumes"]
        assert f"{name}-deps" not in ours(any_owner=True)["volumes"]
    finally:
        session.close()


# -- dependency setup -----------------------------------------------------------------------
def _ca_bundle() -> str | None:
    path = os.environ.get("SSL_CERT_FILE") or os.environ.get("PIP_CERT")
    return path if path and Path(path).is_file() else None


@pytest.mark.slow
def test_setup_installs_requirements_with_network_and_tests_run_without(tmp_path):
    (tmp_path / "requirements.txt").write_text("six==1.16.0\n")
    sandbox = DockerSandbox(IMAGE, ca_bundle=_ca_bundle())
    try:
        session = sandbox.start(tmp_path)
    except SetupFailed as exc:
        pytest.fail(f"setup could not reach the package index: {exc}")
    try:
        assert session.python == "/sandbox/deps/venv/bin/python"
        imported = session.run(
            [session.python, "-c", "import six, pytest; print(six.__version__)"], timeout=30
        )
        assert imported.stdout == "1.16.0\n"
        for host, port in (("pypi.org", "443"), ("1.1.1.1", "53"), ("172.17.0.1", "2375")):
            after = session.run([session.python, "-c", CONNECT, host, port], timeout=20)
            assert after.stdout.startswith("blocked:"), (host, after.stdout)
    finally:
        session.close()


# A project whose metadata is dynamic: setup.py declares its dependencies, and runs when the
# project is built. It tries the network from there and records what it reached in the module
# it builds, which the test then imports inside the sandbox.
SETUP_PY = """
import socket
from setuptools import setup

reached = []
for host, port in (("pypi.org", 443), ("1.1.1.1", 53), ("172.17.0.1", 2375)):
    try:
        socket.create_connection((host, port), timeout=3).close()
        reached.append(host)
    except OSError:
        pass
with open("netcheck.py", "w") as handle:
    handle.write("REACHED = %r\\n" % reached)
setup(name="netcheck", version="1.0", py_modules=["netcheck"], install_requires=["six==1.16.0"],
      extras_require={"test": ["wcwidth==0.2.13"], "docs": ["toolz==0.12.1"]})
"""


@pytest.mark.slow
def test_the_repositorys_own_build_code_runs_without_a_network_and_its_dependencies_are_installed(
    tmp_path,
):
    (tmp_path / "setup.py").write_text(SETUP_PY)
    (tmp_path / "requirements.txt").write_text("-e .[test]\nsix==1.16.0\n")
    sandbox = DockerSandbox(IMAGE, ca_bundle=_ca_bundle())
    try:
        session = sandbox.start(tmp_path)
    except SetupFailed as exc:
        pytest.fail(f"setup failed: {exc}")
    try:
        # run from /tmp: the workspace's own netcheck.py (none: setup.py writes it in its copy)
        done = session.run(
            [session.python, "-c", "import netcheck, six, wcwidth; print(netcheck.REACHED, six.__version__)"],
            timeout=30, cwd=".selfheal-sandbox/tmp",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stdout == "[] 1.16.0\n"  # built (the module exists) with no network at all
        # the extras asked for (test, from `-e .[test]`) are installed, the others are not
        toolz = session.run([session.python, "-c", "import toolz"], timeout=30, cwd=".selfheal-sandbox/tmp")
        assert toolz.returncode != 0
        assert not (tmp_path / "netcheck.py").exists()
    finally:
        session.close()


@pytest.fixture
def index_server() -> Iterator[tuple[str, str, list[str]]]:
    """An HTTP server on every host address that answers 404 to everything: the package index a
    repository names, as seen from a set-up container (through the bridge's gateway). Yields
    its host, its base URL and the paths asked for."""
    import http.server

    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_error(404)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("0.0.0.0", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    config = CLIENT.networks.get("bridge").attrs["IPAM"]["Config"][0]
    gateway = config.get("Gateway") or config["Subnet"].rsplit(".", 2)[0] + ".0.1"
    try:
        yield gateway, f"http://{gateway}:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()


def test_an_index_the_repository_names_is_refused_and_reached_only_when_the_operator_allows_it(
    tmp_path, index_server
):
    host, url, asked = index_server
    line = f"--index-url {url}/simple --trusted-host {host}"  # pip takes plain http from a trusted host
    (tmp_path / "requirements.txt").write_text(f"six==1.16.0\n{line}\n")
    before = ours()
    with pytest.raises(SetupRefused) as refused:
        DockerSandbox(IMAGE).start(tmp_path)
    assert str(refused.value).startswith(
        f"dependency setup refused before pip was asked for it: requirements.txt line 2: {line!r}: another "
        f"package index (--index-url); requirements.txt line 2: {line!r}: a host pip would trust without "
        "checking its certificate (--trusted-host). "
    )
    assert "--allow-direct-requirements" in str(refused.value)
    assert (asked, ours()) == ([], before)  # refused before pip ran: nothing asked, nothing left

    # allowed: the line reaches pip as it is, and pip asks the repository's index (which has
    # nothing: the set-up fails, as pip says)
    with pytest.raises(SetupFailed) as failed:
        DockerSandbox(IMAGE, allow_direct_requirements=True).start(tmp_path)
    assert not isinstance(failed.value, SetupRefused)
    assert f"Looking in indexes: {url}/simple" in str(failed.value)
    assert "No matching distribution found for six==1.16.0" in str(failed.value)
    assert "/simple/six/" in asked
    assert ours() == before


def test_the_callers_switch_reaches_the_docker_sandbox(tmp_path):
    from selfheal.agent.config import build_config, choose_sandbox_for

    (tmp_path / "pyproject.toml").write_text("[tool.selfheal]\nallow-direct-requirements = true\n")
    flags = {"sandbox": "docker", "sandbox_image": IMAGE}
    for given, chosen in ((None, False), (True, True)):
        sandbox, _ = choose_sandbox_for(build_config(tmp_path, {**flags, "allow_direct_requirements": given}))
        assert isinstance(sandbox, DockerSandbox)
        assert sandbox.allow_direct_requirements is chosen


# A repository that tries to run its own code as the set-up's pip: a `pip` package at its root
# (`python -m pip` imports the package of that name from its working folder first, where that
# is on sys.path), and pip configuration in every place a pip run from the workspace, or with
# HOME there, would read. Each marks the venv in the dependencies' volume, which only the set-up
# writes; the package then lends the real pip's modules, so that the set-up still works.
OWN_PIP = """
import os, sys
try:
    with open("/sandbox/deps/venv/ran-the-repositorys-pip", "w") as handle:
        handle.write(os.getcwd() + "\\n")
except OSError:
    pass  # a step meant for the repository's code: no network, the dependencies read-only
_here = os.path.dirname(os.path.abspath(__file__))
for _entry in sys.path:
    _real = os.path.join(os.path.abspath(_entry or "."), "pip")
    if _real != _here and os.path.isfile(os.path.join(_real, "__init__.py")):
        __path__.append(_real)
        with open(os.path.join(_real, "__init__.py")) as _handle:
            exec(_handle.read())
        break
"""
PIP_CONFIGS = ("pip.conf", "pip.ini", ".pip/pip.conf", ".config/pip/pip.conf", ".venv/pip.conf")


@pytest.mark.slow
def test_the_set_up_runs_pip_with_nothing_of_the_repository_on_its_path_or_in_its_configuration(tmp_path):
    (tmp_path / "setup.py").write_text(
        'from setuptools import setup\nsetup(name="shadowed", version="1.0", py_modules=["shadowed"], '
        'install_requires=["six==1.16.0"])\n'
    )
    (tmp_path / "shadowed.py").write_text("VALUE = 1\n")
    (tmp_path / "pip").mkdir()
    (tmp_path / "pip" / "__init__.py").write_text(OWN_PIP)
    (tmp_path / "pip" / "__main__.py").write_text(
        "import sys\nfrom pip._internal.cli.main import main\nsys.exit(main())\n"
    )
    for index, name in enumerate(PIP_CONFIGS):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"[global]\nlog = /sandbox/deps/venv/config-{index}.log\n")
    sandbox = DockerSandbox(IMAGE, ca_bundle=_ca_bundle())
    try:
        session = sandbox.start(tmp_path)
    except SetupFailed as exc:
        pytest.fail(f"setup failed: {exc}")
    try:
        # the set-up ran (its project installed, its dependency from the index) ...
        done = session.run(
            [session.python, "-c", "import shadowed, six; print(shadowed.VALUE, six.__version__)"],
            timeout=30, cwd=".selfheal-sandbox/tmp",
        )  # fmt: skip
        assert (done.returncode, done.stdout) == (0, "1 1.16.0\n"), done.stderr
        # ... and nothing of the repository was pip, or pip's configuration, in any step of it
        listed = session.run(["ls", "/sandbox/deps/venv"], timeout=30)
        assert sorted(listed.stdout.split()) == ["bin", "include", "lib", "lib64", "pyvenv.cfg"]
    finally:
        session.close()


def test_a_failing_setup_is_reported_with_its_output(tmp_path):
    sandbox = DockerSandbox(IMAGE, setup_command="echo installing; exit 3")
    before = ours()
    with pytest.raises(SetupFailed, match=r"dependency setup failed[\s\S]*installing"):
        sandbox.start(tmp_path)
    assert ours() == before


def test_a_command_that_kills_the_command_server_fails_once_and_the_next_runs(session):
    killed = py(session, "import os, signal, time\nos.kill(os.getppid(), signal.SIGKILL)\ntime.sleep(30)")
    assert killed.returncode == -1
    assert "command server stopped" in killed.stderr
    assert py(session, "print('next')").stdout == "next\n"


def test_the_workspace_cannot_outgrow_its_disk_limit(tmp_path):
    """The workspace is a tmpfs of its size plus the limit: the kernel refuses the rest, and the
    session stops with LimitExceeded naming the limit."""
    (tmp_path / "a.py").write_text("x = 1\n")
    fill = """
import os
os.makedirs('fill', exist_ok=True)
try:
    for i in range(40):
        with open('fill/%d.bin' % i, 'wb') as handle:
            handle.write(os.urandom(1024 * 1024))
    print('wrote all')
except OSError as exc:
    print('refused', exc.errno)
"""
    with DockerSandbox(IMAGE, Limits(disk_mb=20)).start(tmp_path) as session:
        with pytest.raises(LimitExceeded, match="disk limit of 20 MiB"):
            session.run(["python3", "-c", fill], timeout=60)
        with pytest.raises(LimitExceeded):
            session.run(["python3", "-c", "print(1)"], timeout=10)
        with pytest.raises(LimitExceeded):
            session.write_file("more.txt", "x")


@pytest.fixture
def default_image() -> Iterator[str]:
    """The base image under a name of this test's own, standing for `auto`'s default image (a
    public python image this machine cannot pull)."""
    name = f"selfheal-test-default:{uuid.uuid4().hex[:8]}"
    repository, tag = name.split(":")
    CLIENT.images.get(IMAGE).tag(repository, tag)
    yield name
    CLIENT.images.remove(name)


def test_auto_is_decided_before_the_repository_is_read(tmp_path: Path, default_image: str) -> None:
    # A repository could otherwise push its heal down to the local sandbox by naming a Python
    # whose image cannot be had: its version is read only after docker was chosen, and an image
    # it makes unavailable is an error for the heal.
    plain, asks = tmp_path / "plain", tmp_path / "asks"
    for repo in (plain, asks):
        repo.mkdir()
        (repo / "mod.py").write_text("VALUE = 1\n")
    (asks / ".python-version").write_text("3.99\n")
    limits = Limits(memory_mb=512, max_processes=64, cpus=1.0)

    sandbox, fallback = choose_sandbox("auto", plain, limits=limits, default_image=default_image)
    assert isinstance(sandbox, DockerSandbox) and fallback is None
    assert sandbox.image_for(plain) == default_image
    with pytest.raises(SandboxUnavailable) as refused:
        choose_sandbox("auto", asks, limits=limits, default_image=default_image)
    said = str(refused.value)
    assert said.startswith("the repository asks for Python 3.99 (its .python-version or requires-python)")
    assert "image python:3.99-slim is not here and could not be pulled" in said
    assert "The sandbox stays docker, as chosen" in said

    # the operator's image: what the repository asks for does not enter the choice
    sandbox, fallback = choose_sandbox("auto", asks, limits=limits, image=IMAGE)
    assert isinstance(sandbox, DockerSandbox) and fallback is None and sandbox.image_for(asks) == IMAGE
    # and where the default image cannot be had, `auto` is local for every repository alike
    missing = f"selfheal-test-absent:{uuid.uuid4().hex[:8]}"
    fallbacks = {
        choose_sandbox("auto", repo, limits=limits, default_image=missing)[1] for repo in (plain, asks)
    }
    assert len(fallbacks) == 1
    fallback = next(iter(fallbacks))
    assert fallback is not None
    assert fallback.reason == f"sandbox: local — the Docker image {missing} could not be pulled"
    assert fallback.detail.startswith("local sandbox: a Docker engine answers, but image")
