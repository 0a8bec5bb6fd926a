"""The tar archives files travel in (`put_archive`), owned by the sandbox user."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from selfheal.sandbox.base import STATE_DIR
from selfheal.sandbox.docker.layout import UID


def workspace_archive(workspace: Path) -> bytes:
    """The workspace as a tar for /sandbox/workspace: owned by the sandbox user, .git left out."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:

        def owned(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
            if Path(info.name).parts[0] in (".git", STATE_DIR):
                return None
            info.uid = info.gid = UID
            info.uname = info.gname = ""
            return info

        for child in sorted(workspace.iterdir()):
            tar.add(str(child), arcname=child.name, filter=owned)
    return buffer.getvalue()


def _dir_entry(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.uid, info.gid = tarfile.DIRTYPE, 0o755, UID, UID
    return info


def files_archive(folders: list[str], files: dict[str, bytes] | None = None) -> bytes:
    """A tar of folders and files owned by the sandbox user, for `put_archive`."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name in folders:
            tar.addfile(_dir_entry(name))
        for name, data in (files or {}).items():
            info = tarfile.TarInfo(name)
            info.size, info.uid, info.gid, info.mode = len(data), UID, UID, 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()
