"""The bot's model options: provider from the server's environment, keys never from an option."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from selfheal.bot.exceptions import ServerConfigError
from selfheal.bot.server.config import add_serve_arguments, config_from_args
from selfheal.bot.server.spend import DailySpend

SECRET = {"SELFHEAL_WEBHOOK_SECRET": "s" * 32}


def parse(tmp_path: Path, *extra: str):
    key = tmp_path / "app.pem"
    key.write_text("not read here\n", encoding="utf-8")
    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    return parser.parse_args(
        ["--app-id", "1", "--private-key", str(key), "--db", str(tmp_path / "q.db"), *extra]
    )


def test_the_provider_follows_the_servers_environment_and_keys_stay_out_of_the_repr(tmp_path: Path) -> None:
    none = config_from_args(parse(tmp_path), SECRET)
    assert (none.provider, none.max_usd, dict(none.model_env)) == ("none", None, {})
    env = {**SECRET, "ANTHROPIC_API_KEY": "k" * 30, "ANTHROPIC_BASE_URL": "http://proxy:8080", "OTHER": "x"}
    claude = config_from_args(parse(tmp_path, "--role", "critic=none", "--daily-usd-cap", "5"), env)
    assert (claude.provider, claude.max_usd, claude.roles, claude.daily_usd_cap) == (
        "anthropic", 1.0, ("critic=none",), 5.0,
    )  # fmt: skip
    assert dict(claude.model_env) == {
        "ANTHROPIC_API_KEY": "k" * 30,
        "ANTHROPIC_BASE_URL": "http://proxy:8080",
    }
    assert "k" * 30 not in repr(claude)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ("--provider", "anthropic"),
            "provider anthropic: set ANTHROPIC_API_KEY in the server's environment",
        ),
        (("--provider", "ollama"), "provider ollama: set OLLAMA_HOST in the server's environment"),
        (("--role", "generator=ollama"), "provider ollama: set OLLAMA_HOST"),
        (("--role", "planner=none"), "--role unknown role 'planner'"),
        (("--daily-usd-cap", "0"), "--daily-usd-cap 0.0: must be positive"),
    ],
)
def test_model_options_that_cannot_work_stop_the_server(tmp_path: Path, extra: tuple, message: str) -> None:
    with pytest.raises(ServerConfigError, match=message.replace("(", r"\(")):
        config_from_args(parse(tmp_path, *extra), SECRET)


def test_the_daily_cap_lowers_a_jobs_budget_and_adds_up_per_installation(tmp_path: Path) -> None:
    spend = DailySpend(tmp_path / "q.db", 2.0)
    assert spend.budget_for(77, 1.0) == 1.0
    spend.record(77, 1.25)
    spend.record(77, 0.5)
    spend.record(78, 0.1)
    assert spend.spent(77) == pytest.approx(1.75) and spend.spent(78) == pytest.approx(0.1)
    assert spend.budget_for(77, 1.0) == pytest.approx(0.25)
    spend.record(77, 0.5)
    assert spend.budget_for(77, 1.0) == 0.0
    assert DailySpend(tmp_path / "q.db", None).budget_for(77, 1.0) == 1.0  # no cap


def test_allow_direct_requirements_is_the_operators_flag_and_reaches_every_heal(tmp_path: Path) -> None:
    from selfheal.bot.server.executors import LocalExecutor

    off = config_from_args(parse(tmp_path), SECRET)
    on = config_from_args(parse(tmp_path, "--allow-direct-requirements"), SECRET)
    assert (off.allow_direct_requirements, on.allow_direct_requirements) == (False, True)
    assert (
        LocalExecutor(on, tokens=None, log=None)._settings().heal_flags["allow_direct_requirements"] is True
    )
    assert "allow_direct_requirements" not in LocalExecutor(off, tokens=None, log=None)._settings().heal_flags
