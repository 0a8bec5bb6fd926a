"""The code keeps to ruff's rules and format as pyproject.toml configures them (the version the
test extra pins), so that style drift shows in CI rather than in the next reader's diff."""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_ruff_finds_nothing():
    done = ruff("check", "--output-format", "concise", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_code_is_formatted():
    done = ruff("format", "--check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


TRACKER_CITATION = re.compile(r"\bissues? \d+", re.IGNORECASE)
PROSE_FILES = (".ci/run", "pyproject.toml", "evaluation/gate.toml", "action.yml", "mkdocs.yml", "README.md")
# repositories, bugs and recorded results the benchmarks use as data, not the project's own words
DATA_FOLDERS = ("evaluation/tasks/", "evaluation/realbugs/", "evaluation/results/")


def _comments_and_docstrings(path: Path) -> list[tuple[int, str]]:
    text = path.read_text(encoding="utf-8")
    found = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring = ast.get_docstring(node, clean=False)
            if docstring:
                found.append((node.body[0].lineno, docstring))
    return found


def test_comments_say_why_without_citing_the_tracker():
    """A comment says why; the history says when. The word issue and a tracker's number mean
    nothing to a reader without the tracker, and go stale when it moves."""
    cited: list[str] = []
    for path in sorted(ROOT.glob("**/*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith((".", "build/", *DATA_FOLDERS)) or "/." in relative:
            continue
        cited += [
            f"{relative}:{line}"
            for line, text in _comments_and_docstrings(path)
            if TRACKER_CITATION.search(text)
        ]
    prose = [*PROSE_FILES, *(p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "docs").glob("**/*.md")))]
    for relative in prose:
        if (ROOT / relative).is_file():
            lines = (ROOT / relative).read_text(encoding="utf-8").splitlines()
            cited += [f"{relative}:{n}" for n, line in enumerate(lines, 1) if TRACKER_CITATION.search(line)]
    assert cited == []


MODULE_LINE_LIMIT = 500


def test_no_module_of_the_package_passes_the_line_limit():
    """A module longer than this mixes concerns a reader has to take apart to find one: split it
    by what each part owns, as the sandbox's backends and the bot's rooms are split."""
    longest = sorted(
        (len(path.read_text(encoding="utf-8").splitlines()), path.relative_to(ROOT).as_posix())
        for path in (ROOT / "selfheal").glob("**/*.py")
    )
    assert longest, "no module found under selfheal/"
    over = [f"{name}: {count} lines" for count, name in longest if count > MODULE_LINE_LIMIT]
    assert over == []
