"""The docker backend's set-up of a repository's dependencies, once, before any test runs."""

from __future__ import annotations

import contextlib
import json
import posixpath
from pathlib import Path
from typing import Any

from selfheal.sandbox.dependencies import SetupPlan, build_requirements, declared_requirements, plan_setup
from selfheal.sandbox.docker.archive import files_archive
from selfheal.sandbox.docker.incontainer import BUILD, METADATA
from selfheal.sandbox.docker.layout import (
    BUILD_DIR,
    CONTAINER_PATH,
    DEPS,
    REQUIREMENTS,
    SETUP_CWD,
    VENV,
    WHEELS,
    WORKSPACE,
)
from selfheal.sandbox.env import FIXED
from selfheal.sandbox.exceptions import SetupFailed


class DependencySetup:
    """The part of `DockerSession` that installs the repository's dependencies in set-up
    containers, each as locked down as the main one, with a network only where pip needs one."""

    def _setup(self, workspace: Path) -> str:
        """Install the repo's dependencies once, before any test runs, in setup containers.

        Only pip and what an index provides run with a network: the packages the repository
        names. The repository's own code — the build backend of a project whose metadata is
        dynamic, a local path in a requirements file — runs only in steps with no network: one
        reads the project's requirements, one builds its wheel; pip installs those with and
        without a network. The repository's code never writes the dependencies' volume itself.
        What pip downloads comes from the operator's package index, unless the operator allows
        the repository's own sources (SetupRefused otherwise, before pip is asked for it).
        """
        allow = self.sandbox.allow_direct_requirements
        # the operator's own command replaces the plan: then nothing of the repository is read here
        plan = (
            SetupPlan()
            if self.sandbox.setup_command
            else plan_setup(workspace, allow_direct_requirements=allow)
        )
        probe = self.run(["python3", "-c", "import pytest, coverage"], timeout=60)
        if probe.returncode == 127:
            raise SetupFailed(f"image {self.image} has no python3")
        needs_tools = probe.returncode != 0
        if plan.empty and not needs_tools and not self.sandbox.setup_command:
            return "python3"
        projects = [(path, extras) for path, extras in map(_split_extras, plan.local_projects)
                    if _inside(workspace, path)]  # fmt: skip
        build_requires = [
            r for path, _ in projects for r in build_requirements(workspace, path, allow_direct=allow)
        ]
        self._setup_step(
            "index", self._index_script(plan, needs_tools, build_requires), network=True, deps="rw",
            files={**{posixpath.join(posixpath.relpath(REQUIREMENTS, DEPS), name): text.encode()
                      for name, text in plan.filtered}, **self._ca_files()},
        )  # fmt: skip
        if self.sandbox.setup_command or not projects:
            return f"{VENV}/bin/python"
        python = f"{VENV}/bin/python"
        requires: list[str] = []
        for path, extras in projects:
            logs = self._setup_step(
                "metadata", [python, "-c", METADATA, posixpath.join(WORKSPACE, path), *extras],
                network=False, deps="ro",
            )  # fmt: skip
            requires += _declared_requirements(logs, path, allow)
        if requires:
            self._setup_step(
                "project-index",
                [python, "-I", "-m", "pip", "install", "--no-input", *dict.fromkeys(requires)],
                network=True, deps="rw",
            )  # fmt: skip
        wheels = self.client.volumes.create(name=f"{self.container.name}-build", labels=self._labels)
        try:
            for path, _ in projects:
                self._setup_step(
                    "build", [python, "-c", BUILD, posixpath.join(WORKSPACE, path), WHEELS],
                    network=False, deps="ro", wheels=(wheels, "rw"),
                )  # fmt: skip
            self._setup_step(
                "install",
                ["sh", "-c", f"{python} -I -m pip install --no-input --no-index --no-deps {WHEELS}/*.whl"],
                network=False, deps="rw", wheels=(wheels, "ro"),
            )  # fmt: skip
        finally:
            with contextlib.suppress(Exception):
                wheels.remove(force=True)
        return python

    def _ca_files(self) -> dict[str, bytes]:
        return {"ca-bundle.pem": Path(self.sandbox.ca_bundle).read_bytes()} if self.sandbox.ca_bundle else {}

    def _setup_step(
        self,
        step: str,
        command: str | list[str],
        *,
        network: bool,
        deps: str,
        files: dict[str, bytes] | None = None,
        wheels: tuple[Any, str] | None = None,
    ) -> str:
        """One setup container, run to its end: its logs, or SetupFailed with their tail."""
        # pip decodes the requirement copies by the locale: UTF-8, as they are written
        environment = {
            "PATH": f"{VENV}/bin:{CONTAINER_PATH}", "HOME": "/tmp", "VIRTUAL_ENV": VENV, "LANG": "C.UTF-8",
            **FIXED,
        }  # fmt: skip
        if self.sandbox.ca_bundle:
            bundle = f"{DEPS}/ca-bundle.pem"
            environment.update(PIP_CERT=bundle, SSL_CERT_FILE=bundle, REQUESTS_CA_BUNDLE=bundle)
        options = self._locked_down(workspace_mode="ro", deps_mode=deps)
        if wheels is not None:
            options["volumes"][wheels[0].name] = {"bind": BUILD_DIR, "mode": wheels[1]}
        if not network:
            options["network_mode"] = "none"
        argv = ["sh", "-c", command] if isinstance(command, str) else command
        setup = self.client.containers.create(
            self.image, command=argv, name=f"{self.container.name}-{step}", working_dir=SETUP_CWD,
            **{**options, "environment": environment},
        )  # fmt: skip
        try:
            # the folders it writes made the sandbox user's: a volume's own root is root's
            if deps == "rw":
                self._put(files_archive([posixpath.relpath(VENV, DEPS)], files), DEPS, setup)
            if wheels is not None and wheels[1] == "rw":
                self._put(files_archive([posixpath.relpath(WHEELS, BUILD_DIR)]), BUILD_DIR, setup)
            setup.start()
            try:
                status = setup.wait(timeout=self.sandbox.setup_timeout)
            except Exception as exc:  # the engine's timeout error types vary
                raise SetupFailed(
                    f"dependency setup ({step}) did not finish in {self.sandbox.setup_timeout:g}s"
                ) from exc
            logs = setup.logs().decode("utf-8", "replace")
            if status.get("StatusCode") != 0:
                tail = "\n".join(logs.strip().splitlines()[-12:])
                shown = command if isinstance(command, str) else " ".join(a for a in command if "\n" not in a)
                raise SetupFailed(f"dependency setup failed ({step}: {shown}):\n{tail}")
            return logs
        finally:
            with contextlib.suppress(Exception):
                setup.remove(force=True)

    def _index_script(self, plan: SetupPlan, needs_tools: bool, build_requires: list[str]) -> str:
        import shlex

        # -I: nothing of the working folder or of PYTHON* variables on the interpreter's path
        steps = [f"python3 -I -m venv --system-site-packages {VENV}"]
        if self.sandbox.setup_command:
            steps.append(f"cd {WORKSPACE} && {self.sandbox.setup_command}")
            return " && ".join(steps)
        args = [*plan.pip_arguments(REQUIREMENTS), *dict.fromkeys(build_requires)] + (
            ["pytest", "coverage"] if needs_tools else []
        )
        if args:
            steps.append(
                f"{VENV}/bin/python -I -m pip install --no-input " + " ".join(shlex.quote(a) for a in args)
            )
        return " && ".join(steps)


def _split_extras(project: str) -> tuple[str, list[str]]:
    """`./libs/x[test,dev]` -> ("libs/x", ["test", "dev"])."""
    path, _, rest = project.partition("[")
    extras = [e.strip() for e in rest.rstrip("]").split(",") if e.strip()]
    return posixpath.normpath(path) or ".", extras


def _inside(workspace: Path, path: str) -> bool:
    """A local project's path names a folder of the workspace (repository text: never trusted)."""
    resolved = (workspace / path).resolve()
    return resolved.is_dir() and (resolved == workspace.resolve() or workspace.resolve() in resolved.parents)


def _declared_requirements(logs: str, project: str, allow_direct: bool) -> list[str]:
    """What the metadata step found, each checked to be a requirement and nothing pip would read
    as an option, and held to the set-up's policy: a name for the index, or (if the operator
    allows them) a VCS checkout or a URL; SetupRefused otherwise."""
    from packaging.requirements import InvalidRequirement, Requirement

    line = next((x for x in reversed(logs.splitlines()) if x.startswith("SELFHEAL-REQUIRES ")), None)
    if line is None:
        raise SetupFailed("dependency setup (metadata): the project's build backend reported no requirements")
    try:
        listed = json.loads(line.split(" ", 1)[1])
    except ValueError as exc:
        raise SetupFailed("dependency setup (metadata): an unreadable list of requirements") from exc
    found = []
    for text in listed if isinstance(listed, list) else []:
        try:
            found.append(str(Requirement(str(text))))
        except InvalidRequirement:
            continue
    # a local path or file: URL among them is the repository's own code, never installed here
    where = f"the requirements the build backend of {project if project != '.' else 'the project'} reports"
    return declared_requirements(where, found, allow_direct=allow_direct)
