"""The docker backend's `Sandbox` and its `Session`: one locked-down container per heal.

The session is made of parts, each in its own module: `Lockdown` (isolation.py), `DependencySetup`
(setup.py) and `Commands` (commands.py); here are what they share: the container and its volumes,
the files, and the end.
"""

from __future__ import annotations

import base64
import contextlib
import io
import os
import posixpath
import socket
import tarfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from selfheal.sandbox.base import Limits, MiB, SandboxInfo
from selfheal.sandbox.dependencies import default_image
from selfheal.sandbox.docker.archive import files_archive, workspace_archive
from selfheal.sandbox.docker.commands import Commands, DockerChannel
from selfheal.sandbox.docker.engine import (
    EXPIRES_LABEL,
    LABEL,
    OWNER_LABEL,
    OWNER_PIDNS_LABEL,
    docker_client,
    pid_namespace,
    remove_leftovers,
)
from selfheal.sandbox.docker.isolation import Lockdown
from selfheal.sandbox.docker.layout import UID, WORKSPACE
from selfheal.sandbox.docker.setup import DependencySetup
from selfheal.sandbox.exceptions import LimitExceeded, SandboxUnavailable


class DockerSandbox:
    """`Sandbox` backend running every command in one locked-down container per heal."""

    interpreter_inside = True

    def __init__(
        self,
        image: str | None = None,
        limits: Limits | None = None,
        *,
        setup_command: str | None = None,
        ca_bundle: str | None = None,
        allow_direct_requirements: bool = False,
        setup_timeout: float = 900.0,
        lifetime_s: float = 6 * 3600,
        client: Any = None,
    ) -> None:
        self.image = image
        self.limits = limits or Limits()
        self.setup_command = setup_command
        self.ca_bundle = ca_bundle
        # the operator's: may the repository's requirements name another index, a VCS checkout
        # or a URL for the networked set-up (sandbox/dependencies/)
        self.allow_direct_requirements = allow_direct_requirements
        self.setup_timeout = setup_timeout
        self.lifetime_s = lifetime_s
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = docker_client()
        return self._client

    def image_for(self, workspace: Path) -> str:
        return self.image or default_image(workspace)

    def ensure_image(self, image: str) -> None:
        import docker.errors

        try:
            self.client.images.get(image)
            return
        except docker.errors.ImageNotFound:
            pass
        except docker.errors.APIError as exc:
            raise SandboxUnavailable(
                f"cannot inspect image {image}: {exc}",
                plain=f"the Docker image {image} could not be inspected",
            ) from exc
        repository, _, tag = image.rpartition(":") if ":" in image.split("/")[-1] else (image, "", "")
        try:
            self.client.images.pull(repository or image, tag=tag or None)
        except docker.errors.APIError as exc:
            raise SandboxUnavailable(
                f"image {image} is not here and could not be pulled: {exc}",
                plain=f"the Docker image {image} could not be pulled",
            ) from exc

    def start(
        self, workspace: Path, *, expose: tuple[Path, ...] = (), python: str | None = None
    ) -> DockerSession:
        workspace = Path(workspace)
        image = self.image_for(workspace)
        remove_leftovers(self.client)
        self.ensure_image(image)
        return DockerSession(self, workspace, image)


class DockerSession(Lockdown, DependencySetup, Commands):
    def __init__(self, sandbox: DockerSandbox, workspace: Path, image: str) -> None:
        self.sandbox = sandbox
        self.client = sandbox.client
        self.limits = sandbox.limits
        self.image = image
        self.root = Path(WORKSPACE)
        self.python: str | None = None
        self._channels: list[DockerChannel] = []
        self._server: DockerChannel | None = None
        self._server_failures = 0
        self._run_lock = threading.Lock()
        name = f"selfheal-{uuid.uuid4().hex[:12]}"
        self._labels = {
            LABEL: "1",
            OWNER_LABEL: f"{socket.gethostname()}:{os.getpid()}",
            OWNER_PIDNS_LABEL: pid_namespace(),
            EXPIRES_LABEL: str(int(time.time() + sandbox.lifetime_s)),
        }
        archive = workspace_archive(workspace)
        # tmpfs pages count as the container's memory: the limit covers the workspace on top
        self.workspace_mb = -(-len(archive) // MiB) + self.limits.disk_mb
        self._limit_error: LimitExceeded | None = None
        self.volumes: list[Any] = []
        self.container = None
        try:
            self.volumes.append(
                self.client.volumes.create(
                    name=f"{name}-ws", driver="local", labels=self._labels,
                    driver_opts={
                        "type": "tmpfs", "device": "tmpfs",
                        "o": f"size={self.workspace_mb}m,uid={UID},gid={UID},mode=0755,nosuid,nodev",
                    },
                )
            )  # fmt: skip
            self.volumes.append(self.client.volumes.create(name=f"{name}-deps", labels=self._labels))
            self.container = self.client.containers.create(
                image, command=["sleep", "infinity"], name=name, network_mode="none",
                **self._locked_down(deps_mode="ro"),
            )  # fmt: skip
            # started first: the tmpfs is mounted at start, and would hide what came before
            self.container.start()
            self._put(archive)
            self.python = self._setup(workspace)
        except BaseException:
            self.close()
            raise
        self.facts = self._facts(image)
        self.info = SandboxInfo.of("docker", self.facts)

    def _put(self, data: bytes, path: str = WORKSPACE, container: Any = None) -> None:
        if not (container or self.container).put_archive(path, data):
            raise OSError(f"could not copy files into the sandbox at {path}")

    # -- files ----------------------------------------------------------------------------
    def _member(self, relpath: str) -> str:
        normal = posixpath.normpath(relpath)
        if normal.startswith("..") or posixpath.isabs(normal) or normal in (".", ""):
            raise ValueError(f"path escapes the workspace: {relpath}")
        return normal

    def write_file(self, relpath: str, content: str | bytes, *, force: bool = False) -> None:
        """The engine extracts the archive inside the container, where whatever the tests planted
        stays: an entry at the name is replaced, and a link on the way leads only to other places
        of the container. So every write here is as `force` asks, and none reaches the host."""
        self._check_usable()
        member = self._member(relpath)
        data = content.encode("utf-8") if isinstance(content, str) else content
        parents = [posixpath.join(*member.split("/")[:i]) for i in range(1, member.count("/") + 1)]
        import docker.errors

        request = {"op": "write", "parents": parents, "path": member, "data": base64.b64encode(data).decode()}
        try:
            if self._file_on_server(request) is None:
                self._put(files_archive(parents, {member: data}))
        except docker.errors.DockerException as exc:
            raise self._lost(exc) from exc

    def read_file(self, relpath: str) -> bytes | None:
        import docker.errors

        member = self._member(relpath)
        reply = self._file_on_server({"op": "read", "path": member})
        if reply is not None:
            return base64.b64decode(reply["data"]) if "data" in reply else None
        try:
            chunks, _ = self.container.get_archive(f"{WORKSPACE}/{member}")
            raw = b"".join(chunks)
        except docker.errors.NotFound:
            return None
        with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
            entry = tar.next()
            if entry is None or not entry.isfile():
                return None  # a folder, or a symlink the sandbox planted
            handle = tar.extractfile(entry)
            return handle.read() if handle else None

    def close(self) -> None:
        for channel in self._channels:
            channel.close()
        self._channels.clear()
        if self.container is not None:
            with contextlib.suppress(Exception):
                self.container.remove(force=True)
            self.container = None
        for volume in self.volumes:
            with contextlib.suppress(Exception):
                volume.remove(force=True)

    def __enter__(self) -> DockerSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
