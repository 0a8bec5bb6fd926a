"""The local backend's `Sandbox`, and what bubblewrap's view of the host shows the tests."""

from __future__ import annotations

import sys
from pathlib import Path

from selfheal.sandbox.base import Limits
from selfheal.sandbox.bwrap import in_system_view
from selfheal.sandbox.interpreter import referenced_folders
from selfheal.sandbox.local.session import LocalSession


class LocalSandbox:
    """`Sandbox` backend running commands as local subprocesses.

    `require_contained`: refuse to start (SandboxUnavailable) where the commands would run as
    selfheal's own user with no namespaces, i.e. could read its memory and environment — what
    GitHub needs before a token sits next to the repository's code. `accept_unsafe`: run anyway
    where containment is impossible (also as root, when the sandbox user cannot reach the test
    interpreter), and say so in `info`.
    """

    interpreter_inside = False

    def __init__(
        self,
        limits: Limits | None = None,
        *,
        namespaces: bool = True,
        extra_env: dict[str, str] | None = None,
        require_contained: bool = False,
        accept_unsafe: bool = False,
    ) -> None:
        self.limits = limits or Limits()
        self.namespaces = namespaces
        self.extra_env = dict(extra_env or {})
        self.require_contained = require_contained
        self.accept_unsafe = accept_unsafe

    def start(
        self, workspace: Path, *, expose: tuple[Path, ...] = (), python: str | None = None
    ) -> LocalSession:
        """`expose`: what the test interpreter `python` needs; without it, the tests run on
        selfheal's own Python. That one is shown behind bubblewrap in any case (a repository's
        environment may import from it), but only what the tests need must be open to a
        sandbox uid."""
        own = (Path(sys.prefix), Path(sys.base_prefix))
        referenced = referenced_folders(python or sys.executable)
        return LocalSession(
            Path(workspace).resolve(),
            self.limits,
            namespaces=self.namespaces,
            extra_env=self.extra_env,
            expose=_resolved(expose or own),
            shown=_resolved((*expose, *own, *referenced)),
            python=python,
            require_contained=self.require_contained,
            accept_unsafe=self.accept_unsafe,
        )


def shown_to_tests(path: Path, python: str | None = None) -> bool:
    """Whether bubblewrap's view would show `path` to the tests: it lies in the system's folders,
    the allowlisted files of /etc, or the folders of selfheal's own Python (and what it imports
    from) that every session binds in. A service keeps its key, database and work folders
    elsewhere."""
    path = Path(path).resolve()
    own = _resolved((Path(sys.prefix), Path(sys.base_prefix), *referenced_folders(python or sys.executable)))
    return in_system_view(path) or any(path == f or f in path.parents for f in own)


def _resolved(paths: tuple[Path, ...]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(Path(p).resolve() for p in paths))
