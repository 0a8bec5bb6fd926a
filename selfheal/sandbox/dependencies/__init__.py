"""What a repository needs installed before its tests can run, and which image fits it.

Read from the files the repo declares, never by running its code: requirements files at the top
(and the files they include), `[project] dependencies` and test-ish optional extras of
pyproject.toml. What is the repository's own code — the project itself when its metadata is
dynamic (setup.py, dynamic dependencies), a local path in a requirements file (`-e .`,
`./libs/x`) — is a *local project*: the docker backend builds those without a network (see
`selfheal.sandbox.docker.setup`), so that no code of the repository ever runs where it could reach one.

The rest goes to pip in a set-up step with a network, so every line and entry is classified
first, the way pip itself would read it: a name for the package index, a local path, or a place
of the repository's choosing — another index (`--index-url`, `--extra-index-url`, `--find-links`,
`--trusted-host`), a VCS checkout (`git+…`) or a direct URL (`https://…`, `name @ https://…`).
Those are refused (SetupRefused) unless the operator allows them; what cannot be classified is
refused whatever the operator allows. pip reads the copies written here, never the repository's
files, so what it reads is what was classified.

How pip reads a requirements file is in `pipfile`, how each line and entry is classified and
refused in `classify`, what the set-up installs in `plan`, the image in `image`. Reads files
only; may import the rest of `selfheal.sandbox` (its exceptions) and nothing else of selfheal.
"""

from selfheal.sandbox.dependencies.classify import (
    Refusal,
    classify_requirement,
    declared_requirements,
    read_requirement_files,
    refuse,
)
from selfheal.sandbox.dependencies.image import (
    DEFAULT_IMAGE,
    DEFAULT_PYTHON,
    default_image,
    python_version_for,
)
from selfheal.sandbox.dependencies.plan import SetupPlan, build_requirements, plan_setup

__all__ = [
    "DEFAULT_IMAGE",
    "DEFAULT_PYTHON",
    "Refusal",
    "SetupPlan",
    "build_requirements",
    "classify_requirement",
    "declared_requirements",
    "default_image",
    "plan_setup",
    "python_version_for",
    "read_requirement_files",
    "refuse",
]
