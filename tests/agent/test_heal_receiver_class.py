"""Whole heals whose fix asks the receiver for its class (`Duration(...)` -> `type(self)(...)`),
in a class with `__slots__`, at a line the failing test points to only weakly.

Runs through the public API with the local sandbox and real pytest, checks the proof obligations
of `heal_repo`, then the concrete fix and what the localization lesson says of its line.
"""

from __future__ import annotations

import sys

import pytest

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace
from selfheal.agent.loop import heal
from selfheal.agent.report.lessons import build_lessons
from selfheal.sandbox import LocalSandbox
from tests.agent.test_heal_bug_shapes import heal_repo
from tests.conftest import diff_lines

pytestmark = pytest.mark.slow

DURATIONS = '''
"""Durations, kept in whole seconds."""


class Duration:
    __slots__ = ("seconds",)

    def __init__(self, seconds):
        if seconds < 0:
            raise ValueError("a duration is never negative")
        self.seconds = seconds

    def __str__(self):
        return f"{self.seconds}s"

    def scaled(self, factor):
        """A duration of the same kind, `factor` times as long."""
        return Duration(self.seconds * factor)


class Minutes(Duration):
    """A duration shown in minutes."""

    __slots__ = ()

    @classmethod
    def of(cls, minutes):
        return cls(minutes * 60)

    def __str__(self):
        return f"{self.seconds // 60}min"
'''

TESTS = """
import pytest

from spans.durations import Duration, Minutes


@pytest.mark.parametrize("factor", range(20))
def test_scaled_seconds(factor):
    assert Duration(3).scaled(factor).seconds == 3 * factor


def test_shown_in_seconds():
    assert str(Duration(5)) == "5s"


def test_negative_is_refused():
    with pytest.raises(ValueError):
        Duration(-1)


def test_scaled_minutes_stay_minutes():
    assert str(Minutes.of(2).scaled(2)) == "4min"
"""


def test_a_method_that_names_its_class_builds_the_subclass_it_was_called_on(make_repo, tmp_path):
    trace = Trace()

    def run_heal(repo, **flags):
        return heal(build_config(repo, {"python": sys.executable, **flags}), LocalSandbox(), trace)

    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {"spans/__init__.py": "", "spans/durations.py": DURATIONS, "tests/test_durations.py": TESTS},
        failing={"tests/test_durations.py::test_scaled_minutes_stay_minutes"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["        return Duration(self.seconds * factor)"]
    assert added == ["        return type(self)(self.seconds * factor)"]
    assert result.fixes[0].family == "receiver-class"
    # twenty passing tests run `scaled` too, so the failing test points at `Minutes.of` first
    top = result.localization.lines[0]
    assert (top.file, top.function) == ("spans/durations.py", "Minutes.of")
    assert [e.data["widened"] for e in trace.events if e.node == "repair"] == [True]
    lessons = build_lessons(result)
    assert any("the tests point at it only weakly" in lesson for lesson in lessons), lessons
