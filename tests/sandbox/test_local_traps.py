"""What the tests can plant in the workspace, and how much they can write.

Sandboxed code owns the workspace between selfheal's writes: it can put a symbolic link, a FIFO,
a folder or a hard link where selfheal will write or read next. None of them may redirect a host
write or hang a host read; a write that meets one is refused with a WorkspaceTrap that names it,
unless forced (selfheal putting its own files back). And a session whose commands write more than
its disk limit stops: the command is killed and every later call raises LimitExceeded.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from selfheal.sandbox import Limits, LocalSandbox, LocalSession
from selfheal.sandbox.exceptions import LimitExceeded, WorkspaceTrap
from tests.sandbox.conftest import interpreter_folders


@pytest.fixture
def workspace(open_folder: Path) -> Path:
    ws = open_folder / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def outside(open_folder: Path) -> Path:
    folder = open_folder / "outside"
    folder.mkdir()
    (folder / "precious.txt").write_text("precious")
    return folder


@pytest.fixture(params=[True, False], ids=["namespaces", "no-namespaces"])
def session(request: pytest.FixtureRequest, workspace: Path, open_python: str) -> Iterator[LocalSession]:
    sandbox = LocalSandbox(Limits(disk_mb=20), namespaces=request.param)
    with sandbox.start(workspace, expose=interpreter_folders(open_python)) as opened:
        yield opened


def test_a_link_where_a_file_is_written_is_refused_then_replaced_when_forced(
    session: LocalSession, workspace: Path, outside: Path
) -> None:
    (workspace / "tests").mkdir()
    (workspace / "tests" / "test_new.py").symlink_to(outside / "precious.txt")
    with pytest.raises(WorkspaceTrap, match=r"tests/test_new.py is a symbolic link \(to .*precious.txt\)"):
        session.write_file("tests/test_new.py", "def test_x(): pass\n")
    assert (outside / "precious.txt").read_text() == "precious"
    assert session.read_file("tests/test_new.py") is None  # never followed on reading either

    session.write_file("tests/test_new.py", "def test_x(): pass\n", force=True)
    assert not (workspace / "tests" / "test_new.py").is_symlink()
    assert (workspace / "tests" / "test_new.py").read_text() == "def test_x(): pass\n"
    assert (outside / "precious.txt").read_text() == "precious"


def test_a_link_in_place_of_a_folder_is_refused_then_replaced_by_a_folder(
    session: LocalSession, workspace: Path, outside: Path
) -> None:
    (workspace / "pkg").symlink_to(outside)
    with pytest.raises(WorkspaceTrap, match=r"pkg/mod.py: pkg is a symbolic link .* where a folder was"):
        session.write_file("pkg/mod.py", "VALUE = 2\n")
    session.write_file("pkg/mod.py", "VALUE = 2\n", force=True)
    assert (workspace / "pkg").is_dir() and not (workspace / "pkg").is_symlink()
    assert (workspace / "pkg" / "mod.py").read_text() == "VALUE = 2\n"
    assert sorted(p.name for p in outside.iterdir()) == ["precious.txt"]


def test_a_folder_or_a_fifo_where_a_file_goes(session: LocalSession, workspace: Path) -> None:
    (workspace / "conf.json").mkdir()
    (workspace / "conf.json" / "inner").write_text("x")
    with pytest.raises(WorkspaceTrap, match=r"conf\.json is a folder planted"):
        session.write_file("conf.json", "{}")
    session.write_file("conf.json", "{}", force=True)
    assert (workspace / "conf.json").read_text() == "{}"

    os.mkfifo(workspace / "results.xml")
    started = time.monotonic()
    assert session.read_file("results.xml") is None  # no writer: a blocking open would hang
    assert time.monotonic() - started < 1.0
    with pytest.raises(WorkspaceTrap, match=r"results\.xml is a FIFO"):
        session.write_file("results.xml", "<x/>")


def test_a_hard_link_keeps_its_content_when_selfheal_writes_the_name(
    session: LocalSession, workspace: Path, outside: Path
) -> None:
    os.link(outside / "precious.txt", workspace / "linked.txt")
    session.write_file("linked.txt", "replaced")
    assert (workspace / "linked.txt").read_text() == "replaced"
    assert (outside / "precious.txt").read_text() == "precious"


def test_a_file_too_large_to_read_back_is_none(session: LocalSession, workspace: Path) -> None:
    with open(workspace / "huge.xml", "wb") as handle:
        handle.truncate(300 * 1024 * 1024)  # sparse: costs no disk
    assert session.read_file("huge.xml") is None


def test_writing_past_the_disk_limit_stops_the_session(
    session: LocalSession, workspace: Path, open_python: str
) -> None:
    # A MiB every 20 ms: the watcher, which measures several times a second, must stop it on
    # the way (a burst faster than that overshoots by what it writes between two looks).
    code = (
        "import os, time\n"
        "os.makedirs('fill', exist_ok=True)\n"
        "for i in range(60):\n"
        "    with open(f'fill/{i}.bin', 'wb') as f:\n"
        "        f.write(os.urandom(1024 * 1024))\n"
        "    time.sleep(0.02)\n"
        "print('wrote all')\n"
    )
    with pytest.raises(LimitExceeded, match="disk limit of 20 MiB"):
        session.run([open_python, "-c", code], timeout=60)
    written = sum(f.stat().st_blocks * 512 for f in (workspace / "fill").iterdir())
    assert written < 60 * 1024 * 1024  # stopped before the end
    with pytest.raises(LimitExceeded):
        session.run([open_python, "-c", "print(1)"], timeout=10)
    with pytest.raises(LimitExceeded):
        session.write_file("more.txt", "x")


def test_one_file_cannot_outgrow_the_limit(session: LocalSession, workspace: Path, open_python: str) -> None:
    code = (
        "try:\n"
        "    with open('big.bin', 'wb') as f:\n"
        "        f.write(b'x' * (40 * 1024 * 1024))\n"
        "except OSError as exc:\n"
        "    print('refused', exc.errno)\n"
    )
    try:
        done = session.run([open_python, "-c", code], timeout=60)
    except LimitExceeded:
        pass  # the watcher may see the 20 MiB before the kernel refuses the rest
    else:
        assert "refused 27" in done.stdout, done  # EFBIG from RLIMIT_FSIZE
    assert (workspace / "big.bin").stat().st_size <= 20 * 1024 * 1024


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid of its own is for sessions started as root")
def test_each_session_has_a_uid_of_its_own_that_cannot_touch_another(
    open_folder: Path, open_python: str
) -> None:
    first, second = open_folder / "a", open_folder / "b"
    first.mkdir()
    second.mkdir()
    (second / "secret.txt").write_text("b's")
    expose = interpreter_folders(open_python)
    with (
        LocalSandbox(namespaces=False).start(first, expose=expose) as one,
        LocalSandbox(namespaces=False).start(second, expose=expose) as two,
    ):
        assert one.facts.uid != two.facts.uid
        assert {one.facts.uid, two.facts.uid}.isdisjoint({0, os.getuid()})
        secret = str(second / "secret.txt")
        code = f"try:\n    print(open({secret!r}).read())\n"
        code += "except OSError as e:\n    print('denied', e.errno)\n"
        done = one.run([open_python, "-c", code], timeout=30)
    assert done.stdout.strip() == "denied 13", done


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid of its own is for sessions started as root")
def test_without_namespaces_what_the_uid_left_in_shared_scratch_is_removed_and_its_daemons_killed(
    workspace: Path, open_python: str
) -> None:
    # /dev/shm is writable (multiprocessing's semaphores live there); /tmp and /var/tmp are where
    # Landlock allows no write, and where the files are removed when the kernel has no Landlock
    code = (
        "import os, subprocess, sys\n"
        "open('/dev/shm/selfheal-left-behind.txt', 'w').write('x')\n"
        "for plant in (lambda: open('/tmp/selfheal-left-behind.txt', 'w').write('x'),\n"
        "              lambda: os.makedirs('/var/tmp/selfheal-left-folder', exist_ok=True)):\n"
        "    try:\n"
        "        plant()\n"
        "    except PermissionError:\n"
        "        pass\n"
        "subprocess.Popen([sys.executable, '-c', 'import os, time; os.setsid(); time.sleep(600)'],\n"
        "                 start_new_session=True)\n"
        "print('planted')\n"
    )
    session = LocalSandbox(namespaces=False).start(workspace, expose=interpreter_folders(open_python))
    uid = session.facts.uid
    try:
        assert session.run([open_python, "-c", code], timeout=30).stdout == "planted\n"
    finally:
        session.close()
    assert not Path("/dev/shm/selfheal-left-behind.txt").exists()
    assert not Path("/tmp/selfheal-left-behind.txt").exists()
    assert not Path("/var/tmp/selfheal-left-folder").exists()
    assert session.user is not None and session.user.processes() == []
    assert uid == session.user.uid
