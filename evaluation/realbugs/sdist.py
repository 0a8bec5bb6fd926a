"""Source distributions from PyPI, downloaded with pip once and unpacked into a cache folder.

The cache lives outside git (`$SELFHEAL_REALBUGS_CACHE`, default ~/.cache/selfheal/realbugs):
`sdists/` holds the archives as pip saved them, `src/<project>-<version>/` their unpacked trees.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

DOWNLOAD_TIMEOUT_S = 300


class SdistUnavailable(RuntimeError):
    """pip could not download the sdist (no network, no such release, no sdist)."""


def default_cache() -> Path:
    configured = os.environ.get("SELFHEAL_REALBUGS_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "selfheal" / "realbugs"


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


@dataclass(frozen=True)
class SdistCache:
    root: Path
    index_url: str | None = None  # another index or a local folder (`--find-links`) for tests

    @property
    def sdists(self) -> Path:
        return self.root / "sdists"

    def archive(self, project: str, version: str) -> Path | None:
        """The cached archive of project==version, if any."""
        if not self.sdists.is_dir():
            return None
        stem = f"{_normal(project)}-{version}"
        for path in sorted(self.sdists.iterdir()):
            name = path.name
            for suffix in (".tar.gz", ".zip", ".tar.bz2", ".tgz"):
                if (
                    name.endswith(suffix)
                    and _normal(name[: -len(suffix)].rsplit("-", 1)[0])
                    + "-"
                    + (name[: -len(suffix)].rsplit("-", 1)[-1])
                    == stem
                ):
                    return path
        return None

    def download(self, project: str, version: str) -> Path:
        """The archive, downloaded by pip when it is not cached yet."""
        found = self.archive(project, version)
        if found is not None:
            return found
        self.sdists.mkdir(parents=True, exist_ok=True)
        command = [
            sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
            "--disable-pip-version-check", "-q", "-d", str(self.sdists), f"{project}=={version}",
        ]  # fmt: skip
        if self.index_url:
            command += ["--no-index", "--find-links", self.index_url]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=DOWNLOAD_TIMEOUT_S)
        except subprocess.TimeoutExpired as exc:
            raise SdistUnavailable(f"{project}=={version}: pip download timed out") from exc
        found = self.archive(project, version)
        if done.returncode != 0 or found is None:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no sdist saved"]
            raise SdistUnavailable(f"{project}=={version}: pip download failed: {tail[0]}")
        return found

    def tree(self, project: str, version: str) -> Path:
        """The unpacked sdist's top folder (the one holding setup.py / pyproject.toml)."""
        target = self.root / "src" / f"{_normal(project)}-{version}"
        if target.is_dir():
            return target
        archive = self.download(project, version)
        target.parent.mkdir(parents=True, exist_ok=True)
        # a staging folder of its own: two builds of the same release (threads of --jobs, or two
        # builders sharing the cache) unpack side by side, and the first rename wins
        staging = Path(tempfile.mkdtemp(prefix=f"{target.name}.", suffix=".partial", dir=target.parent))
        try:
            _unpack(archive, staging)
            entries = [p for p in staging.iterdir()]
            top = entries[0] if len(entries) == 1 and entries[0].is_dir() else staging
            try:
                top.rename(target)
            except OSError:
                if not target.is_dir():
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return target


def _unpack(archive: Path, into: Path) -> None:
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as zipped:
            for member in zipped.namelist():
                if member.startswith("/") or ".." in Path(member).parts:
                    raise SdistUnavailable(f"{archive.name}: unsafe member {member!r}")
            zipped.extractall(into)
        return
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
