"""Which sandbox a heal gets: `auto` (docker when an engine answers, else local), docker, local."""

from __future__ import annotations

from pathlib import Path

from selfheal.sandbox.base import Limits, Sandbox
from selfheal.sandbox.container import DockerSandbox, docker_client
from selfheal.sandbox.exceptions import SandboxUnavailable
from selfheal.sandbox.local import LocalSandbox

KINDS = ("auto", "docker", "local")


def choose_sandbox(
    kind: str,
    repo: Path,
    *,
    limits: Limits,
    namespaces: bool = True,
    image: str | None = None,
    setup_command: str | None = None,
    ca_bundle: str | None = None,
    require_contained: bool = False,
    accept_unsafe: bool = False,
) -> tuple[Sandbox, str]:
    """The sandbox to use and, when `auto` had to fall back, why (for the report's notes).

    `docker` never falls back: without an engine or an image it raises SandboxUnavailable. The
    local sandbox decides at its start whether it can contain the commands (LocalSandbox).
    """
    if kind not in KINDS:
        raise SandboxUnavailable(f"unknown sandbox {kind!r}; choose one of {', '.join(KINDS)}")
    local = LocalSandbox(
        limits, namespaces=namespaces, require_contained=require_contained, accept_unsafe=accept_unsafe
    )
    if kind == "local":
        return local, ""
    try:
        client = docker_client(timeout=5 if kind == "auto" else 30)
    except SandboxUnavailable as exc:
        if kind == "docker":
            raise
        return local, f"local sandbox: {exc}"
    docker = DockerSandbox(image, limits, setup_command=setup_command, ca_bundle=ca_bundle, client=client)
    try:
        docker.ensure_image(docker.image_for(repo))
    except SandboxUnavailable as exc:
        if kind == "docker":
            raise
        return local, f"local sandbox: a Docker engine answers, but {exc}"
    return docker, ""
