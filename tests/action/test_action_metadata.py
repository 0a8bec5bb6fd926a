"""action.yml and the workflow template agree with the code and keep their security promises."""

from __future__ import annotations

import re
from dataclasses import fields

import yaml

from selfheal.action.inputs import ActionInputs, parse_inputs
from tests.conftest import ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
HEAL = yaml.safe_load((ROOT / ".github" / "workflows" / "heal.yml").read_text(encoding="utf-8"))


def test_every_input_is_read_and_every_field_is_an_input() -> None:
    declared = {name.replace("-", "_") for name in ACTION["inputs"]}
    assert declared == {f.name for f in fields(ActionInputs)}
    for name, spec in ACTION["inputs"].items():
        assert spec["description"].strip(), name


def test_the_declared_defaults_parse() -> None:
    env = {f"INPUT_{name.upper()}": str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    env["INPUT_GITHUB-TOKEN"] = "t"
    inputs = parse_inputs(env)
    assert (inputs.sandbox, inputs.permission, inputs.mode, inputs.draft, inputs.dry_run) == (
        "auto", "write", "auto", False, False,
    )  # fmt: skip
    assert inputs.commit_author == "selfheal[bot] <selfheal[bot]@users.noreply.github.com>"
    assert (inputs.provider, inputs.max_usd, inputs.roles) == ("none", 1.0, ())  # no key: no model


def test_heal_yml_turns_claude_on_with_one_commented_line() -> None:
    text = (ROOT / ".github" / "workflows" / "heal.yml").read_text(encoding="utf-8")
    [line] = [ln for ln in text.splitlines() if "secrets.ANTHROPIC_API_KEY" in ln and "#" in ln.split(":")[0]]
    assert line.strip().startswith("# anthropic-api-key: ${{ secrets.ANTHROPIC_API_KEY }}")
    uncommented = yaml.safe_load(
        text.replace(line, line.replace("# anthropic-api-key", "anthropic-api-key", 1))
    )
    [heal_step] = [s for s in uncommented["jobs"]["heal"]["steps"] if s.get("id") == "heal"]
    assert heal_step["with"]["anthropic-api-key"].startswith("${{ secrets.ANTHROPIC_API_KEY }}")
    # empty but for a dispatch that names one (a bot server's): anthropic as soon as the key is there
    assert heal_step["with"].get("provider", "${{ inputs.provider }}") == "${{ inputs.provider }}"
    forwarded = ("provider", "model", "roles", "max-usd", "max-tokens", "model-prices")
    assert {name: heal_step["with"][name] for name in forwarded} == {
        n: f"${{{{ inputs.{n} }}}}" for n in forwarded
    }


def test_outputs_and_runtime() -> None:
    assert list(ACTION["outputs"]) == [
        "status",
        "pr-number",
        "pr-url",
        "pr-operation",
        "pr-draft",
        "branch",
        "report-path",
        "confidence",
        "ready-for-review",
        "provider",
        "tokens-in",
        "tokens-out",
        "cost-usd",
    ]
    assert ACTION["runs"]["using"] == "docker" and ACTION["runs"]["image"] == "Dockerfile"


def test_heal_yml_keeps_event_text_out_of_scripts_and_asks_for_least_privilege() -> None:
    triggers = HEAL[True]  # YAML 1.1 reads the key `on` as True
    assert set(triggers) == {"workflow_run", "issue_comment", "workflow_dispatch"}
    assert triggers["issue_comment"]["types"] == ["created"]
    assert HEAL["permissions"] == {}
    job = HEAL["jobs"]["heal"]
    assert job["permissions"] == {"contents": "write", "pull-requests": "write", "issues": "write"}
    assert job["concurrency"]["cancel-in-progress"] is False
    assert "github.event.issue.number" in job["concurrency"]["group"]
    for step in job["steps"]:
        script = step.get("run", "")
        assert not re.search(r"\$\{\{\s*github\.event\.", script), step
    assert "startsWith(github.event.comment.body, '/heal')" in job["if"]
    assert "conclusion == 'failure'" in job["if"]
    [heal_step] = [s for s in job["steps"] if s.get("id") == "heal"]
    assert heal_step["with"]["github-token"] == "${{ secrets.GITHUB_TOKEN }}"
    # no checkout: it would leave the token in .git/config of the workspace the artifact comes from
    assert not [s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout")]


def test_no_expression_in_action_yml_except_the_token_default() -> None:
    """Runners (and act) refuse `${{ }}` in an action's metadata outside the few places that take one."""
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    assert re.findall(r"\$\{\{[^}]*\}\}", text) == ["${{ github.token }}"]
