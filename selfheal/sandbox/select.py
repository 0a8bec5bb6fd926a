"""Which sandbox a heal gets: `auto` (docker when an engine answers, else local), docker, local."""

from __future__ import annotations

from pathlib import Path

from selfheal.sandbox.base import Fallback, Limits, Sandbox
from selfheal.sandbox.dependencies import DEFAULT_IMAGE, DEFAULT_PYTHON, python_version_for
from selfheal.sandbox.docker import DockerSandbox, docker_client
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
    allow_direct_requirements: bool = False,
    require_contained: bool = False,
    accept_unsafe: bool = False,
    default_image: str = DEFAULT_IMAGE,
) -> tuple[Sandbox, Fallback | None]:
    """The sandbox to use and, when `auto` chose the local one, why (`Fallback`: a plain line for
    what is published, the engine's words for the report).

    The choice is the operator's, made before the repository is read: `auto` takes docker when
    an engine answers and the operator's image (or, without one, `default_image`) can be had.
    What the repository then asks for (its `.python-version`) can fail that sandbox, which is an
    error for the heal, never a switch to a weaker one. `docker` never falls back either. The
    local sandbox decides at its start whether it can contain the commands (LocalSandbox).
    """
    if kind not in KINDS:
        raise SandboxUnavailable(f"unknown sandbox {kind!r}; choose one of {', '.join(KINDS)}")
    local = LocalSandbox(
        limits, namespaces=namespaces, require_contained=require_contained, accept_unsafe=accept_unsafe
    )
    if kind == "local":
        return local, None
    try:
        client = docker_client(timeout=5 if kind == "auto" else 30)
    except SandboxUnavailable as exc:
        if kind == "docker":
            raise
        return local, _fallback(exc)
    if kind == "auto":
        try:
            DockerSandbox(image or default_image, limits, client=client).ensure_image(image or default_image)
        except SandboxUnavailable as exc:
            return local, _fallback(exc, engine=True)
    asked = python_version_for(repo)
    wanted = image or (default_image if asked == DEFAULT_PYTHON else f"python:{asked}-slim")
    docker = DockerSandbox(
        wanted, limits, setup_command=setup_command, ca_bundle=ca_bundle,
        allow_direct_requirements=allow_direct_requirements, client=client,
    )  # fmt: skip
    try:
        docker.ensure_image(wanted)
    except SandboxUnavailable as exc:
        if image is None and wanted != default_image:
            hint = (
                "name an image that has this Python with --sandbox-image (the Action's sandbox-image input)"
            )
            raise SandboxUnavailable(
                f"the repository asks for Python {asked} (its .python-version or requires-python), "
                f"and {exc}. The sandbox stays docker, as chosen; {hint}",
                plain=f"the repository asks for Python {asked}, and {exc.plain}; {hint}",
            ) from exc
        raise
    return docker, None


def _fallback(exc: SandboxUnavailable, *, engine: bool = False) -> Fallback:
    answered = "a Docker engine answers, but " if engine else ""
    return Fallback(f"sandbox: local — {exc.plain}", f"local sandbox: {answered}{exc}")
