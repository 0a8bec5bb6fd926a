"""An overfitting heal is listed with the patch it shipped, in the JSON and in both renderings."""

from __future__ import annotations

import io
from dataclasses import replace

from rich.console import Console

from evaluation.bench.metrics import Summary
from evaluation.bench.output import build_document, validate
from evaluation.bench.record import TaskRun, from_report
from evaluation.bench.render import markdown, print_document
from tests.evaluation.helpers import healed
from tests.evaluation.test_output import SETTINGS

PATCH = "--- a/lib.py\n+++ b/lib.py\n@@ -1 +1 @@\n-    return x\n+    return 10 if x == 12 else x\n"


def test_the_overfitting_patch_is_in_the_document_and_printed():
    runs = [replace(healed("clamp", "tiny", validated=False), patch=PATCH), healed("other", "tiny")]
    document = build_document(runs, Summary.of(runs), settings=SETTINGS, subset="full", wall_s=3.0)
    validate(document)
    assert [(o["id"], o["patch"]) for o in document["overfitting"]] == [("clamp", PATCH)]
    assert ">      +    return 10 if x == 12 else x" in markdown(document).splitlines()
    out = io.StringIO()
    print_document(document, Console(file=out, width=200))
    assert "      +    return 10 if x == 12 else x" in out.getvalue().splitlines()


def test_a_record_keeps_the_patch_only_of_a_self_reported_heal():
    task = type("T", (), {"id": "t", "category": "c", "difficulty": "easy", "kind": ("k",)})()
    metrics = {"candidates_tried": 1, "candidates_screened": 1, "screen_s": 0.1, "wall_s": 1.0,
               "tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0}  # fmt: skip
    report = {"status": "healed", "metrics": metrics, "patch": PATCH}
    assert from_report(task, report, [], None, "0123456789ab").patch == PATCH
    not_healed = from_report(task, {**report, "status": "not_healed"}, [], None, "0123456789ab")
    assert not_healed.patch is None
    assert TaskRun.from_dict({k: v for k, v in not_healed.as_dict().items() if k != "patch"}).patch is None


def test_heals_their_own_pull_request_flagged_are_counted_in_the_notes():
    task = type("T", (), {"id": "words", "category": "c", "difficulty": "easy", "kind": ("k",)})()
    metrics = {"candidates_tried": 1, "candidates_screened": 1, "screen_s": 0.1, "wall_s": 1.0,
               "tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0}  # fmt: skip
    report = {"status": "healed", "metrics": metrics, "patch": PATCH, "bypass": ["lib.py: f"]}
    bypass = from_report(task, report, [], None, "0123456789ab")
    assert (bypass.bypass, bypass.overfit_flagged) == (True, False)
    not_healed = from_report(task, {**report, "status": "not_healed"}, [], None, "0123456789ab")
    assert not_healed.bypass is False
    runs = [bypass, replace(healed("scale", "tiny"), overfit_flagged=True), healed("other", "tiny")]
    document = build_document(runs, Summary.of(runs), settings=SETTINGS, subset="full", wall_s=3.0)
    validate(document)
    line = "Flagged in its own pull request: 2 of 3 heal(s): words (bypass), scale (overfit risks)"
    assert line in markdown(document)
    out = io.StringIO()
    print_document(document, Console(file=out, width=200))
    assert line in out.getvalue()
