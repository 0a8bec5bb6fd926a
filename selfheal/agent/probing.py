"""Generated inputs of a changed function, run on versions of the code; each run once per heal.

    probes = BehaviourProbes(session, python, base_text, existing_tests, ...)
    probes.run(path, function, changes) -> ProbeRun | None    the inputs on base + `changes`
    probes.plan(path, function) -> ProbePlan | None           the inputs themselves

The preference (how much behaviour a candidate changes) and the comparison of plausible patches
(where they disagree) ask for the same runs: the inputs of one function, planned once from its
base text and the tests' own calls (agent/newtests/edgecases: the tests' values and their
neighbours, annotation edges, docstring examples, seeded random ones), on the base and on each
candidate. A version is the base with some files replaced; every file it changes is written for
its run (a helper in another file changes what the function returns too) and put back after.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence

from selfheal.agent.newtests.edgecases.generate import ProbePlan, plan_probe_job
from selfheal.agent.newtests.edgecases.runner import ProbeRun, run_probes
from selfheal.sandbox import Session
from selfheal.sandbox.exceptions import WorkspaceTrap

PROBE_SECONDS = 20.0  # per run: one version of one function
CALL_SECONDS = 0.5
MAX_PROBES = 60


class BehaviourProbes:
    def __init__(
        self,
        session: Session,
        python: str,
        base_text: Callable[[str], str],
        existing_tests: Callable[[], Mapping[str, str]],
        *,
        source_dirs: Sequence[str] = (),
        seed: int = 0,
        timeout: float = PROBE_SECONDS,
        max_probes: int = MAX_PROBES,
    ) -> None:
        self.session, self.python = session, python
        self.base_text, self.existing_tests = base_text, existing_tests
        self.source_dirs, self.seed = tuple(source_dirs), seed
        self.timeout, self.max_probes = timeout, max_probes
        self._plans: dict[tuple[str, str], ProbePlan | str] = {}
        self._runs: dict[tuple[str, str, str], ProbeRun | None] = {}
        self._tests: Mapping[str, str] | None = None
        self.runs = 0  # probe processes started, for the trace

    def plan(self, path: str, function: str) -> ProbePlan | None:
        """The inputs of `function` in `path`, planned from its base text (None: it cannot be
        called on generated inputs, and `why(path, function)` says why)."""
        key = (path, function)
        if key not in self._plans:
            if self._tests is None:
                self._tests = self.existing_tests()
            self._plans[key] = plan_probe_job(
                path=path, function=function, text=self.base_text(path), existing_tests=self._tests,
                source_dirs=self.source_dirs or None, seed=self.seed, max_probes=self.max_probes,
                call_timeout=CALL_SECONDS,
            )  # fmt: skip
        planned = self._plans[key]
        return None if isinstance(planned, str) else planned

    def why(self, path: str, function: str) -> str:
        planned = self._plans.get((path, function))
        return planned if isinstance(planned, str) else ""

    def run(self, path: str, function: str, changes: Mapping[str, str]) -> ProbeRun | None:
        """The inputs of `function` on the base with `changes` (path -> text) written over it; None
        when the function cannot be probed or its module could not be imported on that version."""
        planned = self.plan(path, function)
        if planned is None:
            return None
        changed = {p: t for p, t in sorted(changes.items()) if t != self.base_text(p)}
        key = (path, function, _digest(changed))
        if key not in self._runs:
            self._runs[key] = self._run(planned, changed)
        return self._runs[key]

    def _run(self, planned: ProbePlan, changed: Mapping[str, str]) -> ProbeRun | None:
        originals: dict[str, bytes | None] = {}
        try:
            for path, text in changed.items():
                originals[path] = self.session.read_file(path)
                self.session.write_file(path, text)
            self.runs += 1
            found = run_probes(
                self.session, self.python, planned.job, timeout=self.timeout, hash_seed=0,
                source_dirs=planned.dirs,
            )  # fmt: skip
        except WorkspaceTrap:
            return None
        finally:
            for path, original in originals.items():
                restored = original if original is not None else self.base_text(path)
                self.session.write_file(path, restored, force=True)
        return found if found.target is not None else None


def _digest(changed: Mapping[str, str]) -> str:
    digest = hashlib.sha256()
    for path, text in changed.items():
        digest.update(path.encode("utf-8") + b"\0" + text.encode("utf-8") + b"\0")
    return digest.hexdigest()
