"""A Python that users other than root can run, with this test run's packages importable.

The local sandbox, run as root, runs commands as an unprivileged uid; and some tests run selfheal
itself as a normal user. Both need an interpreter that uid can reach. The one running the tests
may live where it cannot (pyenv under /root, mode 0700). Then a venv is made from the system's own
Python of the same minor version in a world-readable folder, and it imports the running
interpreter's site-packages (with their .pth files, so the editable selfheal install works).
"""

from __future__ import annotations

import os
import shutil
import site
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

SYSTEM_BINS = "/usr/local/bin:/usr/bin:/bin"


def open_to_others(path: Path) -> bool:
    """Whether a uid that is neither the owner nor in the group can reach and read `path`."""
    path = Path(os.path.realpath(path))
    for folder in [*reversed(path.parents), path] if path.is_dir() else reversed(path.parents):
        if not folder.stat().st_mode & stat.S_IXOTH:
            return False
    return bool(path.stat().st_mode & stat.S_IROTH)


def current_is_open() -> bool:
    return open_to_others(Path(sys.executable)) and open_to_others(Path(sys.base_prefix) / "lib")


def make_open_python(parent: Path | None = None) -> tuple[str | None, str]:
    """(interpreter, "") or (None, why not). The folder it makes lies under `parent` (default: a
    new folder in the system's temporary directory) and is the caller's to remove."""
    if current_is_open():
        return sys.executable, ""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    base = shutil.which(version, path=SYSTEM_BINS)
    if base is None or not open_to_others(Path(base)):
        return None, f"no {version} outside /root that other users can run"
    site_dirs = [p for p in site.getsitepackages() if Path(p).is_dir()]
    closed = [p for p in site_dirs if not open_to_others(Path(p))]
    if closed:
        return None, f"the test run's packages are not readable by other users: {closed[0]}"
    folder = Path(tempfile.mkdtemp(prefix="selfheal-openpy-", dir=parent))
    folder.chmod(0o755)
    venv = folder / "venv"
    made = subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], capture_output=True, text=True)
    if made.returncode != 0:
        return None, f"{base} -m venv failed: {made.stderr.strip()[-200:]}"
    target = venv / "lib" / version / "site-packages"
    lines = "".join(f"import site; site.addsitedir({p!r})\n" for p in site_dirs)
    (target / "selfheal-test-packages.pth").write_text(lines, encoding="utf-8")
    python = str(venv / "bin" / "python")
    check = subprocess.run(
        [python, "-c", "import pytest, coverage, selfheal, github"], capture_output=True, text=True
    )
    if check.returncode != 0:
        return None, f"{python} cannot import the test run's packages: {check.stderr.strip()[-300:]}"
    return python, ""
