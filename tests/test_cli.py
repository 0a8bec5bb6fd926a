"""`selfheal heal` end to end: real repositories, real heals, exit codes, outputs and messages."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from selfheal.agent.report.outputs import OUTPUT_FILES
from selfheal.cli import main
from tests.conftest import git

AGE_SOURCE = "def is_adult(age):\n    return age > 18\n"
AGE_FIXED = "def is_adult(age):\n    return age >= 18\n"
AGE_TESTS = """
    from pkg.age import is_adult

    def test_adult_at_18():
        assert is_adult(18)

    def test_child_at_17():
        assert not is_adult(17)

    def test_adult_at_30():
        assert is_adult(30)
    """
BUGGY = {"pkg/__init__.py": "", "pkg/age.py": AGE_SOURCE, "tests/test_age.py": AGE_TESTS}
FAILING_TEST = "tests/test_age.py::test_adult_at_18"

PASSING = {
    "pkg/__init__.py": "",
    "pkg/two.py": "def two():\n    return 2\n",
    "tests/test_two.py": "from pkg.two import two\n\n\ndef test_two():\n    assert two() == 2\n",
}

# The fix needs logic the code never had: no mutation of `return "hello"` builds the string.
UNHEALABLE = {
    "pkg/__init__.py": "",
    "pkg/greet.py": 'def greet(name):\n    return "hello"\n',
    "tests/test_greet.py": "from pkg.greet import greet\n\n\ndef test_greet():\n"
    '    assert greet("bob") == "Hello, bob!"\n',
}

GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


@pytest.fixture(autouse=True)
def _run_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a heal without --out writes under ./.selfheal/runs: never into the checkout running the tests
    monkeypatch.chdir(tmp_path)


def heal_cli(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    # the CLI's own behaviour, on the local backend; the docker backend has tests of its own
    code = main(["heal", *(str(a) for a in args), "--sandbox", "local"])
    out, err = capsys.readouterr()
    return code, out, err


def status_porcelain(repo: Path) -> str:
    return git(repo, "status", "--porcelain", "--untracked-files=all")


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def read_report(out_dir: Path) -> dict:
    return json.loads((out_dir / "report.json").read_text(encoding="utf-8"))


def test_heal_prints_the_outcome_and_writes_every_output(make_repo, tmp_path, capsys):
    repo = make_repo(BUGGY)
    before = tree_bytes(repo)
    out_dir = (tmp_path / "out").resolve()

    code, out, err = heal_cli(capsys, repo, "--out", out_dir)

    assert code == 0
    assert out == ""
    assert "healed: 1 failing test passes now, no test broke (verdict: all 5 rules hold)" in err
    assert "  fix: pkg/age.py:2: `>` -> `>=` in `age > 18`" in err
    # the isolation in plain words, not the uid the tests ran as
    sandbox = next(line for line in err.splitlines() if line.startswith("[selfheal] sandbox: "))
    facts = read_report(out_dir)["sandbox"]["facts"]
    assert sandbox.startswith(
        "[selfheal] sandbox: local, namespaces, no network ("
        if facts["namespaces"]
        else "[selfheal] sandbox: local, another user, network reachable ("
    )
    written = set(p.name for p in out_dir.iterdir())
    shown = "report.json, report.html, patch.diff, summary.md, lessons.md, trace.jsonl"
    shown += ", tests/" if "tests" in written else ""
    assert f"outputs: {out_dir}/ ({shown})" in err
    assert f"apply with: git -C {repo} apply {out_dir / 'patch.diff'}" in err
    # the named outputs, the checkpoint of the one round, and the new tests when there are any
    assert written - {"tests"} == {*OUTPUT_FILES, "checkpoints"}
    assert [p.name for p in (out_dir / "checkpoints").iterdir()] == ["iteration-1.json"]
    for name in OUTPUT_FILES:
        assert (out_dir / name).stat().st_size > 0, name
    report = read_report(out_dir)
    assert report["status"] == "healed"
    assert report["failures_before"] == [FAILING_TEST]
    assert report["files_changed"] == ["pkg/age.py"]
    patch = (out_dir / "patch.diff").read_text(encoding="utf-8")
    assert "-    return age > 18\n+    return age >= 18\n" in patch
    # the repository itself was not touched: only selfheal's own git-ignored .selfheal/ got the
    # memory of this heal ...
    assert status_porcelain(repo) == ""
    after = tree_bytes(repo)
    assert sorted(set(after) - set(before)) == [".selfheal/.gitignore", ".selfheal/memory.jsonl"]
    assert {k: v for k, v in after.items() if not k.startswith(".selfheal/")} == before
    # ... and the patch applies to it as it is
    check = subprocess.run(
        ["git", "-C", str(repo), "apply", "--check", str(out_dir / "patch.diff")],
        capture_output=True,
        text=True,
        env=GIT_ENV,
        check=False,
    )
    assert check.returncode == 0, check.stderr


def test_default_output_folder_is_under_the_current_directory_and_ignored(make_repo, tmp_path, capsys):
    repo = make_repo(PASSING)

    code, _, err = heal_cli(capsys, repo)

    assert code == 0
    runs = tmp_path / ".selfheal" / "runs"
    run_dirs = list(runs.iterdir())
    assert len(run_dirs) == 1
    run_dir = run_dirs[0]
    assert re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{6}", run_dir.name)
    assert sorted(p.name for p in run_dir.iterdir()) == sorted(OUTPUT_FILES)
    assert f"outputs: {run_dir.resolve()}/ (" in err
    ignore = tmp_path / ".selfheal" / ".gitignore"
    assert ignore.read_text(encoding="utf-8") == "# selfheal run outputs\n*\n"
    # in a git repository at the current directory, the run folder is ignored
    git(tmp_path, "init", "-q", "-b", "main")
    for path in (".selfheal/.gitignore", f".selfheal/runs/{run_dir.name}/report.json"):
        assert (
            subprocess.run(
                ["git", "check-ignore", "-q", path], cwd=tmp_path, env=GIT_ENV, check=False
            ).returncode
            == 0
        ), path
    assert ".selfheal" not in status_porcelain(tmp_path)


def test_all_passing_repo_is_nothing_to_heal_and_stays_unchanged(make_repo, tmp_path, capsys):
    repo = make_repo(PASSING)
    before = tree_bytes(repo)

    code, out, err = heal_cli(capsys, repo, "--out", tmp_path / "out")

    assert code == 0
    assert out == ""
    assert "nothing to heal: no test fails\n" in err
    assert "apply with" not in err
    report = read_report(tmp_path / "out")
    assert report["status"] == "nothing_to_heal"
    assert report["patch"] == ""
    assert (tmp_path / "out" / "patch.diff").read_text(encoding="utf-8") == ""
    assert status_porcelain(repo) == ""
    assert tree_bytes(repo) == before


def test_a_repo_the_engine_cannot_heal_exits_1(make_repo, tmp_path, capsys):
    repo = make_repo(UNHEALABLE)

    code, out, err = heal_cli(capsys, repo, "--out", tmp_path / "out", "--max-candidates", "30")

    assert code == 1
    assert out == ""
    assert "\nnot healed\n" in err
    assert "apply with" not in err
    report = read_report(tmp_path / "out")
    assert report["status"] == "not_healed"
    assert report["failures_before"] == ["tests/test_greet.py::test_greet"]
    assert report["failures_after"] == ["tests/test_greet.py::test_greet"]
    assert report["patch"] == "" and report["files_changed"] == []
    assert 1 <= report["metrics"]["candidates_tried"] <= 30
    assert status_porcelain(repo) == ""


@pytest.mark.parametrize(
    ("files", "said"),
    [
        (
            {**PASSING, "pkg/two.py": "def two(:\n    return 2\n"},
            [
                "error: tests could not be collected:",
                "tests.test_two: SyntaxError: invalid syntax (at pkg/two.py:1)",
            ],
        ),
        (
            {"pkg/__init__.py": "", "pkg/two.py": "def two():\n    return 2\n"},
            ["error: the test command collected no tests"],
        ),
    ],
    ids=["syntax-error", "no-tests"],
)
def test_a_suite_that_cannot_run_says_why_once(files, said, make_repo, tmp_path, capsys):
    repo = make_repo(files)

    code, out, err = heal_cli(capsys, repo, "--out", tmp_path / "out")

    assert (code, out) == (1, "")
    lines = err.splitlines()
    assert lines[0].startswith("[selfheal] sandbox: local, ")
    assert re.fullmatch(r"\[selfheal\] baseline: the tests did not run \(\d+\.\ds\)", lines[1]), lines[1]
    # the error, and nothing that says it again (a lesson did)
    assert lines[2:] == [*said, f"outputs: {tmp_path / 'out'}/ ({', '.join(OUTPUT_FILES)})"]


def _missing(tmp_path: Path, make_repo) -> tuple[list[str], str | re.Pattern[str]]:
    return [str(tmp_path / "nowhere")], f"selfheal: {tmp_path / 'nowhere'}: no such directory"


def _a_file(tmp_path: Path, make_repo) -> tuple[list[str], str | re.Pattern[str]]:
    target = tmp_path / "afile.py"
    target.write_text("x = 1\n", encoding="utf-8")
    return [str(target)], f"selfheal: {target}: not a directory"


def _no_runner(tmp_path: Path, make_repo) -> tuple[list[str], str | re.Pattern[str]]:
    repo = make_repo(PASSING)
    return (
        [str(repo), "--test-command", "no-such-runner"],
        re.compile(r"selfheal: test command not found: .*\bno-such-runner"),
    )


def _bad_key(tmp_path: Path, make_repo) -> tuple[list[str], str | re.Pattern[str]]:
    repo = make_repo({**PASSING, "pyproject.toml": "[tool.selfheal]\nmax-candidatez = 3\n"})
    return [str(repo)], re.compile(
        re.escape(
            f"selfheal: {repo / 'pyproject.toml'}: unknown key 'max-candidatez' in "
            "[tool.selfheal]; known keys: "
        )
        + r".*\bmax-candidates\b.*"
    )


def _no_python(tmp_path: Path, make_repo) -> tuple[list[str], str | re.Pattern[str]]:
    repo = make_repo(PASSING)
    return ([str(repo), "--python", "/nonexistent"], "selfheal: --python /nonexistent: no such executable")


def _bad_role(tmp_path: Path, make_repo) -> tuple[list[str], str | re.Pattern[str]]:
    repo = make_repo(PASSING)
    return (
        [str(repo), "--role", "generator:ollama"],
        "selfheal: --role 'generator:ollama': expected ROLE=PROVIDER[:MODEL], "
        "e.g. generator=ollama:qwen2.5-coder:7b",
    )


def _unknown_role(tmp_path: Path, make_repo) -> tuple[list[str], str | re.Pattern[str]]:
    repo = make_repo(PASSING)
    return (
        [str(repo), "--role", "planner=ollama:llama3.2"],
        "selfheal: --role unknown role 'planner'; roles are: spec_tests, qa_adversarial, "
        "debugger, generator, critic, judge, memory",
    )


def _key_in_pyproject(tmp_path: Path, make_repo) -> tuple[list[str], str | re.Pattern[str]]:
    repo = make_repo(
        {
            **PASSING,
            "pyproject.toml": '[tool.selfheal]\nprovider = "anthropic"\n'
            '[tool.selfheal.llm]\napi-key = "sk-ant-api03-do-not-commit"\n',
        }
    )
    return [str(repo)], (
        f"selfheal: {repo / 'pyproject.toml'}: [tool.selfheal.llm] api-key: a key is never read from "
        "pyproject.toml (it is committed with the code); put it in an environment variable and name "
        'that variable with api-key-env in [tool.selfheal.llm], e.g. api-key-env = "MY_ANTHROPIC_KEY"'
    )


def _no_debugger(tmp_path: Path, make_repo) -> tuple[list[str], str | re.Pattern[str]]:
    repo = make_repo(PASSING)
    return (
        [str(repo), "--role", "generator=ollama:qwen2.5-coder:7b"],
        "selfheal: the model-driven repair needs a model for the debugger and the generator; "
        "debugger has none (provider none): set --provider, or --role debugger=PROVIDER[:MODEL]",
    )


def _zero_iterations(tmp_path: Path, make_repo) -> tuple[list[str], str | re.Pattern[str]]:
    repo = make_repo(PASSING)
    return [str(repo), "--max-iterations", "0"], "selfheal: --max-iterations must be at least 1"


@pytest.mark.parametrize(
    "case",
    [
        _missing,
        _a_file,
        _no_runner,
        _bad_key,
        _no_python,
        _bad_role,
        _unknown_role,
        _key_in_pyproject,
        _no_debugger,
        _zero_iterations,
    ],
    ids=[
        "missing-path",
        "path-is-a-file",
        "unknown-test-command",
        "invalid-pyproject-key",
        "missing-python",
        "bad-role-syntax",
        "unknown-role",
        "key-in-pyproject",
        "role-without-debugger",
        "zero-iterations",
    ],
)
def test_bad_input_exits_2_with_a_one_line_message(case, make_repo, tmp_path, capsys):
    args, expected = case(tmp_path, make_repo)

    code, out, err = heal_cli(capsys, *args, "--out", tmp_path / "out")

    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    last = err.splitlines()[-1]
    if isinstance(expected, re.Pattern):
        assert expected.fullmatch(last), last
    else:
        assert last == expected
    # the message is one line, and the only line that is not live progress
    assert [ln for ln in err.splitlines() if not ln.startswith("[selfheal]")] == [last]
    assert not (tmp_path / "out").exists()


def test_json_on_a_directory_that_is_not_a_git_repository(make_repo, tmp_path, capsys):
    repo = make_repo(BUGGY, commit=False)

    code, out, err = heal_cli(capsys, repo, "--out", tmp_path / "out", "--json")

    assert code == 0
    printed = json.loads(out)  # the whole of stdout is one JSON document
    assert out.startswith("{") and out.endswith("}\n")
    assert printed == read_report(tmp_path / "out")
    assert printed["status"] == "healed"
    assert "not a git repository: the patch is against a snapshot of the directory" in printed["notes"]
    assert re.fullmatch(r"[0-9a-f]{40}", printed["base_sha"])
    assert printed["files_changed"] == ["pkg/age.py"]
    assert "outputs:" not in err  # the human summary is replaced by the JSON
    assert not (repo / ".git").exists()
    assert (repo / "pkg" / "age.py").read_text(encoding="utf-8") == AGE_SOURCE


def test_apply_writes_the_verified_patch_into_the_working_tree(make_repo, tmp_path, capsys):
    repo = make_repo(BUGGY)

    code, _, err = heal_cli(capsys, repo, "--out", tmp_path / "out", "--apply")

    assert code == 0
    assert "applied to pkg/age.py" in err
    assert (repo / "pkg" / "age.py").read_text(encoding="utf-8") == AGE_FIXED
    assert status_porcelain(repo) == " M pkg/age.py\n"
    diff = subprocess.run(
        ["git", "-C", str(repo), "diff", "--no-color"],
        capture_output=True,
        text=True,
        env=GIT_ENV,
        check=True,
    ).stdout
    assert diff == (tmp_path / "out" / "patch.diff").read_text(encoding="utf-8")


def test_the_same_seed_gives_the_same_patch(make_repo, tmp_path, capsys):
    repo = make_repo(BUGGY)
    patches, screened = [], []
    for run in ("one", "two"):
        # memory off: with it on, the second run would recall the first (a different input)
        code, _, _ = heal_cli(capsys, repo, "--out", tmp_path / run, "--seed", "7", "--memory", "off")
        assert code == 0
        patches.append((tmp_path / run / "patch.diff").read_text(encoding="utf-8"))
        trace = (tmp_path / run / "trace.jsonl").read_text(encoding="utf-8").splitlines()
        screened.append([json.loads(ln)["candidate"] for ln in trace if json.loads(ln)["node"] == "screen"])
    assert patches[0] == patches[1]
    assert "+    return age >= 18\n" in patches[0]
    assert screened[0] == screened[1] and screened[0]  # the same search order, too


def test_installed_console_script_heals_a_repo(make_repo, tmp_path):
    repo = make_repo(BUGGY)
    script = Path(sys.executable).parent / "selfheal"
    assert script.is_file(), "the selfheal console script is not installed next to this Python"

    done = subprocess.run(
        [str(script), "heal", str(repo), "--out", str(tmp_path / "out"), "--sandbox", "local"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "healed: 1 failing test passes now" in done.stderr
    assert read_report(tmp_path / "out")["status"] == "healed"
    assert status_porcelain(repo) == ""


def test_a_project_in_a_subfolder_of_a_git_repository(make_repo, tmp_path, capsys):
    top = make_repo(
        {"README.md": "# a monorepo\n", **{f"sub/project/{path}": text for path, text in BUGGY.items()}}
    )
    project = top / "sub" / "project"
    out_dir = tmp_path / "out"

    code, _, err = heal_cli(capsys, project, "--out", out_dir)

    assert code == 0
    patch = (out_dir / "patch.diff").read_text(encoding="utf-8")
    assert patch.startswith("diff --git a/sub/project/pkg/age.py b/sub/project/pkg/age.py\n")
    assert "\n--- a/sub/project/pkg/age.py\n+++ b/sub/project/pkg/age.py\n" in patch
    check = subprocess.run(
        ["git", "-C", str(top), "apply", "--check", str(out_dir / "patch.diff")],
        capture_output=True,
        text=True,
        env=GIT_ENV,
        check=False,
    )
    assert check.returncode == 0, check.stderr
    report = read_report(out_dir)
    assert report["project_dir"] == "sub/project"
    assert report["files_changed"] == ["sub/project/pkg/age.py"]
    assert all(path.startswith("sub/project/") for path in report["files_changed"])
    assert report["patch"] == patch
    assert f"apply with: git -C {top} apply" in err
    assert status_porcelain(top) == ""


def test_a_model_provider_without_its_key_exits_2(make_repo, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    repo = make_repo(PASSING)
    code, out, err = heal_cli(capsys, repo, "--provider", "anthropic", "--out", tmp_path / "out")
    assert (code, out) == (2, "")
    assert err.splitlines()[-1].startswith("selfheal: anthropic: ")
    assert "ANTHROPIC_API_KEY" in err.splitlines()[-1]


def test_model_flags_parse_as_documented():
    from selfheal.cli.parsers import build_parser

    args = build_parser().parse_args([
        "heal", "repo", "--provider", "anthropic", "--model", "claude-opus-4-7",
        "--role", "generator=ollama:qwen2.5-coder:7b", "--role", "critic=anthropic:claude-haiku-4-5",
        "--max-iterations", "4",
    ])  # fmt: skip
    assert (args.provider, args.model, args.max_iterations) == ("anthropic", "claude-opus-4-7", 4)
    assert args.role == ["generator=ollama:qwen2.5-coder:7b", "critic=anthropic:claude-haiku-4-5"]


def test_set_takes_model_settings_and_no_option_is_abbreviated(make_repo, tmp_path, capsys):
    from selfheal.cli.parsers import build_parser

    args = build_parser().parse_args(["heal", "repo", "--set", "llm.timeout=2", "--set", "llm.max-retries=1"])
    assert (args.set, args.setup_command) == (["llm.timeout=2", "llm.max-retries=1"], None)
    # `--setup` was once taken as `--setup-command`, as `--set` was before heal had it
    with pytest.raises(SystemExit):
        build_parser().parse_args(["heal", "repo", "--setup", "make"])
    repo = make_repo(PASSING)
    for wrong, said in (
        ("max-candidates=3", "heal takes only model settings here"),
        ("llm.speed=3", "--set llm.speed: not a model setting; settable: "),
        ("llm.timeout=soon", "--set llm.timeout=soon: expected a float"),
    ):
        code, out, err = heal_cli(capsys, repo, "--set", wrong, "--out", tmp_path / "out")
        assert (code, out) == (2, ""), err
        assert said in err.splitlines()[-1]


def test_allow_direct_requirements_is_the_callers_flag_and_reaches_the_heals_config(
    make_repo, tmp_path, capsys
):
    from selfheal.cli.parsers import build_parser

    assert build_parser().parse_args(["heal", "repo"]).allow_direct_requirements is False
    assert (
        build_parser().parse_args(["heal", "repo", "--allow-direct-requirements"]).allow_direct_requirements
    )
    repo = make_repo(BUGGY)
    out_dir = tmp_path / "out"
    code, _, err = heal_cli(capsys, repo, "--allow-direct-requirements", "--out", out_dir)
    assert code == 0, err
    checkpoint = json.loads((out_dir / "checkpoints" / "iteration-1.json").read_text(encoding="utf-8"))
    assert checkpoint["config"]["allow_direct_requirements"] is True


def test_no_command_takes_abbreviated_options():
    import argparse

    from selfheal.cli.parsers import build_parser

    def parsers(parser: argparse.ArgumentParser):
        yield parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    yield from parsers(sub)

    found = {p.prog: p.allow_abbrev for p in parsers(build_parser())}
    assert "selfheal heal" in found and "selfheal bot serve" in found and "selfheal memory" in found
    assert [prog for prog, abbreviates in found.items() if abbreviates] == []


def test_per_role_models_from_flags_and_pyproject_build_without_a_request(
    make_repo, tmp_path, capsys, monkeypatch
):
    """Claude as the main model from the repo's pyproject, a local Ollama generator from the flags:
    every provider is built (key read, client made), none is asked anything on a green suite."""
    from tests.fakes.anthropic_server import FakeAnthropic
    from tests.fakes.ollama_server import FakeOllama

    claude = FakeAnthropic.start(tmp_path / "claude", [])
    ollama = FakeOllama.start(tmp_path / "ollama", [])
    try:
        monkeypatch.setenv("MY_CLAUDE_KEY", claude.api_key or "")
        monkeypatch.setenv("OLLAMA_HOST", ollama.url)
        repo = make_repo(
            {
                **PASSING,
                "pyproject.toml": (
                    '[tool.selfheal]\nprovider = "anthropic"\n'
                    f'[tool.selfheal.llm]\napi-key-env = "MY_CLAUDE_KEY"\nbase-url = "{claude.url}"\n'
                    '[tool.selfheal.llm.roles]\ncritic = {model = "claude-haiku-4-5"}\n'
                ),
            }
        )
        code, out, err = heal_cli(
            capsys,
            repo,
            "--out",
            tmp_path / "out",
            "--model",
            "claude-opus-4-7",
            "--role",
            "generator=ollama:qwen2.5-coder:7b",
            "--max-iterations",
            "2",
        )
        asked = claude.requests() + ollama.requests()
    finally:
        claude.stop()
        ollama.stop()
    assert (code, out) == (0, ""), err
    assert "nothing to heal: no test fails" in err
    assert asked == []


# -- replay -----------------------------------------------------------------------------------------
def test_replay_resumes_a_run_from_its_checkpoint_with_a_change(tmp_path: Path) -> None:
    from tests.agent.report.test_checkpoints import two_bug_repo

    repo = two_bug_repo(tmp_path)
    run = tmp_path / "run"
    first = subprocess.run(
        [sys.executable, "-m", "selfheal", "heal", str(repo), "--python", sys.executable, "--out", str(run)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["iteration-1.json", "iteration-2.json"]

    again = subprocess.run(
        [sys.executable, "-m", "selfheal", "replay", str(run), "--from-iteration", "2",
         "--set", "max-candidates=0", "--json"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert again.returncode == 1, again.stderr  # no candidate left for round 2: the kept fix is partial
    said = "replaying run from iteration 2 (1 fix kept, 1 test to heal) with max-candidates=0"
    assert said in again.stderr
    report = json.loads(again.stdout)
    assert (report["status"], report["iterations"], len(report["fixes"])) == ("partial", 2, 1)
    assert (tmp_path / "run-replay-2" / "report.json").is_file()

    missing = subprocess.run(
        [sys.executable, "-m", "selfheal", "replay", str(run), "--from-iteration", "7"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert missing.returncode == 2
    assert "no checkpoint for iteration 7" in missing.stderr and "it has iterations 1, 2" in missing.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "selfheal", "replay", str(run), "--from-iteration", "1",
         "--set", "colour=red"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert bad.returncode == 2 and "--set colour: unknown" in bad.stderr


# -- secrets ----------------------------------------------------------------------------------------
SECRETS = {
    "ANTHROPIC_API_KEY": "sk-ant-api03-" + os.urandom(20).hex(),
    "GITHUB_TOKEN": "ghp_" + os.urandom(18).hex(),
    "SOME_SECRET": "some-" + os.urandom(10).hex(),
}
# A test that fails with every secret in its message, its output and its id: as if they had leaked
# into the repository's hands (the sandbox gives it none, so they are written into the test here).
LEAKY_TESTS = f"""
    import pytest

    from pkg.age import is_adult

    LEAKED = {list(SECRETS.values())!r}

    @pytest.mark.parametrize("who", [LEAKED[2]])
    def test_adult_at_18(who):
        print("stdout of the test:", *LEAKED)
        assert is_adult(18), "leaked " + " ".join(LEAKED)

    def test_child_at_17():
        assert not is_adult(17)
    """


def descendants(pid: int) -> list[int]:
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def environ_of(pid: int) -> bytes | None:
    """/proc/<pid>/environ, or None when it is gone or closed to us (an undumpable process of the
    same user, when the tests do not run as root)."""
    try:
        return Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None


def test_heal_holds_no_secret_in_its_environment_and_scrubs_every_output(make_repo, tmp_path):
    """`selfheal heal` as a user starts it, with keys in its environment, watched from outside
    while it runs: once re-executed, neither it nor anything it started has a secret in its
    /proc/<pid>/environ; a test that prints them leaves none in any output."""

    from tests.conftest import report_errors

    repo = make_repo({**BUGGY, "tests/test_age.py": LEAKY_TESTS})
    out_dir, stdout, stderr = tmp_path / "out", tmp_path / "stdout", tmp_path / "stderr"
    with stdout.open("wb") as out, stderr.open("wb") as err:
        heal = subprocess.Popen(
            [sys.executable, "-m", "selfheal", "heal", str(repo), "--sandbox", "local", "--out", str(out_dir),
             "--python", sys.executable, "--json"],
            env={**os.environ, **SECRETS}, stdout=out, stderr=err, cwd=tmp_path,
        )  # fmt: skip
    values = [v.encode() for v in SECRETS.values()]
    after_reexec, children = 0, set()
    while heal.poll() is None:
        own = environ_of(heal.pid)
        if own is not None and b"SELFHEAL_SECRETS_FD=" in own:  # the same pid, re-executed
            after_reexec += 1
            assert not [v for v in values if v in own]
            assert not [name for name in SECRETS if f"\0{name}=".encode() in b"\0" + own]
        for pid in descendants(heal.pid):
            environ = environ_of(pid)
            if environ is not None:
                children.add(pid)
                assert not [v for v in values if v in environ], f"pid {pid} holds a secret"
        time.sleep(0.05)
    heal.wait()

    assert heal.returncode == 0, stderr.read_text()
    assert after_reexec > 10 and children  # watched for a while, the tests' processes included
    printed = stdout.read_text() + stderr.read_text()
    files = {p: p.read_text(encoding="utf-8") for p in out_dir.rglob("*") if p.is_file()}
    assert {"report.json", "summary.md", "lessons.md", "trace.jsonl", "patch.diff"} <= {p.name for p in files}
    assert any(p.parent.name == "checkpoints" for p in files)
    for value in SECRETS.values():
        assert value not in printed
        for path, text in files.items():
            assert value not in text, f"{path.relative_to(out_dir)} holds a secret"
            assert value[:12] not in text, f"{path.relative_to(out_dir)} holds the start of a secret"
    # the failure reached the outputs, masked
    summary = (out_dir / "summary.md").read_text(encoding="utf-8")
    assert "AssertionError: leaked ***" in summary
    report = json.loads((out_dir / "report.json").read_text(encoding="utf-8"))
    assert json.loads(stdout.read_text()) == report
    assert report["status"] == "healed"
    assert "tests/test_age.py::test_adult_at_18[***]" in report["failures_before"]
    assert report_errors(report) == []


def test_heal_with_claude_authenticates_with_the_key_it_moved_out_of_its_environment(make_repo, tmp_path):
    """The key reaches the SDK from the handed-over mapping: every request to the fake Messages API
    carries it, though the heal's own environment no longer does."""
    from tests.fakes.anthropic_server import FakeAnthropic

    repo = make_repo(BUGGY)
    fake = FakeAnthropic.start(tmp_path / "fake", [])  # no answers: the search heals after the 400s
    try:
        env = {**os.environ, "ANTHROPIC_API_KEY": fake.api_key or "", "ANTHROPIC_BASE_URL": fake.url}
        done = subprocess.run(
            [sys.executable, "-m", "selfheal", "heal", str(repo), "--sandbox", "local",
             "--provider", "anthropic", "--out", str(tmp_path / "out"), "--python", sys.executable,
             "--max-iterations", "1"],
            env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path,
        )  # fmt: skip
        requests = fake.requests()
    finally:
        fake.stop()
    assert done.returncode == 0, done.stderr
    assert requests and all(r["key_ok"] for r in requests)
    assert {r["status"] for r in requests} == {400}  # the fake's "no more steps", never 401
    assert (fake.api_key or "") not in done.stdout + done.stderr


def test_repository_text_never_becomes_a_workflow_command_on_heals_output(make_repo, tmp_path):
    """`selfheal heal` may be a step of someone's workflow: the runner obeys `::` lines on its
    output. A conftest that cannot import, with commands in its error, reaches stdout and stderr
    neutralised."""
    repo = make_repo({
        "calc.py": "def add(a, b):\n    return a - b\n",
        "conftest.py": (
            "raise RuntimeError('broken\\n::add-mask::x\\n::set-output name=status::healed\\n"
            "  ::stop-commands::pwned\\n##[error]legacy\\n::error::z')\n"
        ),
        "tests/test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    })  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "selfheal", "heal", str(repo), "--out", str(tmp_path / "out"),
         "--sandbox", "local", "--python", sys.executable],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert "add-mask" in done.stdout + done.stderr  # the error is shown...
    for line in (done.stdout + done.stderr).splitlines():
        assert not line.lstrip().startswith("::"), line  # ...but no line of it is a command
        assert "##[" not in line, line


def test_the_program_loads_a_commands_modules_only_when_that_command_runs():
    # A command holding a secret re-executes itself before it runs: the first image parses the
    # arguments and hands the secrets over, and loading the heal there would be paid twice.
    probe = (
        "import sys\n"
        "from selfheal.cli.parsers import build_parser\n"
        "import selfheal.cli\n"
        "build_parser().parse_args(['memory', 'list'])\n"
        "print(sorted(m for m in ('selfheal.agent.loop', 'selfheal.cli.heal', 'selfheal.cli.memory',\n"
        "                         'selfheal.action.main', 'jinja2') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
