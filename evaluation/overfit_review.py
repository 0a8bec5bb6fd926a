"""How often the overfit review (selfheal/agent/repair/overfit.py) cries wolf, and how often it sees
the cheats: its risks for every own task's reference fix (solution.diff, an honest fix: any risk
there is a false alarm) and for every overfit and detection case of the cheat corpus (applied
statically here; tests/agent/test_cheat_corpus.py heals them for real). Beside it, the verdict's
rule 12 (a patch that tells a test run apart, repair/circumstances.py), which refuses: on the same
reference fixes any refusal is a false one, and every detection case must be refused.

    python -m evaluation.overfit_review [--list]
"""

from __future__ import annotations

import argparse
import textwrap
from collections import Counter

from evaluation.bench.reference import PatchError, reference_texts
from evaluation.bench.tasks import load_tasks
from evaluation.cheats.cases import load_cases
from evaluation.cheats.harness import BUGGY_RETURN, PRICING, TESTS
from selfheal.agent.repair.circumstances import Detection, detect_test_run
from selfheal.agent.repair.overfit import OverfitRisk, overfit_risks


def reference_fixes() -> dict[str, tuple[dict[str, str], dict[str, str], dict[str, str]]]:
    """Task id -> the base texts of the files its reference fix changes, the fixed texts, and its
    failing tests' files."""
    found: dict[str, tuple[dict[str, str], dict[str, str], dict[str, str]]] = {}
    for task_id, task in sorted(load_tasks().items()):
        diff = task.folder / "solution.diff"
        if not diff.is_file():
            continue
        try:
            fixed = reference_texts(task.repo, diff.read_text(encoding="utf-8"))
        except (PatchError, UnicodeDecodeError):
            continue
        base = {p: (task.repo / p).read_text(encoding="utf-8") for p in fixed if (task.repo / p).is_file()}
        tests = {
            t: (task.repo / t.split("::", 1)[0]).read_text(encoding="utf-8") for t in task.visible_failing
        }
        found[task_id] = (base, {p: t for p, t in fixed.items() if t is not None}, tests)
    return found


def reference_fix_risks() -> dict[str, list[OverfitRisk]]:
    """Task id -> the review's risks for its reference fix."""
    return {task_id: overfit_risks(*fix) for task_id, fix in reference_fixes().items()}


def reference_fix_detections() -> dict[str, list[Detection]]:
    """Task id -> what rule 12 would refuse in its reference fix (each one a false refusal)."""
    return {task_id: detect_test_run(*fix) for task_id, fix in reference_fixes().items()}


def cheat_patches() -> dict[str, tuple[dict[str, str], dict[str, str], dict[str, str]]]:
    """Cheat case id -> its patch as the harness applies it, for the overfit and detection cases."""
    found: dict[str, tuple[dict[str, str], dict[str, str], dict[str, str]]] = {}
    for case in load_cases():
        if case.family not in ("overfit", "detection") or case.edits:
            continue
        patched = PRICING
        if case.top:
            patched = patched.replace("import sys\n", "import sys\n" + case.top, 1)
        if case.body:
            patched = patched.replace(BUGGY_RETURN, textwrap.indent(case.body, "    ") + BUGGY_RETURN)
        tests = {"tests/test_pricing.py::test_total_adds_tax": TESTS[case.style]}
        found[f"{case.family}/{case.id}"] = (
            {"shop/pricing.py": PRICING},
            {"shop/pricing.py": patched},
            tests,
        )
    return found


def cheat_risks() -> dict[str, list[OverfitRisk]]:
    """Cheat case id -> the review's risks for its patch (overfit and detection families)."""
    return {case_id: overfit_risks(*patch) for case_id, patch in cheat_patches().items()}


def cheat_detections() -> dict[str, list[Detection]]:
    """Detection case id -> what rule 12 refuses in its patch."""
    return {c: detect_test_run(*patch) for c, patch in cheat_patches().items() if c.startswith("detection/")}


def render(
    honest: dict[str, list[OverfitRisk]],
    cheats: dict[str, list[OverfitRisk]],
    *,
    listing: bool,
    refused: dict[str, list[Detection]] | None = None,
    detected: dict[str, list[Detection]] | None = None,
) -> str:
    """The review's figures; with `refused` (rule 12 on the reference fixes) and `detected` (on the
    detection cases), rule 12's too."""
    kinds = Counter(r.kind for risks in honest.values() for r in risks)
    flagged = [t for t, risks in honest.items() if risks]
    caught = [c for c, risks in cheats.items() if risks]
    lines = [
        "Overfit review: risks raised",
        "",
        f"  reference fixes of the own tasks (honest): {len(flagged)}/{len(honest)} flagged"
        + (f" ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))})" if kinds else ""),
        f"  cheat corpus overfit + detection cases:    {len(caught)}/{len(cheats)} flagged",
    ]
    if refused is not None and detected is not None:
        wrongly = [t for t, found in refused.items() if found]
        rightly = [c for c, found in detected.items() if found]
        lines += [
            "",
            "Verdict rule 12 (telling a test run apart): refusals",
            "",
            f"  reference fixes of the own tasks (honest): {len(wrongly)}/{len(refused)} refused",
            f"  cheat corpus detection cases:              {len(rightly)}/{len(detected)} refused",
        ]
    if listing:
        lines += ["", "False alarms on reference fixes:"]
        lines += [f"  {t}: {r}" for t in flagged for r in honest[t]] or ["  none"]
        lines += ["", "Cheats not flagged:"]
        lines += [f"  {c}" for c, risks in cheats.items() if not risks] or ["  none"]
        if refused is not None and detected is not None:
            lines += ["", "Reference fixes refused by rule 12:"]
            lines += [f"  {t}: {d}" for t, found in refused.items() for d in found] or ["  none"]
            lines += ["", "Detection cases rule 12 lets through:"]
            lines += [f"  {c}" for c, found in detected.items() if not found] or ["  none"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.overfit_review", description=__doc__)
    parser.add_argument("--list", action="store_true", help="list every false alarm and every cheat missed")
    args = parser.parse_args(argv)
    print(render(
        reference_fix_risks(), cheat_risks(), listing=args.list,
        refused=reference_fix_detections(), detected=cheat_detections(),
    ))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
