"""The confidence's calibration (evaluation/calibration): labels, the reliability table and its
expected calibration error, the logistic fit and its held-out figures, and the bench's report."""

from __future__ import annotations

import io
import json
import math
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from evaluation.bench.metrics import Summary
from evaluation.bench.output import build_document, runs_of, validate
from evaluation.bench.record import TaskRun, from_report
from evaluation.bench.render import markdown, print_document
from evaluation.calibration import fit as fitting
from evaluation.calibration.__main__ import main as calibration_main
from evaluation.calibration.features import record_features
from evaluation.calibration.labels import (
    Judgement,
    LabelsError,
    label_of,
    load_judgements,
    patch_digest,
)
from evaluation.calibration.reliability import bucket_of, chance_ece, reliability
from selfheal.agent.report.confidence import FEATURES, Calibration, Term, load_calibration
from tests.evaluation.helpers import healed, make_run

RESULTS = Path(__file__).resolve().parents[2] / "evaluation" / "results"
SETTINGS = {
    "suite": "own", "provider": "none", "model": None, "workers": 2, "sandbox": "local", "seed": 0,
    "max_candidates": 1500, "max_minutes": 10.0, "max_iterations": 3, "task_timeout_s": 900.0,
}  # fmt: skip
PATCH = """\
diff --git a/pkg/age.py b/pkg/age.py
index 1111111..2222222 100644
--- a/pkg/age.py
+++ b/pkg/age.py
@@ -1,2 +1,2 @@
 def is_adult(age):
-    return age > 18
+    return age >= 18
"""


def test_the_table_buckets_heals_by_confidence_and_weighs_each_bucket_s_error():
    scored = [(0.95, True), (0.92, True), (0.85, True), (0.81, False), (0.55, False), (0.52, True)]
    table = reliability(scored, threshold=0.85)
    assert [(b.low, b.high, b.heals, b.correct, b.mean_confidence, b.precision) for b in table.buckets] == [
        (0.5, 0.6, 2, 1, 0.535, 0.5),
        (0.8, 0.9, 2, 1, 0.83, 0.5),
        (0.9, 1.0, 2, 2, 0.935, 1.0),
    ]
    # (|0.5 - 0.535| + |0.5 - 0.83| + |1.0 - 0.935|) / 3
    assert table.ece == round((0.035 + 0.33 + 0.065) / 3, 4) == 0.1433
    assert (table.heals, table.correct, table.ready, table.ready_correct, table.ready_precision) == (
        6, 4, 3, 3, 1.0
    )  # fmt: skip
    recorded = reliability(scored, threshold=0.85, ready=[True, False, False, True, False, False])
    assert (recorded.ready, recorded.ready_correct, recorded.ready_precision) == (2, 1, 0.5)
    empty = reliability([], threshold=0.9)
    assert (empty.ece, empty.ready, empty.ready_precision, empty.buckets) == (None, 0, None, ())


def test_a_confidence_falls_in_the_bucket_of_its_hundredths():
    assert [bucket_of(c) for c in (0.0, 0.09, 0.1, 0.5, 0.899, 0.9, 0.999, 1.0)] == [0, 0, 1, 5, 9, 9, 9, 9]


def test_the_patch_digest_ignores_what_changes_when_the_patch_does_not():
    moved = PATCH.replace("index 1111111..2222222 100644\n", "index 3333333..4444444 100644\n").replace(
        "@@ -1,2 +1,2 @@", "@@ -7,2 +7,2 @@"
    )
    trailing = PATCH.replace("age >= 18\n", "age >= 18   \n")
    assert patch_digest(moved) == patch_digest(trailing) == patch_digest(PATCH)
    assert patch_digest(PATCH.replace("age >= 18", "age >= 17")) != patch_digest(PATCH)


def test_a_heal_is_labelled_by_its_hidden_tests_the_reference_or_a_judgement():
    judged = {
        ("own", "a", patch_digest(PATCH)): Judgement("own", "a", patch_digest(PATCH), False, "skips it")
    }
    assert label_of(make_run("a", "x"), "own", judged) is None  # not self-reported: no label
    failing = label_of(healed("a", "x", validated=False, patch=PATCH), "own", judged)
    assert (failing.correct, failing.how) == (False, "hidden tests fail")
    same = label_of(healed("a", "x", patch=PATCH, matches_reference=True), "own", judged)
    assert (same.correct, same.how) == (True, "reference fix")
    read = label_of(healed("a", "x", patch=PATCH, matches_reference=False), "own", judged)
    assert (read.correct, read.how, read.reason) == (False, "judged", "skips it")
    changed = label_of(
        healed("a", "x", patch=PATCH.replace("18", "21"), matches_reference=False), "own", judged
    )
    assert (changed.correct, changed.how) == (None, "unjudged")
    other_suite = label_of(healed("a", "x", patch=PATCH, matches_reference=False), "realbugs", judged)
    assert other_suite.correct is None


def test_the_labels_file_is_checked(tmp_path: Path):
    twice = tmp_path / "twice.toml"
    entry = (
        '[[judgement]]\nsuite = "own"\ntask = "a"\npatch = "0123456789ab"\ncorrect = true\nreason = "same"\n'
    )
    twice.write_text(entry + entry)
    with pytest.raises(LabelsError, match="a \\(0123456789ab\\) is judged twice"):
        load_judgements(twice)
    bad = tmp_path / "bad.toml"
    bad.write_text(entry.replace('"own"', '"theirs"'))
    with pytest.raises(LabelsError, match="judgement 1 \\(a\\): suite or correct is wrong"):
        load_judgements(bad)
    missing = tmp_path / "missing.toml"
    missing.write_text(entry.replace('reason = "same"\n', ""))
    with pytest.raises(LabelsError, match="judgement 1 has no 'reason'"):
        load_judgements(missing)


@pytest.mark.parametrize(
    ("name", "suite", "heals", "correct"),
    [
        ("full-embedded.json", "own", 47, 44),
        ("full-embedded-9f39014.json", "own", 47, 44),
        ("full-embedded-f937b19.json", "own", 47, 44),
        ("full-embedded-f937b19-rerun.json", "own", 47, 44),
        ("full-embedded-88ab74a.json", "own", 46, 43),
        ("realbugs-full-embedded.json", "realbugs", 18, 9),
        ("realbugs-full-embedded-9f39014.json", "realbugs", 18, 9),
        ("realbugs-full-embedded-f937b19.json", "realbugs", 18, 9),
        ("realbugs-full-embedded-88ab74a.json", "realbugs", 18, 9),
    ],
)
def test_every_heal_of_the_saved_results_has_a_label(name: str, suite: str, heals: int, correct: int):
    runs = runs_of(json.loads((RESULTS / name).read_text()))
    labels = [label_of(r, suite, load_judgements()) for r in runs if r.self_reported]
    assert [lab for lab in labels if lab.correct is None] == []
    assert (len(labels), sum(lab.correct for lab in labels)) == (heals, correct)


def test_every_judgement_names_a_heal_of_the_saved_results():
    digests = set()
    for name in sorted(p.name for p in RESULTS.glob("*full-embedded*.json")):
        suite = "realbugs" if name.startswith("realbugs") else "own"
        for run in runs_of(json.loads((RESULTS / name).read_text())):
            if run.self_reported:
                digests.add((suite, run.id, patch_digest(run.patch or "")))
    assert set(load_judgements()) <= digests  # none is about a patch no result ships


def test_an_older_record_rebuilds_what_it_can_and_a_new_one_is_read_as_recorded():
    patch = PATCH + PATCH.replace("pkg/age.py", "pkg/other.py")
    old = replace(
        healed("countdown-latch-barrier", "x", patch=patch, bypass=True, new_fail_to_pass=3, iterations=2),
        first_plausible=12, candidates_screened=52, fix_family="comparison-operator+off-by-one, name",
    )  # fmt: skip
    features, sources = record_features(old, "own")
    assert {k: features[k] for k in ("bypass", "overfit_risks", "family_prior", "screened_before")} == {
        "bypass": True, "overfit_risks": 0, "family_prior": 0.45, "screened_before": 12,
    }  # fmt: skip
    assert (features["screened_after"], features["patch_lines"], features["fixes"], features["rounds"]) == (
        40, 4, 2, 2
    )  # fmt: skip
    assert features["failing_tests"] == 3  # the task's visible_failing
    assert (features["new_tests_proven"], features["judgement"]) == (3, "none")
    assert (features["line_rank"], features["plausible"], features["open"]) == (None, None, None)
    assert sources["line_rank"] == "not in the record: None (not measured)"
    assert features["source_lines"] == 70  # the task's base repository, counted as a heal counts it
    assert sources["source_lines"].startswith("counted as the heal counts it")
    # a record from before a feature was measured: what it holds as recorded, the rest rebuilt
    partial = replace(old, features={"line_rank": 4, "plausible": 2, "bypass": None})
    features, sources = record_features(partial, "own")
    assert (features["line_rank"], features["plausible"], features["bypass"]) == (4, 2, None)
    assert (features["source_lines"], features["screened_before"]) == (70, 12)
    assert (sources["line_rank"], sources["bypass"]) == ("recorded by the heal", "recorded by the heal")
    assert (
        sources["screened_before"] == "the record's `first_plausible` (the trace's first plausible screening)"
    )
    complete = replace(old, features=dict.fromkeys(FEATURES, 7))
    features, sources = record_features(complete, "own")
    assert features == dict.fromkeys(FEATURES, 7)  # nothing rebuilt over what the heal measured
    assert set(sources.values()) == {"recorded by the heal"}


def heal(task: str, correct: bool, suite: str = "own", **features) -> fitting.Heal:
    return fitting.Heal(suite, task, features, correct)


def test_an_intercept_alone_learns_the_base_rate():
    heals = [heal("a", True), heal("b", True), heal("c", True), heal("d", False)]
    intercept, terms = fitting.fit(heals, [], l2=1.0)
    assert terms == [] and math.isclose(intercept, math.log(3), abs_tol=1e-5)
    assert [round(p, 4) for p in fitting.predict(intercept, [], heals[:1])] == [0.75]


def test_a_term_learns_its_sign_and_is_standardised_on_the_fitted_heals():
    heals = [heal(f"t{i}", i % 4 != 0, bypass=i % 4 == 0) for i in range(12)] + [heal("u", True, bypass=True)]
    intercept, [term] = fitting.fit(heals, [Term("bypass", "bypass", "flag")], l2=1.0)
    assert term.coefficient < 0 < intercept
    assert (term.center, term.low, term.high) == (round(4 / 13, 6), 0.0, 1.0)
    assert term.scale == round(math.sqrt(4 / 13 * 9 / 13), 6)
    again = fitting.fit(heals, [Term("bypass", "bypass", "flag")], l2=1.0)
    assert again == (intercept, [term])  # deterministic
    with_bypass, without = fitting.predict(intercept, [term], [heals[0], heals[1]])
    assert with_bypass < 0.5 < without


def test_terms_without_data_are_left_out_and_said_why():
    heals = [
        heal(f"t{i}", True, bypass=i < 3, plausible=None, fixes=1, family_prior=0.1 * i) for i in range(10)
    ]
    candidates = (
        fitting.CANDIDATE_TERMS[0],
        Term("plausible:log2", "plausible", "log2p1"),
        Term("fixes:several", "fixes", "at_least", argument=2),
        Term("family_prior", "family_prior", "value"),
    )
    terms, left_out = fitting.usable_terms(heals, candidates)
    assert [t.name for t in terms] == ["bypass", "family_prior"]
    assert left_out == {
        "plausible:log2": "plausible measured in 0 of 10 heals",
        "fixes:several": "fixes takes one value (0) in every heal that has it",
    }
    few = [heal(f"t{i}", True, bypass=i < 1) for i in range(10)]
    assert fitting.usable_terms(few, fitting.CANDIDATE_TERMS[:1])[1] == {
        "bypass": "nearly constant: 9 of 10 heals have the same value (0)"
    }


def test_forward_selection_keeps_the_term_that_predicts_and_not_the_noise():
    # `size` decides the label (small: right, large: wrong but for one); `noise` is unrelated to it
    heals = [
        heal(f"t{i}", i < 20 or i == 29, size=50 + i if i < 20 else 5000 + i, noise=(i * 7) % 5)
        for i in range(30)
    ]
    usable = [Term("size:log2", "size", "log2p1"), Term("noise", "noise", "value")]
    selection = fitting.select_terms(heals, usable)
    assert [t.name for t in selection.terms] == ["size:log2"]
    assert [name for name, _ in selection.steps] == ["intercept", "size:log2"]
    assert selection.steps[1][1] < selection.steps[0][1] - fitting.MIN_GAIN  # it paid for its place
    assert set(selection.not_kept) == {"noise"}
    assert selection.not_kept["noise"] > selection.steps[1][1] - fitting.MIN_GAIN  # and noise did not
    assert selection.losses[selection.l2] == selection.steps[-1][1]
    assert fitting.select_terms(heals, usable) == selection  # deterministic


def test_perfect_calibration_on_few_heals_still_shows_an_error_by_chance():
    few, many = chance_ece([0.5] * 18), chance_ece([0.5] * 1800)
    assert few == chance_ece([0.5] * 18)  # seeded
    # one bucket of 18 heals at 0.5: the error is |k - 9| / 18 for k right of 18, Binomial(18, 0.5):
    # |k - 9| <= 1 in 52 % of draws (the median, 1/18), <= 3 in 92 % (the 90th percentile, 3/18)
    assert few == (round(1 / 18, 4), round(3 / 18, 4))
    assert many[1] < 0.03  # on 1800 heals chance hardly shows
    certain = chance_ece([1.0] * 10)
    assert certain == (0.0, 0.0)  # a confidence of 1 is always right when drawn from itself


def test_folds_are_stratified_and_the_same_every_time():
    heals = [heal(f"t{i}", i < 10) for i in range(15)]
    folds = fitting.folds_of(heals, repeat=0, folds=5)
    assert folds == fitting.folds_of(heals, repeat=0, folds=5)
    for k in range(5):
        members = [h for h, f in zip(heals, folds, strict=True) if f == k]
        assert (sum(h.correct for h in members), sum(not h.correct for h in members)) == (2, 1)
    assert folds != fitting.folds_of(heals, repeat=1, folds=5)


def test_the_threshold_is_the_lowest_at_which_every_suite_is_precise_enough():
    heals = [
        heal("a", True), heal("b", True), heal("c", False), heal("d", True),
        heal("e", True, "realbugs"), heal("f", False, "realbugs"), heal("g", True, "realbugs"),
    ]  # fmt: skip
    probabilities = [0.95, 0.9, 0.8, 0.6, 0.93, 0.88, 0.7]
    # at 0.81 the own tasks are 2/2 right, but the real bugs 1/2 (0.88 is wrong); at 0.89 both hold
    assert fitting.choose_threshold(heals, probabilities) == 0.89
    assert fitting.choose_threshold(heals[:3], [0.95, 0.9, 0.8]) == 0.81
    assert fitting.choose_threshold([heal("a", False)], [0.999]) == fitting.NEVER


def test_leaving_a_suite_out_scores_it_with_the_other_suite_s_model():
    heals = [heal(f"o{i}", i != 0) for i in range(4)] + [
        heal(f"r{i}", i % 2 == 0, "realbugs") for i in range(4)
    ]
    apart = fitting.leave_suite_out(heals, [], l2=1.0)
    assert [round(p, 4) for p in apart] == [0.5] * 4 + [0.75] * 4
    assert fitting.leave_suite_out(heals[:4], [], l2=1.0) == [None] * 4


def test_the_shipped_calibration_is_the_fit_of_the_results_it_names(tmp_path: Path):
    shipped = load_calibration()
    named = shipped.provenance["data"]
    root = RESULTS.parents[1]
    files = [str(root / d["file"]) for d in named]
    commits = [f"{Path(d['file']).name}={d['engine_commit']}" for d in named if d["engine_commit"]]
    out, report = tmp_path / "calibration.json", tmp_path / "calibration.md"
    arguments = [
        "--fit",
        *files,
        *(f"--commit={c}" for c in commits),
        "--out",
        str(out),
        "--report",
        str(report),
    ]
    assert calibration_main(arguments) == 0
    body = json.loads(out.read_text())
    assert body == shipped.as_dict()  # refit after changing the labels, the features or the fit
    assert Calibration.from_dict(body) == shipped
    text = report.read_text()
    assert "### Held out: cross-validation" in text and "### Held out: leave one suite out" in text


def test_the_fit_of_the_runs_at_f937b19_says_where_each_figure_comes_from(tmp_path: Path):
    out = tmp_path / "calibration.json"
    code = calibration_main([
        "--fit", str(RESULTS / "full-embedded-f937b19.json"),
        str(RESULTS / "realbugs-full-embedded-f937b19.json"),
        "--commit", "full-embedded-f937b19.json=f937b19", "--out", str(out),
    ])  # fmt: skip
    assert code == 0
    body = json.loads(out.read_text())
    data = body["provenance"]["data"]
    assert [
        (d["suite"], d["engine_commit"], d["self_reported"], d["labelled"], d["correct"]) for d in data
    ] == [
        ("own", "f937b19", 47, 47, 44),
        ("realbugs", None, 18, 18, 9),
    ]
    assert data[1]["labels_by"] == {"hidden tests fail": 3, "judged": 9, "reference fix": 6}
    assert body["provenance"]["features"]["realbugs"]["line_rank"] == "not in the record: None (not measured)"
    tables = body["provenance"]["held_out"]["cross_validation"]["tables"]
    assert set(tables) == {"own", "realbugs", "both"} and tables["both"]["heals"] == 65
    left_out = body["provenance"]["model"]["terms_left_out"]
    assert left_out["line_rank:log2"] == "line_rank measured in 0 of 65 heals"
    assert left_out["bypass"] == "nearly constant: 63 of 65 heals have the same value (0)"
    assert 0.5 <= body["threshold"] <= 1.0 and body["version"].startswith("fit-")


def test_the_fit_refuses_heals_that_are_all_right(tmp_path: Path, capsys):
    runs = [replace(healed(t, "x"), matches_reference=True) for t in ("a", "b", "c")]
    document = build_document(runs, Summary.of(runs), settings=SETTINGS, subset="full", wall_s=1.0)
    results = tmp_path / "all-right.json"
    results.write_text(json.dumps(document))
    assert calibration_main(["--fit", str(results), "--out", str(tmp_path / "c.json")]) == 2
    assert "the 3 labelled heals are all correct: a probability cannot be fitted" in capsys.readouterr().err
    assert not (tmp_path / "c.json").exists()


def scored_run(task: str, confidence: float, ready: bool, **changes) -> TaskRun:
    return replace(healed(task, "x", patch=PATCH, **changes), confidence=confidence, ready=ready, features={})


def test_the_bench_prints_and_saves_the_reliability_of_its_heals():
    runs = [
        scored_run("a", 0.93, True, matches_reference=True),
        scored_run("b", 0.91, True, matches_reference=False),  # judged: not correct
        scored_run("c", 0.62, False, validated=False),
        scored_run("d", 0.88, False, matches_reference=False),  # no judgement of its patch
        replace(healed("e", "x", matches_reference=True), confidence=None),  # a record from before
        make_run("f", "y"),
    ]
    judged = {
        ("own", "b", patch_digest(PATCH)): Judgement("own", "b", patch_digest(PATCH), False, "skips it")
    }
    summary = Summary.of(runs, suite="own", judgements=judged, threshold=0.9)
    table = summary.calibration
    assert [(b.low, b.heals, b.correct) for b in table.table.buckets] == [(0.6, 1, 0), (0.9, 2, 1)]
    assert table.table.ece == round((0.62 + abs(0.5 - 0.92) * 2) / 3, 4) == 0.4867
    assert (table.table.ready, table.table.ready_correct, table.table.ready_precision) == (2, 1, 0.5)
    assert (table.unjudged, table.unscored, table.incorrect) == (("d",), ("e",), ("b", "c"))
    assert table.labels == {"a": "reference fix", "b": "judged", "c": "hidden tests fail", "d": "unjudged",
                            "e": "reference fix"}  # fmt: skip
    document = build_document(runs, summary, settings=SETTINGS, subset="full", wall_s=1.0)
    validate(document)
    assert document["calibration"]["ece"] == 0.4867
    assert runs_of(document) == runs  # the records keep their confidence through the JSON
    out = io.StringIO()
    print_document(document, Console(file=out, width=220))
    printed = out.getvalue()
    assert (
        "Confidence: expected calibration error 0.487 over 3 labelled heals (1 reference-correct); ready for "
        "review (confidence >= 0.90): 2, 1 correct (50%)" in printed
    )
    assert "unjudged (validated, not the reference fix, no judgement of this patch in" in printed
    assert "no confidence recorded (left out): e" in printed
    assert "│ 0.9-1.0    │ 2     │ 1                 │ 0.92            │ 50%       │" in printed
    text = markdown(document)
    assert "### Confidence\n\n- Confidence: expected calibration error 0.487" in text
    assert "| 0.6-0.7 | 1 | 0 | 0.62 | 0% |\n| 0.9-1.0 | 2 | 1 | 0.92 | 50% |" in text


def test_a_record_reads_the_confidence_of_its_report_and_an_older_one_loads_without():
    report = {
        "status": "healed", "iterations": 1, "fixes": [], "new_tests": [], "patch": PATCH,
        "metrics": {"candidates_tried": 3, "candidates_screened": 3, "screen_s": 1.0, "wall_s": 2.0,
                    "tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0},
        "confidence": {"probability": 0.87, "ready": True, "threshold": 0.85, "reasons": [],
                       "features": {"plausible": 2}, "model": "fit-x"},
    }  # fmt: skip
    task = type("T", (), {"id": "a", "category": "x", "difficulty": "easy", "kind": ("k",)})()
    run = from_report(task, report, [], None, "0123456789ab")
    assert (run.confidence, run.ready, run.features) == (0.87, True, {"plausible": 2})
    older = json.loads((RESULTS / "full-embedded-f937b19.json").read_text())["tasks"][0]
    assert "confidence" not in older
    assert (TaskRun.from_dict(older).confidence, TaskRun.from_dict(older).features) == (None, None)
