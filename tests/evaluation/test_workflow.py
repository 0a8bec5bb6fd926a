"""The benchmark workflow: what it runs, when, and how the model job skips without its secret."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "benchmark.yml"


def load() -> dict:
    data = yaml.safe_load(WORKFLOW.read_text())
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def steps_running(job: dict, text: str) -> list[dict]:
    return [s for s in job["steps"] if text in s.get("run", "")]


def uses(job: dict, action: str) -> list[dict]:
    return [s for s in job["steps"] if s.get("uses", "").startswith(action + "@")]


def test_it_runs_on_pull_requests_and_pushes_to_main():
    triggers = load()["on"]
    assert set(triggers) == {"pull_request", "push"}
    assert triggers["push"] == {"branches": ["main"]}
    assert load()["permissions"] == {"contents": "read"}


def test_the_smoke_job_runs_the_embedded_engine_with_the_gate_and_uploads_its_results():
    job = load()["jobs"]["smoke"]
    [bench] = steps_running(job, "selfheal bench")
    command = bench["run"]
    assert "--subset smoke" in command
    assert "--gate evaluation/gate.toml" in command
    assert "--provider" not in command  # the embedded engine: no model, no secret
    assert "--json bench-results/smoke.json" in command and "--plot bench-results/smoke.png" in command
    [upload] = uses(job, "actions/upload-artifact")
    assert upload["if"] == "${{ always() }}"  # a missed gate still leaves its results behind
    assert upload["with"]["path"] == "bench-results/"
    assert "secrets." not in WORKFLOW.read_text().split("full-model:")[0]


def test_the_model_job_runs_the_full_set_only_when_its_secret_is_there():
    job = load()["jobs"]["full-model"]
    check, *rest = job["steps"]
    assert check["id"] == "secret"
    assert check["env"] == {"ANTHROPIC_API_KEY": "${{ secrets.ANTHROPIC_API_KEY }}"}
    assert all("steps.secret.outputs.configured == 'true'" in step["if"] for step in rest)
    assert all("secrets." not in step["if"] for step in rest)  # not allowed in if:, GitHub refuses it
    [bench] = steps_running(job, "selfheal bench")
    assert "--subset full" in bench["run"] and "--provider anthropic" in bench["run"]
    assert bench["env"] == {"ANTHROPIC_API_KEY": "${{ secrets.ANTHROPIC_API_KEY }}"}
    [upload] = uses(job, "actions/upload-artifact")
    assert upload["if"].startswith("${{ always() &&")


def _run_check(tmp_path: Path, key: str | None) -> tuple[str, str]:
    script = load()["jobs"]["full-model"]["steps"][0]["run"]
    output = tmp_path / f"output-{bool(key)}"
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env["GITHUB_OUTPUT"] = str(output)
    if key is not None:
        env["ANTHROPIC_API_KEY"] = key
    done = subprocess.run(["bash", "-e", "-c", script], env=env, capture_output=True, text=True, check=True)
    return output.read_text(), done.stdout


def test_the_secret_check_step_skips_with_a_notice_and_proceeds_with_the_key(tmp_path: Path):
    # an unset secret reaches the step as an empty variable
    outputs, stdout = _run_check(tmp_path, "")
    assert outputs == "configured=false\n"
    assert stdout.startswith("::notice title=Benchmark with a model skipped::The secret ANTHROPIC_API_KEY")
    outputs, stdout = _run_check(tmp_path, "sk-ant-test")
    assert (outputs, stdout) == ("configured=true\n", "")


def test_every_action_but_checkout_has_an_offline_act_stand_in_named_in_the_docs():
    docs = (ROOT / "docs" / "benchmarks.md").read_text()
    actions = {s["uses"] for job in load()["jobs"].values() for s in job["steps"] if "uses" in s}
    assert actions == {"actions/checkout@v4", "actions/setup-python@v5", "actions/upload-artifact@v4"}
    for action in sorted(actions - {"actions/checkout@v4"}):  # act copies the working tree itself
        folder = ROOT / ".github" / "act" / action.split("/")[1].split("@")[0]
        stand_in = yaml.safe_load((folder / "action.yml").read_text())
        assert stand_in["runs"]["using"] == "composite"
        assert f"--local-repository {action}=$PWD/{folder.relative_to(ROOT)}" in docs


def test_the_upload_stand_in_copies_the_files_where_act_artifacts_points(tmp_path: Path):
    step = yaml.safe_load((ROOT / ".github/act/upload-artifact/action.yml").read_text())["runs"]["steps"][0]
    (tmp_path / "bench-results").mkdir()
    (tmp_path / "bench-results" / "smoke.json").write_text("{}")
    env = {**os.environ, "ACT_ARTIFACTS": str(tmp_path / "artifacts"), "NAME": "benchmark-smoke",
           "FILES": "bench-results/", "MISSING": "warn"}  # fmt: skip
    subprocess.run(["bash", "-e", "-c", step["run"]], cwd=tmp_path, env=env, check=True, capture_output=True)
    copied = tmp_path / "artifacts" / "benchmark-smoke" / "bench-results" / "smoke.json"
    assert copied.read_text() == "{}"
