"""`auto`, `docker` and `local` against a Docker engine that answers but cannot pull (the fake of
tests/fakes/docker_engine.py, spoken to by docker-py itself) and where no engine answers: the
reason a heal took the local sandbox is one plain line, the engine's own words its detail."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfheal.sandbox.base import Fallback, Limits
from selfheal.sandbox.exceptions import SandboxUnavailable
from selfheal.sandbox.local import LocalSandbox
from selfheal.sandbox.select import choose_sandbox
from tests.fakes.docker_engine import FakeDockerEngine


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "mod.py").write_text("VALUE = 1\n")
    return tmp_path


def test_auto_with_an_engine_that_cannot_pull_takes_local_and_says_so_plainly(
    repo: Path, docker_engine: FakeDockerEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCKER_HOST", docker_engine.docker_host)
    sandbox, fallback = choose_sandbox("auto", repo, limits=Limits())
    assert isinstance(sandbox, LocalSandbox)
    assert fallback == Fallback(
        reason="sandbox: local — the Docker image python:3.12-slim could not be pulled",
        detail=(
            "local sandbox: a Docker engine answers, but image python:3.12-slim is not here and could "
            "not be pulled: 500 Server Error for http+docker://localhost/v1.43/images/create?"
            'tag=3.12-slim&fromImage=python: Internal Server Error ("Get "https://registry-1.docker.io/v2/": '
            'dial tcp: lookup registry-1.docker.io on 10.255.255.53:53: no such host")'
        ),
    )
    assert docker_engine.requests[-1] == ("POST", "/v1.43/images/create?tag=3.12-slim&fromImage=python")


def test_auto_with_the_operator_s_image_names_it(
    repo: Path, docker_engine: FakeDockerEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCKER_HOST", docker_engine.docker_host)
    _, fallback = choose_sandbox("auto", repo, limits=Limits(), image="selfheal-no-such-image:0")
    assert fallback is not None
    assert fallback.reason == "sandbox: local — the Docker image selfheal-no-such-image:0 could not be pulled"


def test_auto_where_no_engine_answers(
    repo: Path, no_docker_engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCKER_HOST", no_docker_engine)
    sandbox, fallback = choose_sandbox("auto", repo, limits=Limits())
    assert isinstance(sandbox, LocalSandbox) and fallback is not None
    assert fallback.reason == "sandbox: local — no Docker engine answers"
    assert fallback.detail.startswith(f"local sandbox: no Docker engine answers at {no_docker_engine}: ")
    assert "127.0.0.1" in fallback.detail


def test_local_is_no_fallback(
    repo: Path, docker_engine: FakeDockerEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCKER_HOST", docker_engine.docker_host)
    sandbox, fallback = choose_sandbox("local", repo, limits=Limits())
    assert isinstance(sandbox, LocalSandbox) and fallback is None
    assert docker_engine.requests == []


def test_docker_that_cannot_pull_is_an_error_with_a_plain_line(
    repo: Path, docker_engine: FakeDockerEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCKER_HOST", docker_engine.docker_host)
    with pytest.raises(SandboxUnavailable) as refused:
        choose_sandbox("docker", repo, limits=Limits())
    assert refused.value.plain == "the Docker image python:3.12-slim could not be pulled"
    assert "lookup registry-1.docker.io on 10.255.255.53:53" in str(refused.value)

    (repo / ".python-version").write_text("3.99\n")
    with pytest.raises(SandboxUnavailable) as refused:
        choose_sandbox("docker", repo, limits=Limits())
    assert refused.value.plain == (
        "the repository asks for Python 3.99, and the Docker image python:3.99-slim could not be pulled; "
        "name an image that has this Python with --sandbox-image (the Action's sandbox-image input)"
    )
