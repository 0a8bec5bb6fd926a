from __future__ import annotations

from pathlib import Path

import pytest

from evaluation.bench.gate import GateError, load_gate
from evaluation.bench.metrics import group_metrics
from tests.evaluation.helpers import healed, make_run

ROOT = Path(__file__).resolve().parents[2]
GATE = """
[smoke]
provider = "none"
reference_validated_rate_min = 0.75
median_wall_s_max = 30
tokens_per_heal_max = 0
"""


def test_a_run_that_meets_every_threshold_passes(tmp_path: Path):
    (tmp_path / "gate.toml").write_text(GATE)
    gate = load_gate(tmp_path / "gate.toml", "smoke", "none")
    checks = gate.check(group_metrics([healed("a", "x", wall_s=12.0), healed("b", "x", wall_s=20.0)]))
    assert [(c.key, c.measured, c.passed) for c in checks] == [
        ("reference_validated_rate_min", 1.0, True),
        ("median_wall_s_max", 16.0, True),
        ("tokens_per_heal_max", 0.0, True),
    ]


def test_a_missed_threshold_says_which_and_by_how_much(tmp_path: Path):
    (tmp_path / "gate.toml").write_text(GATE)
    gate = load_gate(tmp_path / "gate.toml", "smoke", "none")
    runs = [healed("a", "x", wall_s=50.0), make_run("b", "x", wall_s=40.0)]
    missed = [c for c in gate.check(group_metrics(runs)) if not c.passed]
    assert [c.describe() for c in missed] == [
        "MISSED: reference_validated_rate = 0.5 (threshold reference_validated_rate_min: >= 0.75)",
        "MISSED: median_wall_s = 45 (threshold median_wall_s_max: <= 30)",
    ]


def test_gate_files_that_cannot_be_used(tmp_path: Path):
    path = tmp_path / "gate.toml"
    path.write_text(GATE)
    with pytest.raises(GateError, match=r"no \[full\] thresholds \(sections: smoke\)"):
        load_gate(path, "full", "none")
    with pytest.raises(GateError, match="measured with provider 'none', this run uses 'anthropic'"):
        load_gate(path, "smoke", "anthropic")
    with pytest.raises(GateError, match="--gate needs --subset"):
        load_gate(path, None, "none")
    path.write_text("[smoke]\nreference_validated_rate = 0.5\n")
    with pytest.raises(GateError, match="unknown keys reference_validated_rate"):
        load_gate(path, "smoke", "none")
    path.write_text('[smoke]\nmedian_wall_s_max = "fast"\n')
    with pytest.raises(GateError, match="median_wall_s_max must be a number >= 0, not 'fast'"):
        load_gate(path, "smoke", "none")
    with pytest.raises(GateError, match="no such file"):
        load_gate(tmp_path / "missing.toml", "smoke", "none")


def test_the_repository_gate_has_smoke_and_full_thresholds_for_the_embedded_engine():
    for subset in ("smoke", "full"):
        gate = load_gate(ROOT / "evaluation" / "gate.toml", subset, "none")
        assert set(gate.limits) == {
            "reference_validated_rate_min",
            "median_wall_s_max",
            "tokens_per_heal_max",
        }
        assert 0 < gate.limits["reference_validated_rate_min"] < 1
