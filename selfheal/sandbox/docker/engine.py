"""The Docker engine: a client for it, and the containers and volumes dead runs left on it.

Containers and volumes carry labels with the owner (host and pid) and an expiry; a run killed
before its `close()` leaves them behind, and the next start removes them.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
from pathlib import Path
from typing import Any

from selfheal.sandbox.exceptions import SandboxUnavailable

LABEL = "selfheal.sandbox"
OWNER_LABEL = "selfheal.owner"
# The owner's pid means something only in its own pid namespace: a selfheal in a container run
# with the host's network shares the host's name but not its pids, and must not take another's
# live container for one whose owner died.
OWNER_PIDNS_LABEL = "selfheal.owner-pidns"
EXPIRES_LABEL = "selfheal.expires"


def docker_client(timeout: float = 60) -> Any:
    """A client for the engine DOCKER_HOST names (or the local socket); raises if none answers."""
    try:
        import docker
    except ImportError as exc:
        raise SandboxUnavailable("the docker Python package is not installed") from exc
    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
    except Exception as exc:  # any failure here means "no engine answers"
        where = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
        raise SandboxUnavailable(
            f"no Docker engine answers at {where}: {exc}", plain="no Docker engine answers"
        ) from exc
    return client


def engine_answers() -> bool:
    try:
        docker_client(timeout=5)
    except SandboxUnavailable:
        return False
    return True


def remove_leftovers(client: Any) -> list[str]:
    """Remove containers and volumes of selfheal runs that died without cleaning up."""
    removed = []
    host, pidns = socket.gethostname(), pid_namespace()
    now = time.time()
    for kind, items in (
        # another selfheal on the same engine may remove one of them between the listing and its
        # inspection: gone is what this wants, not an error
        ("container", client.containers.list(all=True, filters={"label": LABEL}, ignore_removed=True)),
        ("volume", client.volumes.list(filters={"label": LABEL})),
    ):
        for item in items:
            labels = (
                (item.attrs.get("Config") or {}).get("Labels")
                if kind == "container"
                else item.attrs.get("Labels")
            )
            if _abandoned(labels or {}, host, pidns, now):
                with contextlib.suppress(Exception):
                    item.remove(force=True)
                    removed.append(item.name)
    return removed


def pid_namespace() -> str:
    """This process's pid namespace, as the kernel names it (empty when /proc does not say)."""
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


def _abandoned(labels: dict[str, str], host: str, pidns: str, now: float) -> bool:
    owner_host, _, owner_pid = labels.get(OWNER_LABEL, "").rpartition(":")
    # a container from before the namespace label: its owner's namespace is taken to be ours
    same_pids = labels.get(OWNER_PIDNS_LABEL, pidns) == pidns != ""
    if owner_host == host and same_pids and owner_pid.isdigit() and not Path(f"/proc/{owner_pid}").exists():
        return True
    try:
        return float(labels.get(EXPIRES_LABEL, "inf")) < now
    except ValueError:
        return False
