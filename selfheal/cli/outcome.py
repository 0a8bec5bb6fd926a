"""What `selfheal heal` says on stderr when it is done: the verdict, the risks, where the outputs are."""

from __future__ import annotations

import sys
from pathlib import Path

from selfheal.agent.events import count
from selfheal.agent.report.confidence import confidence_line
from selfheal.agent.report.outputs import CONVERSATION_FILE, OUTPUT_FILES, new_test_file
from selfheal.agent.report.result import ERROR, HEALED, NOTHING_TO_HEAL, HealResult


def print_outcome(result: HealResult, report: dict, out_dir: Path, applied: str | None) -> None:
    err = sys.stderr
    status = result.status.replace("_", " ")
    if result.status == HEALED and result.verdict:
        fixed = len(result.verdict.healed)
        err.write(
            f"healed: {count(fixed, 'failing test')} {'passes' if fixed == 1 else 'pass'} now, no test "
            f"broke (verdict: all {len(result.verdict.rules)} rules hold)\n"
        )
        for fix in result.fixes:
            err.write(f"  fix: {fix.description}\n")
        if report.get("confidence"):
            err.write(f"  {confidence_line(report['confidence'])}\n")
        for risk in result.overfit_risks:
            err.write(f"  ⚠ {risk}\n")
        if result.bypass:
            skipped = ", ".join(result.bypass)
            err.write(f"  ⚠ only a bypass was found: the patch skips the failing path in {skipped}\n")
        disagreement = result.disagreement
        if disagreement is not None and disagreement.open:
            err.write(
                f"  ⚠ the tests allow more than one fix: {len(disagreement.standing)} plausible patches "
                "behave differently"
                + (f", e.g. on {disagreement.inputs[0].call}" if disagreement.inputs else "")
                + " (summary.md shows where and a test that decides)\n"
            )
    elif result.status == NOTHING_TO_HEAL:
        err.write(
            "nothing to heal: no test fails"
            + (f" ({len(result.flaky)} flaky)" if result.flaky else "")
            + "\n"
        )
    else:
        err.write(f"{status}" + (f": {result.error}" if result.error else "") + "\n")
        # a heal that stopped with an error has one lesson, which says the error again
        for lesson in report["lessons"][:2] if result.status != ERROR else ():
            err.write(f"  - {lesson}\n")
    files = [*OUTPUT_FILES, *([CONVERSATION_FILE] if result.conversation else [])]
    files += ["tests/"] if result.test_files else []
    err.write(f"outputs: {out_dir}/ ({', '.join(files)})\n")
    shipped = report["new_tests"]
    if shipped:
        proofs = sum(t["kind"] == "fail_to_pass" for t in shipped)
        proved = "fails before the fix and passes" if proofs == 1 else "fail before the fix and pass"
        # where the files are now: in the output folder, until --apply writes them into the repository
        where = ", ".join(str(new_test_file(out_dir, result, path)) for path in sorted(result.test_files))
        err.write(f"new tests: {proofs} {proved} with it, {count(len(shipped) - proofs, 'guard')}: {where}\n")
    if result.patch:
        err.write(
            f"apply with: git -C {result.apply_root} apply {out_dir / 'patch.diff'}"
            + (
                "   (the new tests are not in the patch; --apply writes both)\n"
                if result.test_files
                else "   (or re-run with --apply)\n"
            )
        )
    if applied:
        err.write(f"{applied}\n")
