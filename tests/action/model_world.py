"""A world for the model heals of the Action: a repository whose bug the search cannot fix (a
conversion missing its offset: no mutation of the code makes 32 appear), the fake GitHub, and
scripts for the fake Anthropic and Ollama servers that heal it the way a model would."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.action.conftest import COLLABORATORS, REPO
from tests.conftest import git

FILES = {
    "pyproject.toml": '[project]\nname = "temps"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n',
    "temps/__init__.py": "",
    "temps/convert.py": (
        '"""Temperature conversions."""\n\n\n'
        "def to_fahrenheit(celsius: float) -> float:\n"
        '    """Degrees Celsius in degrees Fahrenheit: water freezes at 32 and boils at 212."""\n'
        "    return celsius * 9 / 5\n\n\n"
        "def to_celsius(fahrenheit: float) -> float:\n"
        '    """Degrees Fahrenheit in degrees Celsius."""\n'
        "    return (fahrenheit - 32) * 5 / 9\n"
    ),
    "tests/test_convert.py": (
        "from temps.convert import to_celsius, to_fahrenheit\n\n\n"
        "def test_freezing_point() -> None:\n    assert to_fahrenheit(0) == 32\n\n\n"
        "def test_boiling_point() -> None:\n    assert to_fahrenheit(100) == 212\n\n\n"
        "def test_celsius_of_body_temperature() -> None:\n    assert round(to_celsius(98.6), 1) == 37.0\n"
    ),
}
BUGGY = "    return celsius * 9 / 5\n"
FIXED = "    return celsius * 9 / 5 + 32\n"
EDIT = f"Add the offset of 32.\n\ntemps/convert.py\n<<<<<<< SEARCH\n{BUGGY}=======\n{FIXED}>>>>>>> REPLACE\n"
SNIPPET = "from temps.convert import to_fahrenheit\nprint(to_fahrenheit(0), to_fahrenheit(100))"
CONCLUSION = {
    "root_cause": "to_fahrenheit scales by 9/5 but never adds the offset of 32 degrees.",
    "location": {"file": "temps/convert.py", "line": 6, "function": "to_fahrenheit"},
    "confidence": 0.9,
    "strategy": "Add 32 after scaling.",
    "evidence": ["to_fahrenheit(0) printed 0.0 where water freezes at 32"],
}
SPEC_TESTS = {
    "imports": ["from temps.convert import to_fahrenheit"],
    "tests": [
        {
            "name": "test_minus_forty_is_the_same_on_both_scales",
            "source": "property",
            "code": "def test_minus_forty_is_the_same_on_both_scales():\n"
            "    assert to_fahrenheit(-40) == -40\n",
        }
    ],
}
ADVERSARIAL_TESTS = {
    "imports": ["from temps.convert import to_fahrenheit"],
    "tests": [
        {
            "name": "test_ten_below_zero",
            "edge_case": "a negative temperature",
            "oracle": "docstring",
            "code": "def test_ten_below_zero():\n    assert to_fahrenheit(-10) == 14\n",
        }
    ],
}
ACCEPT = {"decision": "accept", "reason": "adds the missing offset; nothing else changes", "concerns": []}
MODEL_TESTS = "tests/test_selfheal_to_fahrenheit.py"


def anthropic_script() -> list[dict[str, Any]]:
    """Claude's answers in the order the heal asks: spec-blind tests, the debugger (a tool call,
    then its conclusion), the generator (two answers at once: parallel 2), adversarial tests on
    the fix, the critic."""
    from tests.fakes.anthropic_server import message, ok, text, tool_use

    return [
        ok(message(text(json.dumps(SPEC_TESTS)), input_tokens=600, output_tokens=70)),
        ok(
            message(
                text("Check both fixed points."),
                tool_use("toolu_01", "run_snippet", {"code": SNIPPET}),
                input_tokens=1500,
                output_tokens=90,
            )
        ),
        ok(message(text(json.dumps(CONCLUSION)), input_tokens=1900, output_tokens=150)),
        ok(message(text(EDIT), input_tokens=1200, output_tokens=80)),
        ok(message(text(EDIT), input_tokens=1200, output_tokens=80)),
        ok(message(text(json.dumps(ADVERSARIAL_TESTS)), input_tokens=900, output_tokens=100)),
        ok(message(text(json.dumps(ACCEPT)), input_tokens=700, output_tokens=40)),
    ]


def ollama_script() -> list[dict[str, Any]]:
    from tests.fakes.ollama_server import chat, ok, tool_call

    return [
        ok(chat(json.dumps(SPEC_TESTS), prompt_eval_count=500, eval_count=60)),
        ok(
            chat(
                tool_calls=[tool_call("run_snippet", {"code": SNIPPET})], prompt_eval_count=800, eval_count=40
            )
        ),
        ok(chat(json.dumps(CONCLUSION), prompt_eval_count=1000, eval_count=120)),
        ok(chat(EDIT, prompt_eval_count=700, eval_count=60)),
        ok(chat(EDIT, prompt_eval_count=700, eval_count=60)),
        ok(chat(json.dumps(ADVERSARIAL_TESTS), prompt_eval_count=900, eval_count=90)),
        ok(chat(json.dumps(ACCEPT), prompt_eval_count=600, eval_count=30)),
    ]


def seed_temps_remote(tmp: Path) -> tuple[Path, dict[str, str]]:
    """A bare remote with main (the conversion bug) and feature (main + a docs commit: PR 7's head)."""
    work = tmp / "seed"
    for name, text in FILES.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "temps")
    shas = {"main": git(work, "rev-parse", "HEAD").strip()}
    git(work, "checkout", "-q", "-b", "feature")
    (work / "NOTES.md").write_text("fahrenheit is off\n", encoding="utf-8")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "notes")
    shas["feature"] = git(work, "rev-parse", "HEAD").strip()
    remote = tmp / "remote.git"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(remote))
    git(work, "push", "-q", str(remote), "main", "feature")
    return remote, shas


def github_state(remote: Path, token: str, issue_body: str = "") -> dict[str, Any]:
    pull = {"title": "Notes", "body": "", "user": "alice", "head_ref": "feature", "head_sha": None,
            "base_ref": "main"}  # fmt: skip
    return {
        "token": token,
        "bot_login": "github-actions[bot]",
        "repos": [{
            "full_name": REPO, "default_branch": "main", "git_dir": str(remote),
            "collaborators": COLLABORATORS,
            "pulls": [{**pull, "number": 7, "head_full_name": REPO},
                      {**pull, "number": 8, "user": "mallory", "head_full_name": "mallory/widgets"}],
            "issues": [{"number": 3, "title": "fahrenheit is wrong", "body": issue_body, "user": "alice"}],
        }],
    }  # fmt: skip
