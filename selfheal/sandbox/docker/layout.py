"""Where things are inside the sandbox's containers, and who owns them there."""

from __future__ import annotations

MOUNT = "/sandbox"
WORKSPACE = f"{MOUNT}/workspace"
DEPS = f"{MOUNT}/deps"
VENV = f"{DEPS}/venv"
BUILD_DIR = f"{MOUNT}/build"  # a volume between the build and the install of the local projects
WHEELS = f"{BUILD_DIR}/wheels"
REQUIREMENTS = f"{DEPS}/requirements"  # the requirement files as classified, for pip to read
# Where every set-up step starts: a tmpfs of its own container, empty. `python -m` puts its
# working folder first on sys.path, and pip reads a relative path from it: a folder of the
# repository's files there would be imported in place of pip (or of a module pip imports), or
# installed, in a step with a network or with the dependencies writable.
SETUP_CWD = "/tmp"
USER = "1000:1000"
UID = 1000
CONTAINER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
TMP_MB = 512
