"""The lock-down of the docker backend's containers, and the facts a session reports of it.

Both sit side by side so that what the report says is read off what the containers get.
"""

from __future__ import annotations

import os
from typing import Any

from selfheal.sandbox.base import Isolation, MiB
from selfheal.sandbox.docker.layout import CONTAINER_PATH, DEPS, TMP_MB, UID, USER, WORKSPACE
from selfheal.sandbox.env import FIXED


class Lockdown:
    """The part of `DockerSession` that says how every container of the session is locked down
    (the main one and each set-up step) and what that amounts to."""

    def _locked_down(self, *, workspace_mode: str = "rw", deps_mode: str) -> dict[str, Any]:
        import docker.types

        memory = f"{self.limits.memory_mb + self.workspace_mb}m"
        file_limit = min(self.limits.max_file_mb, self.limits.disk_mb) * MiB
        workspace_volume, deps_volume = self.volumes
        return {
            "user": USER,
            "read_only": True,
            "tmpfs": {"/tmp": f"rw,nosuid,nodev,size={TMP_MB}m"},
            "cap_drop": ["ALL"],
            "security_opt": ["no-new-privileges"],
            "mem_limit": memory,
            "memswap_limit": memory,
            "pids_limit": self.limits.max_processes,
            "nano_cpus": int(self.limits.cpus * 1e9),
            "ulimits": [docker.types.Ulimit(name="fsize", soft=file_limit, hard=file_limit)],
            "init": True,
            "labels": self._labels,
            "volumes": {
                workspace_volume.name: {"bind": WORKSPACE, "mode": workspace_mode},
                deps_volume.name: {"bind": DEPS, "mode": deps_mode},
            },
            "environment": {"PATH": CONTAINER_PATH, "HOME": "/tmp", **FIXED},
        }

    def _facts(self, image: str) -> Isolation:
        return Isolation(
            uid=UID,
            separate_user=os.getuid() != UID,  # the container shares the host's user namespace
            capabilities=(),
            namespaces=("mount", "pid", "net", "ipc", "uts"),
            network=False,
            filesystem=f"the workspace only (read-only root and dependencies; tmpfs /tmp of {TMP_MB} MiB)",
            read_only_elsewhere=True,
            disk_limit_mb=self.limits.disk_mb,
            processes=f"pids limit ({self.limits.max_processes} processes)",
            nested_user_namespaces=False,  # the engine's default seccomp profile refuses them
            notes=(
                f"container {image}",
                "no-new-privileges",
                f"memory {self.limits.memory_mb} MiB + the workspace's {self.workspace_mb} MiB tmpfs",
                f"{self.limits.cpus:g} CPUs",
            ),
        )
