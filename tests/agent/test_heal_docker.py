"""Whole heals in the docker sandbox: the same verdicts as the local backend."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace
from selfheal.agent.loop import heal
from selfheal.cli import main
from selfheal.sandbox import LocalSandbox
from selfheal.sandbox.docker import DockerSandbox
from tests.conftest import EXAMPLES, apply_and_test, git
from tests.sandbox.test_docker_sandbox import CLIENT, IMAGE, REASON, ours

pytestmark = [pytest.mark.skipif(CLIENT is None, reason=REASON), pytest.mark.slow]


def copy_example(name: str, tmp_path: Path) -> Path:
    repo = tmp_path / name
    shutil.copytree(EXAMPLES / name, repo, ignore=shutil.ignore_patterns(".selfheal"))  # no demo's memory
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "example")
    return repo


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.iterdir() if (p / "tests").is_dir()))
def test_every_example_heals_in_docker_as_it_does_locally(example, tmp_path):
    repo = copy_example(example, tmp_path)
    before = ours()
    in_docker = heal(build_config(repo, {}), DockerSandbox(IMAGE), Trace())
    local = heal(build_config(repo, {"python": sys.executable}), LocalSandbox(), Trace())
    assert in_docker.sandbox.backend == "docker" and in_docker.sandbox.network is False
    assert in_docker.metrics.screener == "fork-worker"  # the worker ran inside the container
    assert in_docker.status == local.status == "healed"
    assert in_docker.failures_before == local.failures_before
    assert in_docker.patch == local.patch
    assert [r.holds for r in in_docker.verdict.rules] == [True] * 5
    assert apply_and_test(repo, in_docker.patch, tmp_path).returncode == 0
    assert ours() == before


def test_a_test_that_deletes_git_cannot_hurt_the_heal(make_repo, tmp_path):
    repo = make_repo(
        {
            "calc.py": "def inc(x):\n    return x + 2\n",
            "test_calc.py": """
            import os, shutil

            from calc import inc

            def test_vandal():
                for path in (".git", "../.git", "/sandbox/.git"):
                    shutil.rmtree(path, ignore_errors=True)
                assert not os.path.exists(".git")

            def test_inc():
                assert inc(1) == 2
            """,
        }
    )
    result = heal(build_config(repo, {}), DockerSandbox(IMAGE), Trace())
    assert result.status == "healed"
    assert "+    return x + 1" in result.patch
    assert (repo / ".git").is_dir()
    assert git(repo, "status", "--porcelain") == ""


def test_cli_docker_without_an_engine_is_exit_2(make_repo, monkeypatch, capsys, tmp_path):
    repo = make_repo({"test_a.py": "def test_a():\n    pass\n"})
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    monkeypatch.chdir(tmp_path)
    assert main(["heal", str(repo), "--sandbox", "docker"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("selfheal: --sandbox docker: no Docker engine answers at unix://")
    assert err.count("\n") == 1


def test_cli_auto_uses_docker_when_it_can_and_says_why_when_not(make_repo, capsys, tmp_path, monkeypatch):
    import json

    repo = make_repo(
        {
            "calc.py": "def inc(x):\n    return x + 2\n",
            "test_calc.py": "from calc import inc\n\ndef test_inc():\n    assert inc(1) == 2\n",
        }
    )
    monkeypatch.chdir(tmp_path)
    assert main(["heal", str(repo), "--sandbox-image", IMAGE, "--out", "docker"]) == 0
    report = json.loads((tmp_path / "docker" / "report.json").read_text())
    assert report["sandbox"]["backend"] == "docker"
    assert (
        main(
            [
                "heal",
                str(repo),
                "--sandbox-image",
                "selfheal-no-such-image:0",
                "--out",
                "fallback",
                "--python",
                sys.executable,
            ]
        )
        == 0
    )
    report = json.loads((tmp_path / "fallback" / "report.json").read_text())
    assert report["sandbox"]["backend"] == "local"
    assert "sandbox: local — the Docker image selfheal-no-such-image:0 could not be pulled" in report["notes"]
    assert report["sandbox"]["fallback"]["detail"].startswith(
        "local sandbox: a Docker engine answers, but image selfheal-no-such-image:0 is not here"
    )
    capsys.readouterr()
