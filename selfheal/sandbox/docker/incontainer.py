"""Small programs the docker backend runs inside the container, passed as `python3 -c` source.

They travel in the exec's argv, not as files, so nothing the sandboxed code can write is ever
executed in their place.

RUNNER  `RUNNER TIMEOUT MARKER ARGV...`: runs ARGV in a new session with `SELFHEAL_RUN=MARKER`
        in its environment; on timeout (0 = none) or when ARGV ends, kills every process that
        carries the marker (children that left the session included) and the session itself.
        Exit status: ARGV's, 127/126 when it cannot be started, 137 after a timeout.
KILLER  `KILLER MARKER`: kills every process carrying the marker.
"""

KILL_MARKED = r"""
import os, signal
def kill_marked(marker, spare=()):
    needle = ("SELFHEAL_RUN=" + marker).encode()
    for _ in range(50):
        found = False
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) in spare:
                continue
            try:
                with open("/proc/%s/environ" % entry, "rb") as handle:
                    if needle not in handle.read().split(b"\0"):
                        continue
                os.kill(int(entry), signal.SIGKILL)
                found = True
            except OSError:
                pass
        if not found:
            return
"""

# Wait for a command started in a new session; then kill its session and everything carrying
# its marker (children that left the session too). None means it ran past the timeout.
WAIT_AND_KILL = (
    KILL_MARKED
    + r"""
import subprocess, time
def wait_and_kill(child, timeout, marker):
    # waited for without being reaped: the child's id, and its group's, cannot be reused by
    # another process before the group is killed
    deadline = time.monotonic() + timeout if timeout > 0 else None
    ended = False
    while not ended and (deadline is None or time.monotonic() < deadline):
        ended = os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        if not ended:
            time.sleep(0.005)
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except OSError:
        pass
    kill_marked(marker, spare=(os.getpid(),))
    code = child.wait()
    return code if ended else None
"""
)

RUNNER = (
    WAIT_AND_KILL
    + r"""
import subprocess, sys
timeout, marker, argv = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
os.environ["SELFHEAL_RUN"] = marker
try:
    child = subprocess.Popen(argv, start_new_session=True)
except FileNotFoundError:
    sys.stderr.write("selfheal: command not found: %s\n" % argv[0])
    sys.exit(127)
except PermissionError:
    sys.stderr.write("selfheal: not executable: %s\n" % argv[0])
    sys.exit(126)
code = wait_and_kill(child, timeout, marker)
if code is None:
    sys.stderr.write("selfheal: killed after %gs\n" % timeout)
    sys.exit(137)
sys.exit(code if code >= 0 else 128 - code)
"""
)

KILLER = (
    KILL_MARKED
    + r"""
import sys
kill_marked(sys.argv[1], spare=(os.getpid(),))
"""
)

# SERVER: one long-lived process that runs commands on request, so a command costs a fork and
# an exec instead of a round of Docker API calls and a runc exec. One JSON line per request:
#   {"argv", "env", "cwd", "timeout", "marker", "limit"}
# and per reply: {"code", "timed_out", "out": [head, tail, dropped], "err": [...], "duration",
# "free"} (head and tail base64; free: bytes left on the file system of the request's "watch").
# Each command runs in a new session with its own marker, and is killed with everything it
# started on timeout and when it ends, as under RUNNER.
# It also writes and reads the workspace's files, which `put_archive` / `get_archive` would each
# cost a round of archive work in the engine (some 50 ms of its CPU):
#   {"op": "write", "root", "parents": [...], "path", "data"} -> {"ok": true}
#   {"op": "read", "root", "path"} -> {"data"} | {"missing": true} | {"notfile": true}
# and {"error"} when it cannot, for the engine's archive to do instead. A write does what the
# engine's extraction of the same archive does: whatever stands at a parent's name that is not a
# folder, and whatever stands at the file's name, is replaced, so no link on the way is followed;
# a read opens a regular file only, never through a link at its name.
SERVER = (
    WAIT_AND_KILL
    + r"""
import base64, json, shutil, stat, subprocess, sys, threading, time

def as_folder(path):
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        os.mkdir(path, 0o755)
        return
    if not stat.S_ISDIR(mode):
        os.unlink(path)
        os.mkdir(path, 0o755)
    os.chmod(path, 0o755)

def write_file(request):
    root = request["root"]
    for parent in request["parents"]:
        as_folder(os.path.join(root, parent))
    path = os.path.join(root, request["path"])
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None:
        if stat.S_ISDIR(mode):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(handle, "wb") as stream:
        stream.write(base64.b64decode(request["data"]))
    os.chmod(path, 0o644)
    return {"ok": True}

def read_file(request):
    path = os.path.join(request["root"], request["path"])
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return {"missing": True}
    if not stat.S_ISREG(mode):
        return {"notfile": True}
    handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(handle, "rb") as stream:
        if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            return {"notfile": True}
        return {"data": base64.b64encode(stream.read()).decode()}

def file_op(request):
    try:
        return write_file(request) if request["op"] == "write" else read_file(request)
    except Exception as exc:
        return {"error": "%s: %s" % (type(exc).__name__, exc)}

def drain(stream, limit, box):
    head_limit = limit // 4
    head, tail, dropped = bytearray(), bytearray(), 0
    while True:
        chunk = stream.read1(65536)
        if not chunk:
            break
        room = head_limit - len(head)
        if room > 0:
            head += chunk[:room]
            chunk = chunk[room:]
        tail += chunk
        excess = len(tail) - (limit - head_limit)
        if excess > 0:
            del tail[:excess]
            dropped += excess
    box[:] = [base64.b64encode(bytes(head)).decode(), base64.b64encode(bytes(tail)).decode(),
              dropped]

# start each thread; those that could not be started before the deadline come back
def start_threads(threads, deadline):
    pending = list(threads)
    while pending:
        try:
            pending[0].start()
        except RuntimeError:  # "can't start new thread": no process slot left
            if deadline is not None and time.monotonic() >= deadline:
                return pending
            time.sleep(0.01)
        else:
            pending.pop(0)
    return []

def serve(request):
    started = time.monotonic()
    env = dict(request["env"], SELFHEAL_RUN=request["marker"])
    try:
        child = subprocess.Popen(request["argv"], cwd=request["cwd"], env=env,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, start_new_session=True)
    except FileNotFoundError:
        message = base64.b64encode(b"selfheal: command not found: " + request["argv"][0].encode())
        return {"code": 127, "timed_out": False, "out": ["", "", 0],
                "err": [message.decode(), "", 0], "duration": time.monotonic() - started}
    except PermissionError:
        message = base64.b64encode(b"selfheal: not executable: " + request["argv"][0].encode())
        return {"code": 126, "timed_out": False, "out": ["", "", 0],
                "err": [message.decode(), "", 0], "duration": time.monotonic() - started}
    out, err = [], []
    readers = [threading.Thread(target=drain, args=(child.stdout, request["limit"], out)),
               threading.Thread(target=drain, args=(child.stderr, request["limit"], err))]
    timeout = request["timeout"]
    deadline = started + timeout if timeout > 0 else None
    # a command that takes every process slot (a fork bomb) leaves none for a reader thread:
    # the server waits for one until the command's time is up, and gets it once the kill freed them
    late = start_threads(readers, deadline)
    left = max(0.001, deadline - time.monotonic()) if deadline is not None else 0
    code = wait_and_kill(child, left, request["marker"])
    start_threads(late, time.monotonic() + 5)
    for reader in readers:
        if reader.ident is not None:  # started
            reader.join(5)
    free = None
    if request.get("watch"):
        try:
            stats = os.statvfs(request["watch"])
            free = stats.f_bavail * stats.f_frsize
        except OSError:
            pass
    return {"code": 137 if code is None else (code if code >= 0 else 128 - code),
            "timed_out": code is None, "out": out or ["", "", 0], "err": err or ["", "", 0],
            "duration": time.monotonic() - started, "free": free}

print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    if line.strip():
        request = json.loads(line)
        print(json.dumps(file_op(request) if "op" in request else serve(request)), flush=True)
"""
)

# The steps of the dependency setup that run the repository's own code (its build backend), in a
# container with no network. Both copy the project first: building writes into its folder, and
# the workspace is mounted read-only there.
#
# METADATA `METADATA SOURCE EXTRA...`: the requirements the project declares (its build backend's
#          prepare_metadata_for_build_wheel), for the extras asked and the image's Python, as
#          `SELFHEAL-REQUIRES <json list>` on the last line. pip's own vendored copies of
#          pyproject_hooks and packaging do the work, so nothing needs installing.
# BUILD    `BUILD SOURCE OUTDIR`: the project's wheel, built with the backend already installed,
#          from no index.
COPY_PROJECT = r"""
import os, shutil, sys, tempfile
def copy_project(source):
    target = os.path.join(tempfile.mkdtemp(), "project")
    shutil.copytree(source, target, symlinks=True)
    return target
"""

METADATA = (
    COPY_PROJECT
    + r"""
import json
try:
    from pip._vendor.pyproject_hooks import BuildBackendHookCaller as Caller
except ImportError:  # pip < 23
    from pip._vendor.pep517.wrappers import Pep517HookCaller as Caller
try:
    import tomllib
except ImportError:  # Python < 3.11
    from pip._vendor import tomli as tomllib
from pip._vendor.packaging.requirements import Requirement

source, extras = copy_project(sys.argv[1]), sys.argv[2:]
system = {}
if os.path.isfile(os.path.join(source, "pyproject.toml")):
    with open(os.path.join(source, "pyproject.toml"), "rb") as handle:
        system = tomllib.load(handle).get("build-system", {})
backend = system.get("build-backend", "setuptools.build_meta:__legacy__")
caller = Caller(source, backend, backend_path=system.get("backend-path"))
folder = tempfile.mkdtemp()
name = caller.prepare_metadata_for_build_wheel(folder)
with open(os.path.join(folder, name, "METADATA"), encoding="utf-8") as handle:
    lines = handle.read().splitlines()
found = []
for line in lines:
    if not line.strip():
        break  # the headers end at the first empty line
    if line.startswith("Requires-Dist:"):
        requirement = Requirement(line.split(":", 1)[1].strip())
        marker = requirement.marker
        if marker is None or any(marker.evaluate({"extra": e}) for e in ["", *extras]):
            requirement.marker = None
            found.append(str(requirement))
print("SELFHEAL-REQUIRES " + json.dumps(found), flush=True)
"""
)

BUILD = (
    COPY_PROJECT
    + r"""
import subprocess
source, outdir = copy_project(sys.argv[1]), sys.argv[2]
sys.exit(subprocess.call([sys.executable, "-m", "pip", "wheel", "--no-input", "--no-deps",
                          "--no-build-isolation", "--no-index", "--wheel-dir", outdir, source]))
"""
)
