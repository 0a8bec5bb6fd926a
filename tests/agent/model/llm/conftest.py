"""Fake model APIs as separate processes, and providers built against them with the real SDKs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from selfheal.agent.model.llm import ProviderSettings, make_provider
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.ollama_server import FakeOllama


@pytest.fixture
def start_anthropic(tmp_path: Path) -> Iterator[Callable[..., FakeAnthropic]]:
    started: list[FakeAnthropic] = []

    def start(script: dict[str, Any] | list[dict[str, Any]]) -> FakeAnthropic:
        fake = FakeAnthropic.start(tmp_path, script)
        started.append(fake)
        return fake

    yield start
    for fake in started:
        fake.stop()


@pytest.fixture
def start_ollama(tmp_path: Path) -> Iterator[Callable[..., FakeOllama]]:
    started: list[FakeOllama] = []

    def start(script: dict[str, Any] | list[dict[str, Any]]) -> FakeOllama:
        fake = FakeOllama.start(tmp_path, script)
        started.append(fake)
        return fake

    yield start
    for fake in started:
        fake.stop()


def anthropic_for(fake: FakeAnthropic, **settings: Any) -> Any:
    """The real anthropic provider (real SDK client) pointed at the fake, key via the environment."""
    settings.setdefault("max_retries", 0)
    return make_provider(
        "anthropic",
        ProviderSettings(provider="anthropic", base_url=fake.url, **settings),
        env={"ANTHROPIC_API_KEY": fake.api_key or ""},
    )


def ollama_for(fake: FakeOllama, *, env: dict[str, str] | None = None, **settings: Any) -> Any:
    return make_provider(
        "ollama", ProviderSettings(provider="ollama", base_url=fake.url, **settings), env=env or {}
    )
