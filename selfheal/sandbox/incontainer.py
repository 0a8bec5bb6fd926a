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

RUNNER = (
    KILL_MARKED
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
try:
    code = child.wait(timeout if timeout > 0 else None)
except subprocess.TimeoutExpired:
    code = None
try:
    os.killpg(child.pid, signal.SIGKILL)
except OSError:
    pass
kill_marked(marker, spare=(os.getpid(),))
if code is None:
    child.wait()
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
