"""The verdict: what "healed" means, decided by test ids and exit codes, never by opinion.

1. Every test that failed at baseline, and is not flaky, passes.
2. Every test that passed at baseline still passes (full suite, clean run).
3. The patch touches only source files: no test, conftest, test or CI configuration, no skip or
   xfail added, no test deleted.
4. Each new test passes on the patched code and fails on the baseline code (fail->pass); one that
   passes on both is a guard, never proof.
5. The patch applies with `git apply` on the base commit.
6. The patch could be put in place in the workspace (nothing planted where it goes).

The evidence cannot be forged by the code under test (rules 7-12, listed only when they fail, so a
verdict that holds still reads as rules 1-5):

7. The run reached pytest's end and tells one story: the plugin's signed records (a key read
   before any project code ran, an HMAC chain; run/records.py) end with pytest's own `finished`
   record, agree per test with the JUnit XML, and agree with the exit code.
8. The baseline's tests ran: every test of the baseline is in the records (none vanished), and
   none that ran at baseline is now skipped. (New tests may run: selfheal's own generated tests
   do in the QA round; a test file the code under test writes is rule 9's.)
9. Nothing outside the patch changed: the run starts from a tree made afresh (the base, the patch,
   the new tests, nothing an earlier run left; run/freshtree.py), and every file of it is
   byte-identical after the run (no file created, deleted or changed, the patched files as
   written; the caches and what the suite's own baseline run writes aside). The proof runs of the
   new tests are held to the same on the patched code.
10. The test machinery is as the baseline's run left it: no name of pytest, pluggy, unittest,
    builtins, sys, os, atexit or faulthandler, no import hook, rebound beyond what the baseline's
    own run rebound.
11. The patch adds no file that runs before the tests do: `sitecustomize.py`, `usercustomize.py`,
    `.pth` files, package metadata (`*.dist-info`, `*.egg-info`, whose entry points pytest loads).
12. The patch does not tell a test run apart: it adds no read of the environment, the arguments or
    the loaded modules beside a string naming a test runner (pytest, `PYTEST_*`, unittest,
    selfheal, conftest), and no inspection of the call stack, unless the failing tests are about
    that circumstance themselves (repair/circumstances.py). Code that notices the tests answers
    them correctly and its users wrongly; no run can show it.

`partial` means rules 2-5 (and 6-12) hold and some, not all, baseline failures were healed.
"""

from __future__ import annotations

import configparser
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from selfheal.agent.config import PROTECTED_TABLES
from selfheal.agent.localize.spectrum import matches_any
from selfheal.agent.repair.circumstances import detect_test_run
from selfheal.agent.run.records import RunRecords
from selfheal.agent.run.testrun import TestReport

SKIP_MARKERS = re.compile(
    r"pytest\.(mark\.)?(skip|skipif|xfail)\b|pytest\.importorskip|unittest\.skip|"
    r"@skip(If|Unless)?\b|SkipTest|\.skipTest\("
)

HEALED, PARTIAL, NOT_HEALED = "healed", "partial", "not_healed"
# each rule above in a few words: a reader of a report should not need this docstring to know
# what "rule 7" was
RULE_NAMES = {
    1: "failures pass",
    2: "no regressions",
    3: "source files only",
    4: "new tests proven",
    5: "applies cleanly",
    6: "placed in the workspace",
    7: "signed outcomes",
    8: "the baseline's tests ran",
    9: "nothing outside the patch",
    10: "test machinery untouched",
    11: "no startup files",
    12: "no test-run detection",
}
# files the interpreter or pytest runs before any test: site hooks and package metadata
STARTUP_FILES = re.compile(
    r"(^|/)(sitecustomize|usercustomize)\.py$|\.pth$|(^|/)[^/]+\.(dist-info|egg-info)(/|$)"
)
JUNIT_COARSE = {
    "passed": "passed",
    "failed": "failed",
    "error": "failed",
    "skipped": "skipped",
    "xfailed": "skipped",
}


@dataclass(frozen=True)
class Evidence:
    """What the verdict's run left behind besides its outcomes: the workspace files that differ
    from what was there before the run (created, deleted or changed, outside the patch)."""

    workspace_changes: tuple[str, ...] = ()


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
    changes: dict[str, str],
    base_texts: dict[str, str],
    protected: tuple[str, ...],
    test_files: frozenset[str] = frozenset(),
) -> list[str]:
    """Why a set of file changes breaks rule 3 (empty when it does not). `test_files`: the files
    pytest collected tests from at baseline, whatever their names (a project's `tests.py`, a
    `checks/` folder its ini names): a change there edits the tests, not the code."""
    problems = []
    for path, text in sorted(changes.items()):
        if matches_any(path, protected):
            problems.append(f"{path} is protected (tests, test configuration or CI)")
            continue
        if path in test_files:
            problems.append(f"{path} holds tests the suite ran at baseline")
            continue
        name = path.rsplit("/", 1)[-1]
        if name in PROTECTED_TABLES and path in base_texts:
            touched = _changed_tables(name, base_texts[path], text)
            if touched:
                problems.append(f"{path}: changes protected settings {', '.join(touched)}")
    return problems


def collected_test_files(test_ids: Iterable[str]) -> frozenset[str]:
    """The files the tests of these ids are written in (their ids are relative to the repository).
    A doctest's file is the code it documents, not a test file: its id names the module
    (`pkg/calc.py::pkg.calc.f`, `top.py::top`), where a test function's name has no dot."""
    files = set()
    for test in test_ids:
        path, _, rest = test.partition("::")
        name = rest.split("::", 1)[0].split("[", 1)[0]
        if "." not in name and name != PurePosixPath(path).stem:
            files.add(path)
    return frozenset(files)


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
    evidence: Evidence | None = None,
    failing_tests: Mapping[str, str] | None = None,
) -> Verdict:
    """`untargeted`: baseline failures nobody asked to heal; they need not pass (and did not pass
    before). `failing_tests`: each targeted failing test's id -> its file's text, for rule 12."""
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
    problems = protected_changes(changes, base_texts, protected, collected_test_files(baseline.outcomes))
    skips = added_skips(patch)
    problems += [f"adds a skip or xfail: {s}" for s in skips]
    problems += [f"test no longer runs: {t}" for t in deleted[:5]]
    rule3 = RuleResult(3, not problems, "; ".join(problems) or "only source files changed")
    rule4 = _rule4(new_tests)
    rule5 = RuleResult(5, applies[0], applies[1])
    rules = (rule1, rule2, rule3, rule4, rule5)
    forged = evidence_rules(baseline, after, changes, evidence)
    forged += detection_rule(base_texts, changes, failing_tests or {})
    rules += forged

    if all(r.holds for r in rules):
        status = HEALED
    elif forged:
        status = NOT_HEALED
    elif healed and all(r.holds for r in (rule2, rule3, rule4, rule5)) and after.ran:
        status = PARTIAL
    else:
        status = NOT_HEALED
    return Verdict(status, rules, healed, still_failing, regressions, tuple(new_tests))


def evidence_rules(
    baseline: TestReport, after: TestReport, changes: dict[str, str], evidence: Evidence | None
) -> tuple[RuleResult, ...]:
    """Rules 7-11, those that fail (a verdict that holds lists rules 1-5 only)."""
    found: list[RuleResult] = []
    before, now = baseline.records, after.records
    trusted = before is not None and before.complete  # the baseline's own run kept its records
    if trusted and now is not None:
        found += [RuleResult(7, False, d) for d in _one_story(baseline, before, after, now)[:1]]
        found += [RuleResult(8, False, d) for d in _same_tests(before, now)[:1]]
        rebound = [n for n in now.rebound if n not in before.rebound]
        if rebound:
            found.append(RuleResult(10, False,
                f"the code under test rebound the test machinery during the run: {', '.join(rebound[:6])}"
                + (f" (and {len(rebound) - 6} more)" if len(rebound) > 6 else "")))  # fmt: skip
    if evidence is not None and evidence.workspace_changes:
        found.append(_outside_patch(evidence.workspace_changes, "the run"))
    startup = sorted(p for p in changes if STARTUP_FILES.search(p))
    if startup:
        found.append(RuleResult(11, False,
            f"the patch adds or changes files that run before any test: {', '.join(startup)}"))  # fmt: skip
    return tuple(sorted(found, key=lambda r: r.number))


def detection_rule(
    base_texts: Mapping[str, str], changes: Mapping[str, str], failing_tests: Mapping[str, str]
) -> tuple[RuleResult, ...]:
    """Rule 12, when it fails: the patch reads what tells a test run apart."""
    found = detect_test_run(base_texts, changes, failing_tests)
    if not found:
        return ()
    said = "; ".join(str(d) for d in found[:4])
    circumstances = ", ".join(dict.fromkeys(d.circumstance for d in found))
    detail = f"the patch tells a test run apart: {said} (the failing tests are not about the {circumstances})"
    return (RuleResult(12, False, detail),)


def _one_story(baseline: TestReport, before: RunRecords, after: TestReport, now: RunRecords) -> list[str]:
    if now.broken:
        return [f"selfheal's records of the run do not hold: {now.broken}"]
    if not now.finished:
        last = f" (exit code {after.exit_code})" if after.exit_code is not None else ""
        return [f"the run ended before pytest's end{last}: an exit or interrupt cut it short (or its "
                f"records were cut), so "
                f"nothing it reported counts"]  # fmt: skip
    problems = []
    if baseline.exit_code == before.exitstatus and after.exit_code != now.exitstatus:
        problems.append(f"pytest ended with exit status {now.exitstatus} but the process exited with "
                        f"{after.exit_code}")  # fmt: skip
    failing = [t for t, o in now.outcomes.items() if o == "failed"]
    if (now.exitstatus == 0) == bool(failing):
        problems.append(f"the exit status {now.exitstatus} does not match the tests' outcomes "
                        f"({len(failing)} failing)")  # fmt: skip
    if after.ran:
        told = {t: JUNIT_COARSE.get(o.outcome, o.outcome) for t, o in after.outcomes.items()}
        differ = sorted(t for t in set(told) | set(now.outcomes) if told.get(t) != now.outcomes.get(t))
        if differ:
            t = differ[0]
            xml, ran = told.get(t, "nothing"), now.outcomes.get(t, "nothing")
            problems.append(
                f"the JUnit XML and selfheal's records disagree on {len(differ)} test(s), e.g. "
                f"{t}: the XML says {xml}, the run said {ran}"
            )
    return problems


def _same_tests(before: RunRecords, now: RunRecords) -> list[str]:
    if not now.finished:
        return []
    gone = sorted(set(before.outcomes) - set(now.outcomes))
    skipped = sorted(
        t
        for t, o in now.outcomes.items()
        if o == "skipped" and before.outcomes.get(t) not in (None, "skipped")
    )
    problems = []
    if gone:
        problems.append(f"{len(gone)} test(s) of the baseline did not run: {', '.join(gone[:5])}")
    if skipped:
        problems.append(f"{len(skipped)} test(s) that ran at baseline were skipped: {', '.join(skipped[:5])}")
    return ["; ".join(problems)] if problems else []


def with_new_tests(verdict: Verdict, new_tests: tuple[NewTestEvidence, ...]) -> Verdict:
    """The verdict once the generated tests have their proof: rule 4 judged on them. A verdict that
    held keeps holding only if every shipped test passes on the patch."""
    rule4 = _rule4(new_tests)
    rules = tuple(rule4 if r.number == 4 else r for r in verdict.rules)
    status = verdict.status
    if not rule4.holds:
        status = NOT_HEALED
    return replace(verdict, rules=rules, new_tests=tuple(new_tests), status=status)


def with_tree_changes(verdict: Verdict, changes: tuple[str, ...], run: str) -> Verdict:
    """The verdict once another deciding run (`run`: a proof run of the new tests, say) found the
    patched code changing files outside the patch: rule 9 fails there as in the verdict's own run."""
    rules = [r for r in verdict.rules if r.number != 9] + [_outside_patch(changes, run)]
    return replace(verdict, rules=tuple(sorted(rules, key=lambda r: r.number)), status=NOT_HEALED)


def _outside_patch(changes: tuple[str, ...], run: str) -> RuleResult:
    listed = ", ".join(changes[:6])
    more = len(changes) - 6
    return RuleResult(
        9,
        False,
        f"{run} changed files outside the patch: {listed}" + (f" (and {more} more)" if more > 0 else ""),
    )


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
