"""Checkpoints of each repair round, and resuming from one with a change (`selfheal replay`)."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace
from selfheal.agent.exceptions import ConfigError
from selfheal.agent.loop import heal
from selfheal.agent.model.llm import ProviderSettings, RoleOverride
from selfheal.agent.report.checkpoints import (
    Checkpoint,
    CheckpointFolder,
    config_from_dict,
    config_to_dict,
    with_overrides,
)
from selfheal.sandbox import LocalSandbox
from selfheal.sandbox.secrets import Scrubber
from tests.conftest import git, write_tree

CONVERT = """
KM_PER_MILE = 1.609344


def celsius_to_fahrenheit(celsius: float) -> float:
    return celsius * 9 / 5 - 32


def km_to_miles(km: float) -> float:
    return round(km * KM_PER_MILE, 3)
"""
TESTS = """
import pytest

from travel.convert import celsius_to_fahrenheit, km_to_miles


def test_celsius_to_fahrenheit():
    assert celsius_to_fahrenheit(100) == pytest.approx(212)


def test_km_to_miles():
    assert km_to_miles(42.195) == 26.219


def test_zero_km():
    assert km_to_miles(0) == 0
"""


def two_bug_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "travel"
    write_tree(repo, {"travel/__init__.py": "", "travel/convert.py": CONVERT, "tests/test_convert.py": TESTS})
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "two bugs")
    return repo


def test_each_round_is_checkpointed_and_a_replay_resumes_from_one(tmp_path: Path) -> None:
    repo = two_bug_repo(tmp_path)
    config = build_config(repo, {"python": sys.executable})
    run = tmp_path / "run"
    first = heal(config, LocalSandbox(), Trace(), checkpoints=CheckpointFolder(run))
    assert (first.status, first.iterations, len(first.fixes)) == ("healed", 2, 2)
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["iteration-1.json", "iteration-2.json"]

    one, two = Checkpoint.load(run, 1), Checkpoint.load(run, 2)
    assert (one.accepted, len(one.remaining), one.fixes) == ({}, 2, ())
    assert list(two.accepted) == ["travel/convert.py"] and len(two.remaining) == 1
    assert two.fixes == first.fixes[:1]
    assert two.base_sha == first.base_sha and two.config == config_to_dict(config)

    trace = Trace()
    again = heal(config_from_dict(two.config), LocalSandbox(), trace, resume=two)
    assert (again.status, again.iterations) == ("healed", 2)
    assert again.patch == first.patch and again.fixes == first.fixes
    assert [e.data["round"] for e in trace.events if e.node == "repair"] == [2]  # round 1 was not redone

    # with a change: no candidates for the round left -> the resumed partial fix is what remains
    starved = with_overrides(config_from_dict(two.config), ["max-candidates=0"])
    partial = heal(starved, LocalSandbox(), Trace(), resume=two)
    assert partial.status == "partial"
    assert partial.fixes == first.fixes[:1]
    assert partial.failures_after == list(two.remaining)


def test_a_checkpoint_of_another_commit_is_refused(tmp_path: Path) -> None:
    repo = two_bug_repo(tmp_path)
    config = build_config(repo, {"python": sys.executable})
    stale = Checkpoint(iteration=2, repo=str(repo), base_sha="0" * 40, config=config_to_dict(config))
    with pytest.raises(ConfigError, match="the checkpoint is of commit 000000000000"):
        heal(config, LocalSandbox(), Trace(), resume=stale)


def test_a_missing_iteration_names_the_ones_there(tmp_path: Path) -> None:
    Checkpoint(1, "r", "abc", {}).save(tmp_path)
    with pytest.raises(ConfigError, match=r"no checkpoint for iteration 3 .*; it has iterations 1"):
        Checkpoint.load(tmp_path, 3)
    (tmp_path / "checkpoints" / "iteration-1.json").write_text(json.dumps({"version": 1, "iteration": "x"}))
    with pytest.raises(ConfigError, match="not a readable checkpoint"):
        Checkpoint.load(tmp_path, 1)


def test_a_checkpoint_is_saved_scrubbed_and_one_that_needed_masking_is_not_resumed(tmp_path: Path) -> None:
    secret = "s3cr3t-" + "ab12" * 5
    scrubber = Scrubber((secret,))
    Checkpoint(1, "r", "abc", {"test_command": "pytest"}, accepted={"a.py": "x = 1\n"}).save(
        tmp_path, scrubber
    )
    assert Checkpoint.load(tmp_path, 1).accepted == {"a.py": "x = 1\n"}  # nothing to mask: resumable

    leaky = Checkpoint(2, "r", "abc", {}, accepted={"a.py": f"TOKEN = {secret!r}\n"}, remaining=("t",))
    path = leaky.save(tmp_path, scrubber)
    assert secret not in path.read_text(encoding="utf-8")
    assert json.loads(path.read_text(encoding="utf-8"))["accepted"] == {"a.py": "TOKEN = '***'\n"}
    with pytest.raises(ConfigError, match=r"masked in this checkpoint .* replay from an earlier iteration"):
        Checkpoint.load(tmp_path, 2)


def test_the_configuration_survives_the_round_trip(tmp_path: Path) -> None:
    config = build_config(tmp_path, {"provider": "ollama", "max_candidates": 40, "targets": ("tests/a.py",)})
    roles = {"critic": RoleOverride("anthropic", "claude-haiku-4-5")}
    config = replace(config, llm=replace(config.llm, model="qwen2.5-coder:14b", roles=roles))
    assert config_from_dict(json.loads(json.dumps(config_to_dict(config)))) == config


def test_overrides_change_one_thing_each(tmp_path: Path) -> None:
    config = build_config(tmp_path, {})
    changed = with_overrides(config, [
        "max-candidates=200", "provider=ollama", "llm.model=qwen2.5-coder:14b",
        "role.generator=ollama:qwen2.5-coder:7b", "namespaces=false", "targets=tests/a.py,tests/b.py",
        "max_tokens=5000", "prompts=my/prompts",
    ])  # fmt: skip
    assert (changed.max_candidates, changed.provider, changed.llm.provider) == (200, "ollama", "ollama")
    assert changed.llm.model == "qwen2.5-coder:14b"
    assert changed.llm.roles["generator"] == RoleOverride("ollama", "qwen2.5-coder:7b")
    assert (changed.namespaces, changed.targets, changed.max_tokens) == (
        False,
        ("tests/a.py", "tests/b.py"),
        5000,
    )
    assert changed.extra["prompts"] == "my/prompts"
    assert config.llm == ProviderSettings()  # the original is untouched
    for bad, said in [
        ("nonsense", "expected KEY=VALUE"),
        ("colour=red", "--set colour: unknown"),
        ("repo=/elsewhere", "--set repo: unknown"),
        ("max-candidates=many", "expected a int"),
        ("llm.api_key=sk-123", "not a model setting"),
        ("role.tester=ollama", "unknown role"),
    ]:
        with pytest.raises(ConfigError, match=said):
            with_overrides(config, [bad])
