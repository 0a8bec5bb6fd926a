"""`python -m evaluation.calibration --fit RESULTS.json ...`: fit the confidence on benchmark results.

Reads `selfheal bench --json` documents (the own tasks, the real bugs), labels every self-reported
heal (labels.py; unjudged ones are named and left out), takes each heal's features (features.py:
recorded, or rebuilt from an older record), fits the logistic regression (fit.py), measures it held
out, chooses the ready-for-review threshold, and writes the calibration the package ships
(selfheal/agent/report/calibration.json) with where every figure comes from, and a Markdown report
of the held-out reliability.

Exit codes: 0 written, 2 bad input (a file that is not a result, labels that cannot be read).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema

from evaluation.bench.output import runs_of, validate
from evaluation.calibration import fit as fitting
from evaluation.calibration.features import record_features
from evaluation.calibration.labels import LABELS, LabelsError, label_of, load_judgements
from evaluation.calibration.reliability import (
    COLUMNS,
    ECE_DEFINITION,
    chance_ece,
    reliability,
    summary_line,
    table_rows,
)
from evaluation.realbugs.manifest import load_manifest
from selfheal.agent.report.confidence import CALIBRATION_FILE, Calibration

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "selfheal" / "agent" / "report" / CALIBRATION_FILE
SUITE_NAMES = {"own": "own tasks", "realbugs": "real bugs"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.calibration", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--fit", nargs="+", type=Path, required=True, metavar="RESULTS.json")
    parser.add_argument("--labels", type=Path, default=LABELS, help="the judgements (default %(default)s)")
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="the calibration (default: the package's)"
    )
    parser.add_argument(
        "--report", type=Path, metavar="FILE.md", help="the held-out reliability, as Markdown"
    )
    parser.add_argument(
        "--commit", action="append", default=[], metavar="FILE=SHA",
        help="the engine commit a results file was measured at (its document does not say)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    try:
        judgements = load_judgements(args.labels)
        commits = dict(item.split("=", 1) for item in args.commit)
        sources = [_load(path, commits) for path in args.fit]
    except (LabelsError, OSError, ValueError, jsonschema.ValidationError) as exc:
        print(f"calibration: {exc}", file=sys.stderr)
        return 2
    heals, data, features = [], [], {}
    for source in sources:
        labelled, entry, where = _labelled(source, judgements)
        heals += labelled
        data.append(entry)
        features[source["suite"]] = where
    if len({h.correct for h in heals}) < 2:
        label = "correct" if heals and heals[0].correct else "wrong"
        print(
            f"calibration: the {len(heals)} labelled heals are all {label}: a probability cannot be fitted "
            "from one label",
            file=sys.stderr,
        )
        return 2
    calibration, held_out = calibrate(heals)
    provenance = {
        "data": data,
        "labels": {
            "file": _relative(args.labels),
            "sha256": _digest(args.labels.read_bytes()),
            "rules": "not validated by the hidden tests: not correct; validated and the reference fix "
            "(matches_reference): correct; otherwise a person's judgement in the labels file",
        },
        "features": features,
        **held_out,
    }
    calibration = Calibration(
        version="", intercept=calibration.intercept, terms=calibration.terms, threshold=calibration.threshold,
        measured_on=_measured_on(heals, data, held_out), provenance=provenance,
    )  # fmt: skip
    body = calibration.as_dict()
    version = "fit-" + _digest(json.dumps(body, sort_keys=True).encode())[:10]
    body["version"] = version
    args.out.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    text = report(body)
    if args.report:
        args.report.write_text(text, encoding="utf-8")
    print(text)
    print(f"calibration {version} written to {args.out}", file=sys.stderr)
    return 0


def calibrate(heals: Sequence[fitting.Heal]) -> tuple[Calibration, dict[str, Any]]:
    """The fitted model and threshold, and the held-out figures that chose them."""
    usable, left_out = fitting.usable_terms(heals)
    selection = fitting.select_terms(heals, usable)
    terms, l2, losses = list(selection.terms), selection.l2, dict(selection.losses)
    crossed = fitting.cross_validated(heals, terms, l2)
    threshold = fitting.choose_threshold(heals, crossed)
    apart = fitting.leave_suite_out(heals, terms, l2)
    intercept, fitted = fitting.fit(heals, terms, l2)
    apparent = fitting.predict(intercept, fitted, heals)
    suites = sorted({h.suite for h in heals})

    def tables(probabilities: Sequence[float | None]) -> dict[str, Any]:
        found = {}
        for suite in [*suites, "both"]:
            pairs = [
                (round(p, 2), h.correct)
                for h, p in zip(heals, probabilities, strict=True)
                if p is not None and (suite == "both" or h.suite == suite)
            ]
            if pairs:
                median, p90 = chance_ece([p for p, _ in pairs])
                table = reliability(pairs, threshold).as_dict()
                found[suite] = {**table, "chance_ece": {"median": median, "p90": p90}}
        return found

    held_out = {
        "model": {
            "terms_left_out": left_out,
            "selection": {
                "how": "forward selection: from the intercept alone, add the usable term that lowers the "
                f"cross-validated log loss most (each model at its best penalty) while it lowers it by at "
                f"least {fitting.MIN_GAIN}; the same folds choose the terms and report the held-out "
                "figures below, which makes those a little optimistic",
                "steps": [{"kept": name, "log_loss": loss} for name, loss in selection.steps],
                "not_kept": {name: round(loss, 4) for name, loss in sorted(selection.not_kept.items())},
            },
            "l2": l2,
            "l2_chosen_by": f"the lowest mean log loss over {fitting.FOLDS}-fold cross-validation "
            f"({fitting.REPEATS} repeats) among {list(fitting.L2_GRID)}: {losses}",
        },
        "threshold_rule": f"the lowest of 0.50, 0.51, ..., 0.99 at which, in every suite, the heals whose "
        f"cross-validated probability (two decimals) reaches it are at least {fitting.READY_PRECISION:.0%} "
        f"reference-correct; {fitting.NEVER} when none is",
        "definition": ECE_DEFINITION,
        "held_out": {
            "cross_validation": {
                "how": f"{fitting.FOLDS}-fold cross-validation over both suites together, folds "
                "stratified by the label and assigned by a hash of suite and task id, repeated "
                f"{fitting.REPEATS} times with other hashes; each heal's probability is the mean of "
                "its held-out probabilities",
                "tables": tables(crossed),
            },
            "leave_one_suite_out": {
                "how": "fitted on the other suite's heals only (same terms and penalty), each heal "
                "scored by that model: how the model carries to code it was not fitted on",
                "tables": tables(apart),
            },
        },
        "in_sample": {
            "how": "the shipped model on the heals it was fitted on: optimistic, for comparison only",
            "tables": tables(apparent),
        },
    }
    calibration = Calibration(version="", intercept=intercept, terms=tuple(fitted), threshold=threshold)
    return calibration, held_out


def _load(path: Path, commits: dict[str, str]) -> dict[str, Any]:
    document = json.loads(path.read_text(encoding="utf-8"))
    validate(document)
    suite = (document.get("settings") or {}).get("suite") or _infer_suite(document)
    return {
        "path": path,
        "document": document,
        "suite": suite,
        "commit": commits.get(str(path)) or commits.get(path.name),
    }


def _infer_suite(document: dict[str, Any]) -> str:
    """A document from before the bench wrote its suite: real bugs when every task is in the manifest."""
    ids = {t["id"] for t in document["tasks"]}
    known = {bug.id for bug in load_manifest().bugs}
    return "realbugs" if ids and ids <= known else "own"


def _labelled(
    source: dict[str, Any], judgements
) -> tuple[list[fitting.Heal], dict[str, Any], dict[str, str]]:
    suite, document = source["suite"], source["document"]
    heals: list[fitting.Heal] = []
    unjudged: list[str] = []
    how: dict[str, int] = {}
    where: dict[str, str] = {}
    for run in runs_of(document):
        label = label_of(run, suite, judgements)
        if label is None:
            continue
        how[label.how] = how.get(label.how, 0) + 1
        if label.correct is None:
            unjudged.append(run.id)
            continue
        features, where = record_features(run, suite)
        heals.append(fitting.Heal(suite, run.id, features, label.correct))
    entry = {
        "file": _relative(source["path"]),
        "sha256": _digest(source["path"].read_bytes()),
        "suite": suite,
        "created": document.get("created"),
        "engine_commit": source["commit"],
        "settings": document.get("settings"),
        "tasks": len(document["tasks"]),
        "self_reported": sum(how.values()),
        "labelled": len(heals),
        "correct": sum(h.correct for h in heals),
        "labels_by": how,
        "unjudged": unjudged,
    }
    return heals, entry, where


def _measured_on(heals: Sequence[fitting.Heal], data: list[dict[str, Any]], held_out: dict[str, Any]) -> str:
    commits = sorted({d["engine_commit"] for d in data if d["engine_commit"]})
    parts = ", ".join(f"{d['labelled']} {SUITE_NAMES.get(d['suite'], d['suite'])}" for d in data)
    tables = held_out["held_out"]["cross_validation"]["tables"]
    eces = ", ".join(
        f"{tables[s]['ece']:.2f} {SUITE_NAMES.get(s, s)}"
        for s in tables
        if s != "both" and tables[s]["ece"] is not None
    )
    at = f" at {', '.join(commits)}" if commits else ""
    return (
        f"fitted on {len(heals)} benchmark heals labelled against the reference fixes ({parts}{at}); "
        f"held-out expected calibration error {eces}"
    )


def report(body: dict[str, Any]) -> str:
    """The calibration as Markdown: data, model, threshold, the held-out reliability tables."""
    provenance = body["provenance"]
    lines = [
        f"## Confidence calibration {body['version']}",
        "",
        body["measured_on"] + ".",
        "",
        "### Data",
        "",
        "| file | suite | engine | tasks | self-reported | labelled | reference-correct | labels by | "
        "unjudged |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for d in provenance["data"]:
        by = ", ".join(f"{k} {v}" for k, v in sorted(d["labels_by"].items()))
        cells = [
            d["file"], d["suite"], d["engine_commit"] or "-", d["tasks"], d["self_reported"], d["labelled"],
            d["correct"], by, ", ".join(d["unjudged"]) or "-",
        ]  # fmt: skip
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    model = provenance["model"]
    lines += [
        "",
        "### Model",
        "",
        f"Logistic regression, L2 penalty {model['l2']:g} ({model['l2_chosen_by']}).",
        "",
    ]
    lines += ["| term | feature | transform | coefficient | center | scale |", "|---|---|---|---|---|---|"]
    lines.append(f"| intercept | | | {body['intercept']:+.3f} | | |")
    for t in body["terms"]:
        transform = t["transform"] + (f" {t['argument']}" if "argument" in t else "")
        cells = [
            t["name"],
            t["feature"],
            transform,
            f"{t['coefficient']:+.3f}",
            f"{t['center']:.3g}",
            f"{t['scale']:.3g}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    selection = model["selection"]
    steps = ", then ".join(f"{s['kept']} ({s['log_loss']:.4f})" for s in selection["steps"])
    lines += ["", f"Terms: {selection['how']}. Log loss: {steps}.", ""]
    if selection["not_kept"]:
        lines += ["Usable terms not kept (the log loss with each one added):", ""]
        lines += [f"- {name}: {loss:.4f}" for name, loss in selection["not_kept"].items()]
    lines += ["", "Terms left out before selection:", ""]
    lines += [f"- {name}: {why}" for name, why in model["terms_left_out"].items()]
    for suite, where in provenance["features"].items():
        lines += ["", f"Where the features of the {SUITE_NAMES.get(suite, suite)} come from:", ""]
        lines += [f"- {name}: {source}" for name, source in where.items()]
    ready = f"Ready for review at a confidence of **{body['threshold']:.2f}** or more"
    lines += ["", "### Threshold", "", f"{ready}: {provenance['threshold_rule']}.", ""]
    lines += [f"The {provenance['definition']}.", ""]
    sections = [
        ("Held out: cross-validation", provenance["held_out"]["cross_validation"]),
        ("Held out: leave one suite out", provenance["held_out"]["leave_one_suite_out"]),
        ("In sample (optimistic)", provenance["in_sample"]),
    ]
    for title, section in sections:
        lines += [f"### {title}", "", section["how"] + ".", ""]
        for suite, table in section["tables"].items():
            lines += [f"**{SUITE_NAMES.get(suite, suite)}**: {summary_line(table)}", ""]
            lines += ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
            lines += ["| " + " | ".join(row) + " |" for row in table_rows(table)]
            lines.append("")
    return "\n".join(lines)


def _relative(path: Path) -> str:
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


if __name__ == "__main__":
    sys.exit(main())
