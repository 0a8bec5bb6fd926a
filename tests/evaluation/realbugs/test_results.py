"""The saved real-bug runs are benchmark documents, and the smoke subset is what the gate measured."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from evaluation.bench.output import validate
from evaluation.realbugs.manifest import load_manifest

ROOT = Path(__file__).resolve().parents[3]
RESULTS = ROOT / "evaluation" / "results"


def test_the_saved_real_bug_runs_validate_and_name_manifest_bugs():
    manifest = {bug.id: bug for bug in load_manifest().bugs}
    for name in ("realbugs-full-embedded.json", "realbugs-smoke-embedded.json"):
        document = json.loads((RESULTS / name).read_text())
        validate(document)
        assert document["settings"]["provider"] == "none"
        assert document["settings"]["max_minutes"] == 1.5
        assert {task["id"] for task in document["tasks"]} <= set(manifest)
        assert all(task["category"] == manifest[task["id"]].project for task in document["tasks"])


def test_the_smoke_gate_is_the_smoke_run_and_its_subset():
    manifest = load_manifest()
    smoke = json.loads((RESULTS / "realbugs-smoke-embedded.json").read_text())
    gate = tomllib.loads((ROOT / "evaluation" / "gate.toml").read_text())["realbugs-smoke"]
    assert sorted(t["id"] for t in smoke["tasks"]) == sorted(manifest.subsets["realbugs-smoke"])
    assert len(manifest.subsets["realbugs-smoke"]) <= 8
    assert smoke["overall"]["reference_validated_rate"] >= gate["reference_validated_rate_min"]
    assert smoke["overall"]["median_wall_s"] <= gate["median_wall_s_max"]


def test_the_manifest_spans_projects_and_leaves_out_bugsinpy():
    bugs = load_manifest().bugs
    projects = {bug.project for bug in bugs}
    bugsinpy = {
        "ansible", "black", "cookiecutter", "fastapi", "httpie", "keras", "luigi", "matplotlib",
        "pandas", "PySnooper", "sanic", "scrapy", "spacy", "thefuck", "tornado", "tqdm", "youtube-dl",
    }  # fmt: skip
    assert not projects & bugsinpy
    # 20 bugs of 9 projects, rb-grow-a's 14 (3 new projects) and rb-grow-b's 13 (5 new projects),
    # then rb-grow-a's 9 more (natsort, tabulate, python-slugify) and rb-grow-b2's 12 (voluptuous,
    # toolz, pydash, jsonpointer): 7 new projects
    assert len(bugs) == 68 and len(projects) == 24
    assert sum("multi-function" in bug.kind for bug in bugs) >= 5
