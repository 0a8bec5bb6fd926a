"""summary.md: the pull request body a maintainer reads before merging."""

from __future__ import annotations

from typing import Any

from selfheal.agent.report.result import ERROR, HEALED, NOTHING_TO_HEAL, PARTIAL, HealResult

ICON = {
    "passed": "✅ passed",
    "failed": "❌ failed",
    "error": "❌ error",
    "skipped": "⏭ skipped",
    "xfailed": "⏭ xfailed",
    "missing": "— not run",
}
HEADLINE = {
    HEALED: "healed — every verdict rule holds",
    PARTIAL: "partially healed — some failures fixed, nothing broken",
    "not_healed": "not healed — no candidate met the verdict",
    NOTHING_TO_HEAL: "nothing to heal — no test fails",
    ERROR: "error — the heal could not complete",
}


def _first_line(text: str, limit: int = 160) -> str:
    line = next((ln.strip() for ln in text.strip().splitlines() if ln.strip()), "")
    return line if len(line) <= limit else line[: limit - 3] + "..."


def build_summary(result: HealResult, report: dict[str, Any]) -> str:
    parts = [_title(result), *_open_fix(report)]
    parts += [f"**Status:** {HEADLINE.get(result.status, result.status)}", ""]
    if result.error:
        parts += ["### What went wrong", "", "```", result.error.strip(), "```", ""]
    parts += _what_failed(result)
    parts += _root_cause(report)
    if result.patch:
        parts += ["### The change", "", "```diff", result.patch.rstrip(), "```", ""]
    parts += _how_far_pinned(report)
    parts += _overfit(report)
    parts += _bypass(report)
    parts += _verification(result, report)
    parts += _new_tests(report)
    if report["lessons"]:
        parts += ["### Lessons", "", *[f"- {lesson}" for lesson in report["lessons"]], ""]
    parts += _recalled(report)
    parts += _model_part(report)
    parts += _metrics(result, report)
    if result.notes:
        parts += ["### Notes", "", *[f"- {note}" for note in result.notes], ""]
    return "\n".join(parts).rstrip() + "\n"


def _open_fix(report: dict[str, Any]) -> list[str]:
    """First, when the tests leave the fix open: the inputs on which the fixes they allow differ,
    what each gives, and the test that would decide for each."""
    found = report.get("disagreement")
    if not found or not found["open"]:
        return []
    standing = [g for g in found["groups"] if not g["refuted_by"]]
    names = [f"fix {i + 1}" + (" (shipped)" if g["shipped"] else "") for i, g in enumerate(standing)]
    lines = [
        "### The tests allow more than one fix",
        "",
        f"{found['plausible']} distinct patches make the failing tests pass and keep the others passing, "
        f"but they compute different things: run with the original code on {found['probes']} generated "
        f"inputs, they behave {len(standing)} different ways. The tests do not say which is meant, so this "
        "pull request is a draft: read the differences, keep the fix the code should have, and add the "
        "test that decides for it.",
        "",
        "| input | before the patch | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for item in found["inputs"]:
        cells = [f"`{_cell(item['call'])}`", f"`{_cell(item['base'])}`"]
        cells += [f"`{_cell(r)}`" for r in item["results"]]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    judgement = found.get("judgement")
    for index, (name, group) in enumerate(zip(names, standing, strict=True)):
        alike = len(group["members"]) - 1
        how = (
            "verified by the full test suite"
            if group["validated"]
            else "passes the failing tests and the tests that run the changed lines (screening)"
        )
        lines.append(
            f"**{name}**: {group['members'][0]}"
            + (f" (and {alike} patch{'es' if alike > 1 else ''} that behave alike)" if alike else "")
            + f"; {how}."
        )
        if judgement and judgement.get("preferred") == index:
            lines.append(f"The model judges this the fix the code means: {judgement['reasons']}")
        if not group["shipped"]:
            lines += _details("its patch", "diff", group["patch"])
        if group["decision_test"]:
            lines += _details(f"a test that decides for {name}", "python", group["decision_test"])
        lines.append("")
    if judgement and judgement.get("preferred") is None:
        lines += [f"The model could not tell which fix is meant: {judgement['reasons']}", ""]
    held = found.get("held_back_tests") or []
    if held:
        lines += [
            f"{len(held)} generated test(s) were held back: each asserts what only some of these fixes "
            "give, and shipping it would lock in a guess (" + ", ".join(f"`{t['name']}`" for t in held[:5])
            + (", …" if len(held) > 5 else "") + ").",
            "",
        ]  # fmt: skip
    refuted = [g for g in found["groups"] if g["refuted_by"]]
    for group in refuted:
        lines += [f"Ruled out by {group['refuted_by']}: {group['members'][0]}.", ""]
    return lines


def _how_far_pinned(report: dict[str, Any]) -> list[str]:
    """How far the tests pin the fix when they do not leave it open: whether other plausible
    patches were found and agree, or this one was the only one."""
    found = report.get("disagreement")
    if not found or found["open"]:
        return []
    screened = report["metrics"].get("candidates_screened", 0)
    if found["plausible"] < 2:
        line = (
            f"No other patch among the {screened} candidates screened made the failing tests pass, so "
            "nothing was compared with this one: the tests may pin it, or the search may not reach "
            "the alternatives."
        )
    elif found["measured"]:
        line = (
            f"{found['plausible']} distinct plausible patches were run with the original code on "
            f"{found['probes']} generated inputs and agree on every one: the tests determine the fix "
            "as far as those inputs reach."
        )
    else:
        line = (
            f"{found['plausible']} distinct plausible patches were found; the changed functions could not "
            "be called on generated inputs, so whether they behave alike is not known."
        )
    return ["### How far the tests pin the fix", "", line, ""]


def _details(summary: str, language: str, text: str) -> list[str]:
    return [
        "",
        f"<details><summary>{summary}</summary>",
        "",
        f"```{language}",
        text.rstrip(),
        "```",
        "",
        "</details>",
    ]


def _cell(text: str, limit: int = 80) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|").replace("`", "'")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _recalled(report: dict[str, Any]) -> list[str]:
    recalled = (report.get("memory") or {}).get("recalled") or []
    if not recalled:
        return []
    lines = ["#### Recalled from earlier heals of this repository", ""]
    for item in recalled:
        verdict = "helped: the fix is of its family or at its place" if item["helped"] else "did not help"
        lines.append(f"- `{item['id']}` ({item['created']}, {verdict}): {item['lesson']}")
    return [*lines, ""]


def _title(result: HealResult) -> str:
    if result.fixes:
        fix = result.fixes[0]
        return f"## selfheal: fix `{fix.function}` in `{fix.file}`\n"
    return f"## selfheal: {result.status.replace('_', ' ')}\n"


def _what_failed(result: HealResult) -> list[str]:
    baseline = result.baseline
    if baseline is None or not baseline.failing:
        return []
    lines = ["### What failed", ""]
    for test in baseline.failing[:15]:
        outcome = baseline.outcomes[test]
        flaky = " _(flaky: passed on re-run)_" if test in result.flaky else ""
        lines.append(f"- `{test}` — {_first_line(outcome.message) or outcome.outcome}{flaky}")
    if len(baseline.failing) > 15:
        lines.append(f"- … and {len(baseline.failing) - 15} more")
    return [*lines, ""]


def _root_cause(report: dict[str, Any]) -> list[str]:
    diagnosis = report.get("diagnosis")
    if not diagnosis:
        targets = report.get("targets") or []
        if not targets:
            return []
        return [
            "### Where the failure points",
            "",
            *[
                f"- `{t['file']}:{t['line']}` in `{t['function']}` "
                f"(suspiciousness {t.get('suspiciousness', 0):.2f})"
                for t in targets[:3]
            ],
            "",
        ]
    return ["### Root cause", "", diagnosis["root_cause"], "", *_confidence(report)]


def _confidence(report: dict[str, Any]) -> list[str]:
    """The probability that the patch is right, what it was measured on, and why it is not ready."""
    confidence = report.get("confidence")
    if not confidence:
        return []
    verdict = "ready for review" if confidence["ready"] else "not ready for review: a draft"
    lines = [
        f"**Confidence {confidence['probability']:.2f}, {verdict}** (ready at {confidence['threshold']:.2f} "
        f"or more): the probability that this patch is the right fix, {confidence['measured_on']}.",
        "",
    ]
    if confidence["reasons"]:
        lines += ["Why not ready:" if not confidence["ready"] else "What lowers it:", ""]
        lines += [*(f"- {reason}" for reason in confidence["reasons"]), ""]
    return lines


def _overfit(report: dict[str, Any]) -> list[str]:
    risks = report.get("overfit_risks") or []
    if not risks:
        return []
    return [
        "### ⚠️ Possible overfit: review before merging",
        "",
        "Every test passes with this patch, but the patch has signs of fitting the tests rather than "
        "fixing the bug. The tests cannot tell; a reviewer can:",
        "",
        *[f"- `{r['function']}` ({r['kind'].replace('_', ' ')}): {r['detail']}" for r in risks],
        "",
    ]


def _bypass(report: dict[str, Any]) -> list[str]:
    functions = report.get("bypass") or []
    if not functions:
        return []
    return [
        "### ⚠️ Only a bypass was found",
        "",
        "The failing tests pass because the patch skips code (a new early `return`, `continue` or "
        "`break`, a guard around what was there, or the statement the failing tests crashed in "
        "deleted) in "
        + ", ".join(f"`{f}`" for f in functions)
        + ". No candidate that changes the computation itself passed. Sometimes skipping is the fix; "
        "check that the skipped code is not where the bug is.",
        "",
    ]


def _verification(result: HealResult, report: dict[str, Any]) -> list[str]:
    if result.verdict is None or result.baseline is None or result.after is None:
        return []
    baseline, after = result.baseline, result.after
    lines = ["### Verification", "", "| test | before | after |", "|---|---|---|"]
    for test in baseline.failing:
        now = after.outcomes[test].outcome if test in after.outcomes else "missing"
        lines.append(f"| `{test}` | {ICON['failed']} | {ICON.get(now, now)} |")
    kept = len(baseline.passing) - len(result.regressions)
    lines.append(f"| {kept} other tests | {ICON['passed']} | {ICON['passed']} |")
    for test in result.regressions:
        lines.append(f"| `{test}` | {ICON['passed']} | {ICON['failed']} |")
    lines += ["", "| verdict rule | holds | detail |", "|---|---|---|"]
    for rule in report["verdict"]["rules"]:
        lines.append(f"| {rule['rule']} | {'yes' if rule['holds'] else '**no**'} | {rule['detail']} |")
    lines += [
        "",
        "Verified by a clean run of the full test command "
        f"(`{result.test_command}`) on the patched files, in the sandbox.",
        "",
    ]
    return lines


def _new_tests(report: dict[str, Any]) -> list[str]:
    tests = report["new_tests"]
    lines: list[str] = []
    if tests:
        lines += [
            "### New tests",
            "",
            "Each ran on the code before the fix and on the fixed code:",
            "",
            "| test | before the fix | with the fix | kind | what it checks |",
            "|---|---|---|---|---|",
        ]
        for test in tests:
            before = ICON["failed"] if test["fails_on_base"] else ICON["passed"]
            after = ICON["passed"] if test["passes_on_patch"] else ICON["failed"]
            kind = "fail → pass" if test["kind"] == "fail_to_pass" else "guard"
            what = test.get("reason") or ""
            lines.append(f"| `{test['path']}::{test['name']}` | {before} | {after} | {kind} | {what} |")
        lines.append("")
    if report.get("critic"):
        lines += [
            "### The reviewer's concerns",
            "",
            "A model reviewer sent this patch back although it passes every test, and no other patch "
            "met the verdict:",
            "",
            *[f"- {concern}" for concern in report["critic"]],
            "",
        ]
    if report.get("open_risks"):
        lines += ["### Open risks", "", *[f"- {risk}" for risk in report["open_risks"]], ""]
    return lines


def _metrics(result: HealResult, report: dict[str, Any]) -> list[str]:
    metrics = report["metrics"]
    sandbox = report["sandbox"]
    return [
        "### Metrics",
        "",
        "| iterations | wall time | test runs | candidates | screening | provider | sandbox |",
        "|---|---|---|---|---|---|---|",
        f"| {report['iterations']} | {metrics['wall_s']:.1f}s | {metrics['test_runs']} | "
        f"{metrics['candidates_tried']} | {metrics['screened_per_s']:.1f}/s ({metrics['screener'] or '—'}) | "
        f"{report['provider']} | {sandbox['backend']}: {sandbox['isolation']} |",
        "",
    ]


def _model_part(report: dict[str, Any]) -> list[str]:
    """What the model did: the debugger's evidence, the critic's decision, the cost per role."""
    model = report.get("model")
    if not model:
        return []
    lines = ["### The model's part", ""]
    if model.get("root_cause"):
        lines += [f"**Diagnosis:** {model['root_cause']}", ""]
    if model.get("tool_calls") or model.get("evidence"):
        lines += ["**Evidence the debugger gathered:**", ""]
        for call in model["tool_calls"]:
            lines.append(f"- `{call['tool']}` {call['arguments']}" + ("" if call["ok"] else " (failed)"))
        lines += [f"- {item}" for item in model.get("evidence", [])]
        lines.append("")
    critic = model.get("critic")
    if critic:
        verdict = "accepted the patch" if critic["decision"] == "accept" else "sent the patch back"
        lines += [f"**Critic:** {verdict}: {critic['reason']}", ""]
        lines += [f"- concern: {concern}" for concern in critic.get("concerns", [])]
        if critic.get("concerns"):
            lines.append("")
    if model.get("refused_edits"):
        lines += ["**Model edits that were refused or did not apply:**", ""]
        lines += [f"- {problem}" for problem in model["refused_edits"]]
        lines.append("")
    if model.get("stopped_because"):
        lines += [f"**The model stopped early:** {model['stopped_because']}; the search carried on.", ""]
    usage = model.get("usage") or {}
    rows = usage.get("by_role") or {}
    if rows:
        lines += ["| role | calls | tokens in | tokens out | dollars |", "|---|---|---|---|---|"]
        for role, row in rows.items():
            tokens = f"{row['tokens_in']} | {row['tokens_out']}"
            lines.append(f"| {role} | {row['calls']} | {tokens} | ${row['cost_usd']:.4f} |")
        total = usage["total"]
        lines.append(
            f"| **total** | {total['calls']} | {total['tokens_in']} | {total['tokens_out']} | "
            f"${total['cost_usd']:.4f} |"
        )
        lines.append("")
    return lines
