"""report.html's sections in words, as data for the template: what to look at before merging, how
far the tests pin the fix, the verdict's rules, the sandbox, the new tests' stages and the diff."""

from __future__ import annotations

from typing import Any

from selfheal.agent.verdict import RULE_NAMES

TEST_WRITERS = {"edge_cases": "edge cases", "spec_tests": "spec tests", "qa_adversarial": "adversarial tests"}


def test_stages(events: list[dict[str, Any]]) -> list[str]:
    """What the test writers and the proof run did, one line each, in the order they ran: the
    report says so also when no test was shipped (nothing found, or nothing that failed before)."""
    lines = []
    for event in events:
        node = event.get("node")
        if node in TEST_WRITERS:
            cases = event.get("cases") or []
            probed = f"{event['probes']} inputs probed, " if event.get("probes") else ""
            line = (
                f"{TEST_WRITERS[node]} for {event.get('function', '?')}: {probed}{len(cases)} test(s) written"
            )
            notes = [str(n) for n in event.get("notes") or []] + [
                f"risk: {r}" for r in event.get("risks") or []
            ]
            lines.append(line + (f" — {'; '.join(notes)}" if notes else ""))
        elif node == "new_tests":
            lines.append(
                f"proof run: {event.get('fail_to_pass', 0)} fail before the fix and pass with it, "
                f"{event.get('guard', 0)} pass on both (guards), {event.get('discarded', 0)} discarded"
            )
    return lines


def diff_lines(patch: str) -> list[dict[str, str]]:
    kinds = []
    for line in patch.splitlines():
        if line.startswith(("+++", "---", "diff ", "index ")):
            kind = "meta"
        elif line.startswith("@@"):
            kind = "hunk"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        else:
            kind = "ctx"
        kinds.append({"kind": kind, "text": line})
    return kinds


def sandbox_line(sandbox: dict[str, Any]) -> str:
    """What isolated the repository's code, in one line: the backend, whose user, which
    namespaces, the network. The full statement (report.json's `isolation`) is the details."""
    facts = sandbox.get("facts") or {}
    parts = [f"sandbox: {sandbox.get('backend', '?')}"]
    if facts:
        if facts.get("separate_user"):
            parts.append("another user")
        if facts.get("capabilities"):
            parts.append("capabilities " + ", ".join(facts["capabilities"]))
        namespaces = facts.get("namespaces") or []
        parts.append("namespaces " + ", ".join(namespaces) if namespaces else "no namespaces")
    parts.append("network" if sandbox.get("network") else "no network")
    if facts and not facts.get("contained"):
        parts.append("not contained")
    return " · ".join(parts)


def pinned(report: dict[str, Any]) -> str:
    """How far the tests pin the fix, when they do not leave it open (that is a warning)."""
    found = report.get("disagreement")
    if not found or found.get("open"):
        return ""
    others = (report.get("metrics") or {}).get("candidates_screened", 0) - 1
    if found["plausible"] < 2 and others > 0:
        return f"None of the other {others} candidates screened made the failing tests pass."
    if found["plausible"] < 2:
        return "No other candidate was screened: nothing was compared with this patch."
    if found.get("measured"):
        return (
            f"{found['plausible']} distinct plausible patches agree on all {found['probes']} generated "
            "inputs they were run on."
        )
    return f"{found['plausible']} distinct plausible patches; they could not be compared on generated inputs."


def warnings(report: dict[str, Any]) -> list[dict[str, Any]]:
    """What a reviewer must look at before merging, each with its heading and points."""
    found = []
    disagreement = report.get("disagreement") or {}
    if disagreement.get("open"):
        standing = [g for g in disagreement["groups"] if not g["refuted_by"]]
        found.append({
            "title": "The tests allow more than one fix",
            "text": f"{disagreement['plausible']} distinct patches pass the tests but behave "
            f"{len(standing)} different ways on {disagreement['probes']} generated inputs: the tests "
            "do not say which is meant.",
            "points": [f"fix {i + 1}{' (shipped)' if g['shipped'] else ''}: {g['members'][0]}"
                       for i, g in enumerate(standing)],
        })  # fmt: skip
    if report.get("overfit_risks"):
        found.append({
            "title": "Possible overfit",
            "text": "The patch has signs of fitting the tests rather than the bug:",
            "points": [f"`{r['function']}` ({r['kind'].replace('_', ' ')}): {r['detail']}"
                       for r in report["overfit_risks"]],
        })  # fmt: skip
    if report.get("bypass"):
        found.append({
            "title": "Only a bypass was found",
            "text": "The failing tests pass because the patch skips code in "
            + ", ".join(f"`{f}`" for f in report["bypass"]) + ".",
            "points": [],
        })  # fmt: skip
    if report.get("critic"):
        found.append({"title": "The reviewer model's concerns", "text": "", "points": list(report["critic"])})
    if report.get("open_risks"):
        found.append({"title": "Open risks", "text": "", "points": list(report["open_risks"])})
    return found


def rules(verdict: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [
        {**rule, "name": RULE_NAMES.get(int(rule["rule"]), "")} for rule in (verdict or {}).get("rules") or []
    ]
