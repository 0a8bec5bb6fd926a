"""What a maintainer reads when the runner's infrastructure fails: a Docker engine that answers but
cannot pull the sandbox's image (tests/fakes/docker_engine.py says what dockerd then says), or no
engine at all. The pull request, the job summary and selfheal's comments say it in one plain line;
the engine's words, with the hosts and resolver addresses they name, stay in report.json and the
job log."""

from __future__ import annotations

import json
import os
import re

import pytest

from selfheal.sandbox.docker import docker_client
from selfheal.sandbox.exceptions import SandboxUnavailable
from tests.action.conftest import REPO, ActionRun, World
from tests.bot import payloads
from tests.conftest import report_errors
from tests.fakes.docker_engine import FakeDockerEngine

BOT = "github-actions[bot]"
# the engine's own words: none of them may reach what the action publishes
ENGINE_WORDS = (
    "registry-1.docker.io",
    "10.255.255.53",
    "500 Server Error",
    "Internal Server Error",
    "http+docker",
    "localhost",
    "no such host",
    "Connection refused",
    "Max retries",
    "HTTPConnectionPool",
)
IPV4 = re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b")


def published_texts(world: World, run: ActionRun) -> dict[str, str]:
    """Everything of this run that GitHub shows to whoever reads the repository: the pull request's
    body, selfheal's comments, the job summary. The fake GitHub's own address (the run's link in
    the body) is taken out: it stands for github.com."""
    state = world.repo_state()
    texts = {f"pull {p['number']}": p["body"] for p in state["pulls"] if p["user"]["login"] == BOT}
    texts |= {f"comment {c['id']}": c["body"] for c in state["comments"] if c["user"]["login"] == BOT}
    texts["job summary"] = run.summary
    return {where: text.replace(world.fake.url, "https://github.com") for where, text in texts.items()}


def assert_no_engine_words(texts: dict[str, str]) -> None:
    for where, text in texts.items():
        for word in ENGINE_WORDS:
            assert word not in text, f"{where} says {word!r}:\n{text}"
        assert IPV4.search(text) is None, f"{where} holds an IP address:\n{text}"


def heal_on_pull_request(world: World, docker_host: str, **inputs: str) -> ActionRun:
    world.fake.seed_comment(REPO, 7, 5001, "alice", "/heal")
    env = {"DOCKER_HOST": docker_host}
    return world.run(
        "issue_comment", payloads.issue_comment("/heal", number=7, comment_id=5001), env=env, **inputs
    )


def test_an_engine_that_cannot_pull_is_one_plain_line_in_the_pull_request(
    world: World, docker_engine: FakeDockerEngine
) -> None:
    run = heal_on_pull_request(world, docker_engine.docker_host, sandbox="auto")

    assert run.returncode == 0, run.stderr
    assert run.outputs["status"] == "healed" and run.outputs["pr-operation"] == "created"
    assert ("POST", "/v1.43/images/create?tag=3.12-slim&fromImage=python") in docker_engine.requests
    [pull] = [p for p in world.repo_state()["pulls"] if p["head"]["ref"] == run.outputs["branch"]]
    assert "- sandbox: local — the Docker image python:3.12-slim could not be pulled\n" in pull["body"]
    assert "- sandbox: local — the Docker image python:3.12-slim could not be pulled\n" in run.summary
    assert_no_engine_words(published_texts(world, run))
    # the details stay in the report
    report = json.loads((run.report_dir / "report.json").read_text(encoding="utf-8"))
    assert report_errors(report) == []
    assert report["sandbox"]["backend"] == "local"
    assert report["sandbox"]["fallback"]["reason"] == (
        "sandbox: local — the Docker image python:3.12-slim could not be pulled"
    )
    assert (
        "lookup registry-1.docker.io on 10.255.255.53:53: no such host"
        in (report["sandbox"]["fallback"]["detail"])
    )


def test_no_engine_with_an_image_that_does_not_exist_is_one_plain_line_too(
    world: World, no_docker_engine: str
) -> None:
    run = heal_on_pull_request(
        world,
        no_docker_engine,
        sandbox="auto",
        **{"sandbox-image": "selfheal-no-such-image:0"},
    )

    assert run.returncode == 0, run.stderr
    assert run.outputs["status"] == "healed" and run.outputs["pr-operation"] == "created"
    [pull] = [p for p in world.repo_state()["pulls"] if p["head"]["ref"] == run.outputs["branch"]]
    assert "- sandbox: local — no Docker engine answers\n" in pull["body"]
    assert_no_engine_words(published_texts(world, run))
    report = json.loads((run.report_dir / "report.json").read_text(encoding="utf-8"))
    assert report["sandbox"]["fallback"]["detail"].startswith(
        f"local sandbox: no Docker engine answers at {no_docker_engine}: "
    )


def test_docker_asked_for_and_not_pulled_fails_in_plain_words(
    world: World, docker_engine: FakeDockerEngine
) -> None:
    run = heal_on_pull_request(world, docker_engine.docker_host, sandbox="docker")

    assert run.returncode == 2, run.stderr
    said = "sandbox docker: the Docker image python:3.12-slim could not be pulled"
    assert run.summary == f"## selfheal: error\n\ninvalid input: {said}\n"
    assert f"::error::selfheal: invalid input: {said}" in run.stderr
    [comment] = [c for c in world.repo_state()["comments"] if c["user"]["login"] == BOT]
    assert comment["body"].endswith(f"😕 selfheal could not finish: {said}")
    assert_no_engine_words(published_texts(world, run))
    # the job log keeps the engine's words for whoever debugs the runner
    assert "lookup registry-1.docker.io on 10.255.255.53:53: no such host" in run.stderr


def _real_engine() -> tuple[str, str]:
    """The real Docker engine's address where one answers (`.ci/run` starts dockerd), else why not."""
    try:
        docker_client(timeout=10)
    except SandboxUnavailable as exc:
        return "", f"no Docker engine: {exc}"
    return os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock"), ""


def test_a_real_engine_that_cannot_pull_is_one_plain_line_in_the_pull_request(world: World) -> None:
    docker_host, reason = _real_engine()
    if not docker_host:
        pytest.skip(reason)
    # no registry answers here, and none holds this image anywhere: dockerd's own pull fails
    run = heal_on_pull_request(
        world, docker_host, sandbox="auto", **{"sandbox-image": "selfheal-no-such-image:0"}
    )

    assert run.returncode == 0, run.stderr
    assert run.outputs["status"] == "healed" and run.outputs["pr-operation"] == "created"
    [pull] = [p for p in world.repo_state()["pulls"] if p["head"]["ref"] == run.outputs["branch"]]
    line = "- sandbox: local — the Docker image selfheal-no-such-image:0 could not be pulled\n"
    assert line in pull["body"]
    assert line in run.summary
    assert_no_engine_words(published_texts(world, run))
    report = json.loads((run.report_dir / "report.json").read_text(encoding="utf-8"))
    assert report["sandbox"]["backend"] == "local"
    assert report["sandbox"]["fallback"]["detail"]  # dockerd's own words stay in the report
