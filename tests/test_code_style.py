"""The code keeps to ruff's rules and format as pyproject.toml configures them (the version the
test extra pins), so that style drift shows in CI rather than in the next reader's diff."""

from __future__ import annotations

import subprocess
import sys
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
