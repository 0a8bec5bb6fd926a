"""The files of a local session's workspace, read and written by selfheal from the host.

Sandboxed code can change the workspace between commands: no link, FIFO or file it planted
redirects a read or a write of selfheal's outside the workspace, or hangs it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import shutil
import stat
import uuid
from pathlib import Path

from selfheal.sandbox.base import MiB
from selfheal.sandbox.exceptions import WorkspaceTrap

MAX_READ = 256 * MiB  # a file selfheal reads back (JUnit XML, coverage data) larger than this is refused


class Files:
    """The part of `LocalSession` that reads and writes the workspace's files."""

    def _resolve(self, relpath: str) -> Path:
        path = (self.root / relpath).resolve()
        if path != self.root and self.root not in path.parents:
            raise ValueError(f"path escapes the workspace: {relpath}")
        return path

    def _parts(self, relpath: str) -> list[str]:
        normal = posixpath.normpath(relpath)
        parts = [p for p in normal.split("/") if p not in ("", ".")]
        if not parts or parts[0] == ".." or posixpath.isabs(normal):
            raise ValueError(f"path escapes the workspace: {relpath}")
        return parts

    def _folder_of(self, relpath: str, *, create: bool, force: bool) -> tuple[int, str]:
        """An open descriptor of the folder that holds `relpath`, reached from the root without
        following any link, and the file's name in it.

        Sandboxed code can change the workspace between commands; a link or a file it planted in
        place of a folder must never redirect a host write (or read) outside the workspace."""
        parts = self._parts(relpath)
        directory = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for depth, part in enumerate(parts[:-1]):
                try:
                    inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=directory)
                except FileNotFoundError:
                    if not create:
                        raise
                    self._make_folder(part, directory)
                    inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=directory)
                except OSError as exc:
                    if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                        raise
                    where = "/".join(parts[: depth + 1])
                    if not force:
                        raise WorkspaceTrap(
                            f"{relpath}: {where} is {_describe(part, directory)} planted in the workspace "
                            "where a folder was; selfheal does not write through it"
                        ) from exc
                    os.unlink(part, dir_fd=directory)
                    self._make_folder(part, directory)
                    inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=directory)
                os.close(directory)
                directory = inner
        except BaseException:
            os.close(directory)
            raise
        return directory, parts[-1]

    def _make_folder(self, name: str, directory: int) -> None:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o755, dir_fd=directory)
        if self.user is not None:
            os.chown(name, self.user.uid, self.user.gid, dir_fd=directory, follow_symlinks=False)

    def write_file(self, relpath: str, content: str | bytes, *, force: bool = False) -> None:
        """Write through a new file renamed into place: a hard link the tests made to the old
        file keeps the old content, and the write never opens what sits at the name."""
        self._check_usable()
        data = content.encode("utf-8") if isinstance(content, str) else content
        directory, name = self._folder_of(relpath, create=True, force=force)
        temporary = f".selfheal-write-{uuid.uuid4().hex}"
        try:
            try:
                existing = os.stat(name, dir_fd=directory, follow_symlinks=False)
            except FileNotFoundError:
                existing = None
            if existing is not None and not stat.S_ISREG(existing.st_mode):
                if not force:
                    raise WorkspaceTrap(
                        f"{relpath} is {_describe(name, directory)} planted in the workspace where a "
                        "file was; selfheal does not write through it"
                    )
                if stat.S_ISDIR(existing.st_mode):
                    shutil.rmtree(name, dir_fd=directory)
                else:
                    os.unlink(name, dir_fd=directory)
            executable = existing is not None and stat.S_ISREG(existing.st_mode) and existing.st_mode & 0o100
            mode = 0o755 if executable else 0o644
            handle = os.open(
                temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode, dir_fd=directory
            )
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
                os.fchmod(stream.fileno(), mode)
                if self.user is not None:
                    os.fchown(stream.fileno(), self.user.uid, self.user.gid)
            try:
                os.rename(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
            except OSError as exc:  # a folder appeared at the name since the check
                raise WorkspaceTrap(f"{relpath} could not be replaced ({exc.strerror})") from exc
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=directory)
            raise
        finally:
            os.close(directory)

    def read_file(self, relpath: str) -> bytes | None:
        try:
            directory, name = self._folder_of(relpath, create=False, force=False)
        except (OSError, WorkspaceTrap):
            return None
        try:
            # O_NONBLOCK: a FIFO planted at the name must not hang selfheal.
            handle = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=directory)
        except OSError:
            return None
        finally:
            os.close(directory)
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_READ:
            os.close(handle)
            return None
        with os.fdopen(handle, "rb") as stream:
            data = stream.read(MAX_READ + 1)
        return data if len(data) <= MAX_READ else None


def _describe(name: str, directory: int) -> str:
    try:
        info = os.stat(name, dir_fd=directory, follow_symlinks=False)
    except OSError:
        return "something"
    if stat.S_ISLNK(info.st_mode):
        try:
            return f"a symbolic link (to {os.readlink(name, dir_fd=directory)})"
        except OSError:
            return "a symbolic link"
    kinds = {
        stat.S_ISDIR: "a folder",
        stat.S_ISREG: "a file",
        stat.S_ISFIFO: "a FIFO",
        stat.S_ISSOCK: "a socket",
    }
    return next((what for test, what in kinds.items() if test(info.st_mode)), "a device")
