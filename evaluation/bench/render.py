"""The result document as terminal tables (rich) and as Markdown (job summary, `--summary`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table

from evaluation.bench.metrics import RATES
from evaluation.calibration.reliability import COLUMNS as RELIABILITY_COLUMNS
from evaluation.calibration.reliability import summary_line, table_rows

YES, NO = "yes", "no"


def _count(group: Mapping[str, Any], key: str) -> str:
    return f"{group[key]}/{group['tasks']} ({group[key + '_rate']:.0%})"


def _yes_no(value: bool | None) -> str:
    return "-" if value is None else YES if value else NO


def _of(n: int, total: int) -> str:
    return f"{n}/{total} ({n / total:.0%})" if total else f"{n}/0"


def _task_cells(task: Mapping[str, Any]) -> list[str]:
    hidden = task["hidden"]
    ref = YES if task["reference_validated"] else (
        f"NO ({hidden['failed']} hidden failing)" if task["self_reported"] and hidden else "-"
    )  # fmt: skip
    return [
        task["id"],
        task["category"],
        task["status"],
        YES if task["self_reported"] else NO,
        ref,
        YES if task["first_pass"] else NO,
        str(task["iterations"]),
        str(task["candidates_screened"]),
        str(task["first_plausible"] or "-"),
        task["fix_family"] or "-",
        _yes_no(task.get("matches_reference")),
        f"{task['wall_s']:.1f}",
        str(task["tokens"]),
        f"{task['cost_usd']:.4f}",
        f"{task['new_fail_to_pass']}/{task['new_guard']}",
    ]


TASK_COLUMNS = (
    "task", "category", "status", "self-reported", "reference", "in round 1", "iter", "cand",
    "1st plausible", "fix family", "= ref fix", "wall s", "tokens", "cost $", "new tests f→p/guard",
)  # fmt: skip
# how many heals: in the first round, in a later round (a round that fixed only part of the
# failures handed the rest on), in all; a later round is a way to heal, not a repair that failed
GROUP_COLUMNS = (
    "category", "tasks", "healed in round 1", "healed in a later round", "self-reported",
    "reference-validated", "avg iter", "median wall s", "cand/s", "tokens/heal",
)  # fmt: skip
RATE_LABELS = {
    "first_pass_rate": "healed in round 1",
    "healed_after_repair_rate": "healed in a later round",
    "self_reported_rate": "self reported",
    "reference_validated_rate": "reference validated",
}


def _group_cells(name: str, group: Mapping[str, Any]) -> list[str]:
    return [
        name,
        str(group["tasks"]),
        _count(group, "first_pass"),
        _count(group, "healed_after_repair"),
        _count(group, "self_reported"),
        _count(group, "reference_validated"),
        f"{group['avg_iterations']:.2f}",
        f"{group['median_wall_s']:.1f}",
        f"{group['candidates_per_s']:.1f}",
        f"{group['tokens_per_heal']:.0f}",
    ]


FAMILY_COLUMNS = ("fix family", "tasks", "self-reported", "reference-validated", "= ref fix")
PLAUSIBLE_COLUMNS = (
    "tasks with one",
    "screenings to it: median",
    "mean",
    "max",
    "screenings after it: median",
)
CHOSEN_COLUMNS = ("self-reported heals", "reference-validated", "= ref fix", "compared with ref fix")


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _fix_quality_tables(quality: Mapping[str, Any]) -> list[tuple[str, tuple[str, ...], list[list[str]]]]:
    """(title, columns, rows) of the three fix-quality tables, for both renderings."""
    families = [
        [
            f["family"],
            str(f["tasks"]),
            _of(f["self_reported"], f["tasks"]),
            _of(f["reference_validated"], f["tasks"]),
            _of(f["matches_reference"], f["tasks"]),
        ]
        for f in quality["families"]
    ]
    first = quality["first_plausible"]
    plausible = [[
        str(first["tasks"]), _number(first["median"]), _number(first["mean"]), _number(first["max"]),
        _number(first["after_median"]),
    ]]  # fmt: skip
    chosen = quality["chosen_patch"]
    heals = chosen["self_reported"]
    patches = [[
        str(heals), _of(chosen["reference_validated"], heals), _of(chosen["matches_reference"], heals),
        f"{chosen['compared']}/{heals}",
    ]]  # fmt: skip
    return [
        ("fix quality: mutation families of the shipped fixes", FAMILY_COLUMNS, families),
        ("fix quality: candidates screened until the first plausible one", PLAUSIBLE_COLUMNS, plausible),
        ("fix quality: the chosen patch", CHOSEN_COLUMNS, patches),
    ]


def _notes(document: Mapping[str, Any]) -> list[str]:
    """Overfitting, baseline and gate lines, in that order (shared by both renderings)."""
    lines = []
    over = document["overfitting"]
    if over:
        lines.append(
            f"OVERFITTING: {len(over)} heal(s) pass the visible tests but fail hidden reference tests:"
        )
        for item in over:
            failing = ", ".join(item["hidden_failing"][:3])
            lines.append(f"  - {item['id']} ({item['category']}): {item['fix']} — hidden failing: {failing}")
            lines.extend(f"      {line}" for line in (item.get("patch") or "").splitlines())
    else:
        lines.append("Overfitting: none (every self-reported heal also passes its hidden reference tests)")
    healed = [t for t in document.get("tasks", []) if t.get("self_reported")]
    flagged = [t for t in healed if t.get("bypass") or t.get("overfit_flagged")]
    if flagged:
        said = ", ".join(f"{t['id']} ({'bypass' if t.get('bypass') else 'overfit risks'})" for t in flagged)
        lines.append(f"Flagged in its own pull request: {len(flagged)} of {len(healed)} heal(s): {said}")
    baseline = document["baseline"]
    if baseline:
        deltas = ", ".join(f"{k} {v:+g}" for k, v in baseline["overall"].items())
        lines.append(f"Against baseline {baseline['file']}: {deltas}")
        if baseline["newly_validated"]:
            lines.append(f"  newly reference-validated: {', '.join(baseline['newly_validated'])}")
        if baseline["no_longer_validated"]:
            lines.append(f"  no longer reference-validated: {', '.join(baseline['no_longer_validated'])}")
    gate = document["gate"]
    if gate:
        lines.append(f"Gate [{gate['subset']}] ({gate['file']}): {'PASSED' if gate['passed'] else 'FAILED'}")
        for check in gate["checks"]:
            sign = ">=" if check["key"].endswith("_min") else "<="
            state = "ok" if check["passed"] else "MISSED"
            lines.append(f"  {state}: {check['figure']} = {check['measured']:g} ({sign} {check['limit']:g})")
    return lines


def print_document(document: Mapping[str, Any], console: Console) -> None:
    tasks = Table(title=f"selfheal bench: {document['subset'] or 'chosen tasks'} — per task")
    for column in TASK_COLUMNS:
        tasks.add_column(column, overflow="fold")
    for task in document["tasks"]:
        style = "red" if task["self_reported"] and not task["reference_validated"] else None
        tasks.add_row(*_task_cells(task), style=style)
    console.print(tasks)

    groups = Table(title="per category")
    for column in GROUP_COLUMNS:
        groups.add_column(column)
    for name, group in document["categories"].items():
        groups.add_row(*_group_cells(name, group))
    groups.add_row(*_group_cells("OVERALL", document["overall"]), style="bold")
    console.print(groups)
    if document.get("fix_quality"):  # not in version 1 documents
        for title, columns, rows in _fix_quality_tables(document["fix_quality"]):
            table = Table(title=title)
            for column in columns:
                table.add_column(column)
            for row in rows:
                table.add_row(*row)
            console.print(table)
    for line in _calibration_lines(document.get("calibration")):
        console.print(line, markup=False, highlight=False)
    if (document.get("calibration") or {}).get("buckets"):
        table = Table(title="confidence: reliability (self-reported heals against the reference fixes)")
        for column in RELIABILITY_COLUMNS:
            table.add_column(column)
        for row in table_rows(document["calibration"]):
            table.add_row(*row)
        console.print(table)
    settings = document["settings"]
    console.print(
        f"provider {settings['provider']}, {settings['workers']} worker(s), sandbox {settings['sandbox']}; "
        f"benchmark wall time {document['wall_s']:.0f}s"
    )
    for line in _notes(document):
        alarming = line.startswith("OVERFITTING") or "FAILED" in line or "MISSED" in line
        style = "bold red" if alarming else None
        console.print(line, style=style, markup=False, highlight=False)


def _md_table(columns: tuple[str, ...], rows: list[list[str]]) -> str:
    def row(cells) -> str:
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    return "\n".join([row(columns), row(["---"] * len(columns)), *(row(r) for r in rows)])


def markdown(document: Mapping[str, Any]) -> str:
    overall = document["overall"]
    head = [
        f"## selfheal bench: {document['subset'] or 'chosen tasks'} ({document['settings']['provider']})",
        "",
        " · ".join(f"{RATE_LABELS[key]} **{overall[key]:.0%}**" for key in RATES)
        + f" · median wall {overall['median_wall_s']:.1f}s · {overall['candidates_per_s']:.1f} candidates/s",
        "",
    ]
    notes = _notes(document)
    return "\n".join([
        *head,
        "\n".join(f"> {line}" if not line.startswith("  ") else f">{line}" for line in notes),
        "",
        "### Per category",
        "",
        _md_table(GROUP_COLUMNS, [
            *(_group_cells(name, g) for name, g in document["categories"].items()),
            _group_cells("**overall**", overall),
        ]),
        "",
        *_md_fix_quality(document.get("fix_quality")),
        *_md_calibration(document.get("calibration")),
        "### Per task",
        "",
        _md_table(TASK_COLUMNS, [_task_cells(t) for t in document["tasks"]]),
        "",
    ])  # fmt: skip


def _md_fix_quality(quality: Mapping[str, Any] | None) -> list[str]:
    if not quality:
        return []
    lines = ["### Fix quality", ""]
    for title, columns, rows in _fix_quality_tables(quality):
        lines += [f"{title.removeprefix('fix quality: ').capitalize()}:", "", _md_table(columns, rows), ""]
    return lines


def _calibration_lines(calibration: Mapping[str, Any] | None) -> list[str]:
    """The confidence's figures in words: ECE, ready for review, and the heals left out."""
    if not calibration:
        return []
    lines = [f"Confidence: {summary_line(calibration)}", f"  ({calibration['definition']})"]
    if calibration["unjudged"]:
        lines.append(
            "  unjudged (validated, not the reference fix, no judgement of this patch in "
            f"evaluation/calibration/labels.toml; left out): {', '.join(calibration['unjudged'])}"
        )
    if calibration["unscored"]:
        lines.append(f"  no confidence recorded (left out): {', '.join(calibration['unscored'])}")
    if calibration["incorrect"]:
        lines.append(f"  not reference-correct: {', '.join(calibration['incorrect'])}")
    return lines


def _md_calibration(calibration: Mapping[str, Any] | None) -> list[str]:
    if not calibration:
        return []
    lines = ["### Confidence", "", *(f"- {line.strip()}" for line in _calibration_lines(calibration)), ""]
    if calibration["buckets"]:
        lines += [_md_table(RELIABILITY_COLUMNS, table_rows(calibration)), ""]
    return lines
