"""What one heal produced: the value every publisher (CLI folder, GitHub PR, benchmark) reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from selfheal.agent.localize.spectrum import Localization, Target
from selfheal.agent.model.debugger import Diagnosis
from selfheal.agent.newtests.cases import TestGeneration
from selfheal.agent.repair.disagreement import Disagreement
from selfheal.agent.repair.edits import Candidate
from selfheal.agent.repair.overfit import OverfitRisk
from selfheal.agent.repair.strategy import Screening
from selfheal.agent.run.testrun import TestReport
from selfheal.agent.verdict import Verdict
from selfheal.sandbox import SandboxInfo
from selfheal.sandbox.base import Fallback

HEALED, PARTIAL, NOT_HEALED, NOTHING_TO_HEAL, ERROR = (
    "healed",
    "partial",
    "not_healed",
    "nothing_to_heal",
    "error",
)


@dataclass
class Metrics:
    wall_s: float = 0.0
    test_runs: int = 0
    candidates_tried: int = 0
    screened: int = 0
    screen_s: float = 0.0
    screener: str = ""
    baseline_s: float = 0.0
    validations: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    first_plausible_at: int | None = None  # the screening number of the first plausible candidate
    screened_after_plausible: int = 0  # candidates screened once a plausible one was found
    source_lines: int | None = None  # lines of the Python files a repair may change

    @property
    def screened_per_s(self) -> float:
        return self.screened / self.screen_s if self.screen_s else 0.0


@dataclass
class Rejection:
    """A candidate that screened as plausible but failed the verdict on a real run."""

    candidate: Candidate
    verdict: Verdict


@dataclass
class HealResult:
    status: str
    repo: str
    base_sha: str
    test_command: str
    provider: str
    sandbox: SandboxInfo
    error: str | None = None
    python: str = ""  # the interpreter the tests ran under
    apply_root: str = ""  # where `git apply patch.diff` works (the git top level)
    project_dir: str = ""  # the healed folder inside that repository ("" at the top)
    baseline: TestReport | None = None
    after: TestReport | None = None
    flaky: tuple[str, ...] = ()
    untargeted: tuple[str, ...] = ()  # failing, but outside the requested targets: left alone
    localization: Localization | None = None
    fixes: tuple[Candidate, ...] = ()  # the accepted edits, in the order they were found
    changes: dict[str, str] = field(default_factory=dict)
    base_texts: dict[str, str] = field(default_factory=dict)  # of the changed files
    patch: str = ""
    verdict: Verdict | None = None
    iterations: int = 0
    metrics: Metrics = field(default_factory=Metrics)
    families_tried: dict[str, int] = field(default_factory=dict)
    ruled_out: list[Screening] = field(default_factory=list)
    alternatives: list[Candidate] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    sandbox_fallback: Fallback | None = None  # why `auto` took the local sandbox, if it did
    stopped_because: str = ""
    model_diagnosis: Diagnosis | None = None  # the ReAct debugger's conclusion, when a model ran
    tests: TestGeneration = field(default_factory=TestGeneration)  # generated tests and their proof
    test_files: dict[str, str] = field(default_factory=dict)  # new test files (project-relative) -> text
    critic: list[str] = field(default_factory=list)  # the critic's concerns about the shipped patch
    model: dict[str, Any] | None = None  # the model's part: evidence, review, usage per role, stop reason
    conversation: list[dict[str, Any]] = field(default_factory=list)  # per model call (transcript.py)
    overfit_risks: tuple[OverfitRisk, ...] = ()  # what in the shipped patch may only fit the tests
    # "path: function" each shipped change only bypasses (a new early exit or guard): nothing that
    # changed the computation itself passed (agent/repair/bypass.py)
    bypass: tuple[str, ...] = ()
    memory: str = "off"  # where earlier heals were recalled from ("off": memory was not used)
    recalled: tuple = ()  # of recall.Recalled: the earlier heals most like this failure
    # the distinct plausible patches compared on generated inputs (agent/alternatives.py): whether
    # the tests determine the fix or leave it open; None: not compared (nothing healed)
    disagreement: Disagreement | None = None
    # Candidate.key -> whether its edit says what the code's documentation says (agent/preference.py),
    # for each candidate a round chose among plausible ones: what the confidence reads of the fixes
    documented: dict[tuple, bool] = field(default_factory=dict)

    def fell_back(self, fallback: Fallback | None) -> None:
        """`auto` took the local sandbox: its plain reason joins the notes everyone reads, the
        engine's own words only the report."""
        if fallback is not None:
            self.sandbox_fallback = fallback
            self.notes.append(fallback.reason)

    @property
    def targets(self) -> tuple[Target, ...]:
        return self.localization.targets if self.localization else ()

    @property
    def failures_before(self) -> list[str]:
        return self.baseline.failing if self.baseline else []

    @property
    def failures_after(self) -> list[str]:
        if self.after is not None and self.after.ran:
            return self.after.failing
        if self.status in (NOTHING_TO_HEAL,):
            return []
        return self.failures_before

    @property
    def regressions(self) -> list[str]:
        return list(self.verdict.regressions) if self.verdict else []

    @property
    def files_changed(self) -> list[str]:
        """Changed files relative to `apply_root`, as in the patch."""
        prefix = f"{self.project_dir}/" if self.project_dir else ""
        return sorted(prefix + path for path in self.changes)
