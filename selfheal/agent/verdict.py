"""The verdict: what "healed" means, decided by test ids and exit codes, never by opinion.

1. Every test that failed at baseline, and is not flaky, passes.
2. Every test that passed at baseline still passes (full suite, clean run).
3. The patch touches only source files: no test, conftest, test or CI configuration, no skip or
   xfail added, no test deleted.
4. Each new test passes on the patched code and fails on the baseline code (fail->pass); one that
   passes on both is a guard, never proof.
5. The patch applies with `git apply` on the base commit.

`partial` means rules 2-5 hold and some, not all, baseline failures were healed.
"""

from __future__ import annotations

import configparser
import re
import tomllib
from dataclasses import dataclass, replace

from selfheal.agent.config import PROTECTED_TABLES
from selfheal.agent.localize.spectrum import matches_any
from selfheal.agent.run.testrun import TestReport

SKIP_MARKERS = re.compile(
    r"pytest\.(mark\.)?(skip|skipif|xfail)\b|pytest\.importorskip|unittest\.skip|"
    r"@skip(If|Unless)?\b|SkipTest|\.skipTest\("
)

HEALED, PARTIAL, NOT_HEALED = "healed", "partial", "not_healed"


@dataclass(frozen=True)
class NewTestEvidence:
    path: str
    name: str
    fails_on_base: bool
    passes_on_patch: bool

    @property
    def kind(self) -> str:
        return "fail_to_pass" if self.fails_on_base and self.passes_on_patch else "guard"

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "name": self.name,
            "fails_on_base": self.fails_on_base,
            "passes_on_patch": self.passes_on_patch,
            "kind": self.kind,
        }


@dataclass(frozen=True)
class RuleResult:
    number: int
    holds: bool
    detail: str


@dataclass(frozen=True)
class Verdict:
    status: str
    rules: tuple[RuleResult, ...]
    healed: tuple[str, ...]
    still_failing: tuple[str, ...]
    regressions: tuple[str, ...]
    new_tests: tuple[NewTestEvidence, ...]

    @property
    def holds(self) -> bool:
        return self.status == HEALED

    @property
    def violations(self) -> list[str]:
        return [f"rule {r.number}: {r.detail}" for r in self.rules if not r.holds]


def protected_changes(
    changes: dict[str, str], base_texts: dict[str, str], protected: tuple[str, ...]
) -> list[str]:
    """Why a set of file changes breaks rule 3 (empty when it does not)."""
    problems = []
    for path, text in sorted(changes.items()):
        if matches_any(path, protected):
            problems.append(f"{path} is protected (tests, test configuration or CI)")
            continue
        name = path.rsplit("/", 1)[-1]
        if name in PROTECTED_TABLES and path in base_texts:
            touched = _changed_tables(name, base_texts[path], text)
            if touched:
                problems.append(f"{path}: changes protected settings {', '.join(touched)}")
    return problems


def _changed_tables(name: str, old: str, new: str) -> list[str]:
    return changed_tables(name, old, new, PROTECTED_TABLES[name])


def changed_tables(name: str, old: str, new: str, tables: tuple[str, ...]) -> list[str]:
    """Which of `tables` (dotted TOML tables of a pyproject.toml, or sections of a setup.cfg)
    differ between `old` and `new`; ["(file no longer parses)"] when either does not parse."""
    try:
        if name == "pyproject.toml":
            before, after = tomllib.loads(old), tomllib.loads(new)
            return [t for t in tables if _dig(before, t) != _dig(after, t)]
        before_cfg, after_cfg = configparser.ConfigParser(), configparser.ConfigParser()
        before_cfg.read_string(old)
        after_cfg.read_string(new)
        return [t for t in tables if _section(before_cfg, t) != _section(after_cfg, t)]
    except (tomllib.TOMLDecodeError, configparser.Error):
        return ["(file no longer parses)"]


def _dig(data: dict, dotted: str) -> object:
    for part in dotted.split("."):
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def _section(parser: configparser.ConfigParser, name: str) -> dict[str, str] | None:
    return dict(parser[name]) if parser.has_section(name) else None


def added_skips(patch: str) -> list[str]:
    return [
        line[1:].strip()
        for line in patch.splitlines()
        if line.startswith("+") and not line.startswith("+++") and SKIP_MARKERS.search(line)
    ]


def judge(
    *,
    baseline: TestReport,
    flaky: set[str],
    after: TestReport,
    changes: dict[str, str],
    base_texts: dict[str, str],
    patch: str,
    protected: tuple[str, ...],
    applies: tuple[bool, str],
    new_tests: tuple[NewTestEvidence, ...] = (),
    untargeted: frozenset[str] = frozenset(),
) -> Verdict:
    """`untargeted`: baseline failures nobody asked to heal; they need not pass (and did not pass before)."""
    targets = [t for t in baseline.failing if t not in flaky and t not in untargeted]
    after_outcomes = after.outcomes if after.ran else {}

    healed = tuple(t for t in targets if _outcome(after_outcomes, t) == "passed")
    still_failing = tuple(t for t in targets if t not in healed)
    regressions = tuple(
        t for t in baseline.passing if t not in flaky and _outcome(after_outcomes, t) != "passed"
    )
    deleted = [t for t in baseline.outcomes if after.ran and t not in after_outcomes]

    rule1 = RuleResult(
        1,
        after.ran and not still_failing,
        _count("baseline failure", len(healed), len(targets), "pass now")
        if after.ran
        else f"the patched run did not complete: {after.status}",
    )
    rule2 = RuleResult(
        2,
        after.ran and not regressions,
        f"{len(baseline.passing) - len(regressions)}/{len(baseline.passing)} "
        "previously passing tests still pass"
        + (f"; broken: {', '.join(regressions[:5])}" if regressions else ""),
    )
    problems = protected_changes(changes, base_texts, protected)
    skips = added_skips(patch)
    problems += [f"adds a skip or xfail: {s}" for s in skips]
    problems += [f"test no longer runs: {t}" for t in deleted[:5]]
    rule3 = RuleResult(3, not problems, "; ".join(problems) or "only source files changed")
    rule4 = _rule4(new_tests)
    rule5 = RuleResult(5, applies[0], applies[1])
    rules = (rule1, rule2, rule3, rule4, rule5)

    if all(r.holds for r in rules):
        status = HEALED
    elif healed and all(r.holds for r in (rule2, rule3, rule4, rule5)) and after.ran:
        status = PARTIAL
    else:
        status = NOT_HEALED
    return Verdict(status, rules, healed, still_failing, regressions, tuple(new_tests))


def with_new_tests(verdict: Verdict, new_tests: tuple[NewTestEvidence, ...]) -> Verdict:
    """The verdict once the generated tests have their proof: rule 4 judged on them. A verdict that
    held keeps holding only if every shipped test passes on the patch."""
    rule4 = _rule4(new_tests)
    rules = tuple(rule4 if r.number == 4 else r for r in verdict.rules)
    status = verdict.status
    if not rule4.holds:
        status = NOT_HEALED
    return replace(verdict, rules=rules, new_tests=tuple(new_tests), status=status)


def _rule4(new_tests: tuple[NewTestEvidence, ...]) -> RuleResult:
    proofless = [t for t in new_tests if t.kind != "fail_to_pass"]
    failing_new = [t.name for t in new_tests if not t.passes_on_patch]
    return RuleResult(
        4,
        not failing_new,
        f"new tests fail on the patch: {', '.join(failing_new)}"
        if failing_new
        else f"{len(new_tests) - len(proofless)} new test(s) fail on base and pass on the "
        f"patch; {len(proofless)} shipped as guard(s)"
        if new_tests
        else "no new tests to prove",
    )


def _outcome(outcomes: dict, nodeid: str) -> str:
    found = outcomes.get(nodeid)
    return found.outcome if found is not None else "missing"


def _count(what: str, done: int, total: int, verb: str) -> str:
    return f"{done}/{total} {what}{'s' if total != 1 else ''} {verb}"
