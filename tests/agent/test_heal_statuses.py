"""Repos whose tests cannot run end with a clear status and message, never a traceback."""

from __future__ import annotations

import hashlib
import subprocess
import venv
from pathlib import Path

import pytest

from selfheal.agent.exceptions import InterpreterError, TargetError, TestCommandError

OK_TESTS = {"tests/test_ok.py": "def test_one():\n    assert 1 + 1 == 2\n"}


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts):
        digest.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return digest.hexdigest()


def test_all_passing_is_nothing_to_heal_and_changes_nothing(make_repo, run_heal):
    repo = make_repo(
        {
            "pkg/__init__.py": "",
            "pkg/m.py": "def f():\n    return 2\n",
            "tests/test_m.py": "from pkg.m import f\n\ndef test_f():\n    assert f() == 2\n",
        }
    )
    before = tree_digest(repo)
    result = run_heal(repo)
    assert result.status == "nothing_to_heal"
    assert result.patch == "" and result.changes == {}
    assert tree_digest(repo) == before
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True)
    assert status.stdout == ""


def test_syntax_error_in_source(make_repo, run_heal):
    repo = make_repo(
        {
            "pkg/__init__.py": "",
            "pkg/m.py": "def f(:\n    return 2\n",
            "tests/test_m.py": "from pkg.m import f\n\ndef test_f():\n    assert f() == 2\n",
        }
    )
    result = run_heal(repo)
    assert result.status == "error"
    assert result.error.startswith("tests could not be collected:")
    assert "SyntaxError" in result.error
    assert "pkg/m.py" in result.error


def test_collection_error_from_a_missing_import(make_repo, run_heal):
    repo = make_repo({"tests/test_m.py": "import not_a_module_anywhere\n\ndef test_f():\n    pass\n"})
    result = run_heal(repo)
    assert result.status == "error"
    assert "ModuleNotFoundError: No module named 'not_a_module_anywhere'" in result.error


def test_no_tests(make_repo, run_heal):
    repo = make_repo({"pkg/m.py": "X = 1\n", "README.md": "nothing to test\n"})
    result = run_heal(repo)
    assert result.status == "error"
    assert result.error == "the test command collected no tests"


def test_a_hanging_test_becomes_a_failure_and_is_healed(make_repo, run_heal):
    repo = make_repo(
        {
            "pkg/__init__.py": "",
            "pkg/count.py": '''
            def halvings(n):
                """How many times n can be halved (integer division) before it reaches 1."""
                steps = 0
                while n != 1:
                    n = n // 2
                    steps += 1
                return steps
            ''',
            "tests/test_count.py": """
            from pkg.count import halvings

            def test_power_of_two():
                assert halvings(8) == 3

            def test_one():
                assert halvings(1) == 0

            def test_zero_needs_no_halving():
                assert halvings(0) == 0
            """,
        }
    )
    result = run_heal(repo, test_timeout=2)
    hung = result.baseline.outcomes["tests/test_count.py::test_zero_needs_no_halving"]
    assert hung.outcome == "failed"
    assert "test ran longer than 2s (selfheal per-test timeout)" in hung.message
    # the traceback of the hang points into the loop, so localization starts there
    assert (result.localization.lines[0].file, result.localization.lines[0].function) == (
        "pkg/count.py",
        "halvings",
    )
    assert result.status == "healed"
    assert "+    while n > 1:" in result.patch


def test_a_suite_that_outlives_the_run_timeout(make_repo, run_heal):
    repo = make_repo(
        {
            "tests/test_slow.py": """
        import signal, time

        def test_blocks_the_alarm():
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
            time.sleep(30)
        """
        }
    )
    result = run_heal(repo, timeout=4, test_timeout=1)
    assert result.status == "error"
    assert result.error.startswith("the test run took longer than 4s and was stopped")


def test_secrets_of_selfheal_never_reach_the_tests(make_repo, run_heal, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_not_for_tests")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-not-for-tests")
    repo = make_repo(
        {
            "tests/test_env.py": """
        import os

        def test_no_secret_in_environ():
            assert "GITHUB_TOKEN" not in os.environ
            assert "ANTHROPIC_API_KEY" not in os.environ

        def test_no_secret_in_proc():
            for path in ("/proc/self/environ", "/proc/1/environ"):
                try:
                    data = open(path, "rb").read()
                except OSError:
                    continue
                assert b"not_for_tests" not in data and b"not-for-tests" not in data
        """
        }
    )
    result = run_heal(repo)
    assert result.status == "nothing_to_heal", result.baseline.outcomes


def test_bad_requests_are_config_errors(tmp_path, make_repo, run_heal):
    with pytest.raises(TargetError, match="no such directory"):
        run_heal(tmp_path / "missing")
    afile = tmp_path / "file.txt"
    afile.write_text("x")
    with pytest.raises(TargetError, match="not a directory"):
        run_heal(afile)
    repo = make_repo(OK_TESTS)
    with pytest.raises(TestCommandError, match="command not found: no-such-test-runner"):
        run_heal(repo, test_command="no-such-test-runner --all")
    with pytest.raises(InterpreterError, match="no such executable"):
        run_heal(repo, python=str(tmp_path / "nopython"))


def test_an_interpreter_without_pytest_is_named_before_any_test_runs(tmp_path, make_repo, run_heal):
    env = tmp_path / "no-pytest-env"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(env)
    repo = make_repo(OK_TESTS)
    with pytest.raises(InterpreterError, match=r"no-pytest-env/bin/python has no pytest; install pytest"):
        run_heal(repo, python=str(env / "bin" / "python"))


def test_a_directory_that_is_not_a_git_repo_is_healed_from_a_snapshot(make_repo, run_heal):
    repo = make_repo(
        {
            "calc.py": "def add(a, b):\n    return a - b\n",
            "test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n\n"
            "def test_zero():\n    assert add(0, 0) == 0\n",
        },
        commit=False,
    )
    result = run_heal(repo)
    assert result.status == "healed"
    assert "not a git repository" in result.notes[0]
    assert "+    return a + b" in result.patch
    assert len(result.base_sha) == 40
