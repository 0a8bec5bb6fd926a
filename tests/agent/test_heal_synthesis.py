"""One whole heal per kind of synthesized expression: a tiny package whose bug is one step beyond a
single-token mutation, healed through the public API with the local sandbox and real pytest.

An argument that needs an in-scope value taken off, a value that must be clamped to a bound the
class keeps, a starting value that is wrong for negative inputs, and a set that is tested but
never filled. Each test checks the proof obligations of `heal_repo`, then the concrete fix and
that expression synthesis made it.
"""

from __future__ import annotations

import pytest

from selfheal.agent.report.lessons import build_lessons
from tests.agent.test_heal_bug_shapes import heal_repo
from tests.conftest import diff_lines

pytestmark = pytest.mark.slow


def test_an_argument_is_adjusted_by_an_in_scope_value(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "report/__init__.py": "",
            "report/table.py": '''
            """Fixed-width text rows for a plain-text report."""


            def row(label, value, width):
                """`label: value`, padded with spaces to exactly `width` characters."""
                prefix = f"{label}: "
                used = len(prefix)
                return prefix + str(value).ljust(width)
            ''',
            "tests/test_table.py": """
            from report.table import row


            def test_a_row_is_as_wide_as_asked():
                assert row("id", 7, 10) == "id: 7     "


            def test_a_longer_label():
                assert len(row("total", 12, 20)) == 20
            """,
        },
        failing={
            "tests/test_table.py::test_a_row_is_as_wide_as_asked",
            "tests/test_table.py::test_a_longer_label",
        },
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    return prefix + str(value).ljust(width)"]
    assert added == ["    return prefix + str(value).ljust(width - used)"]
    assert result.fixes[0].family == "synthesis-adjust"


def test_a_value_is_clamped_to_the_bound_its_class_keeps(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "mixer/__init__.py": "",
            "mixer/fader.py": '''
            """A fader that moves in steps between a floor and a ceiling."""


            class Fader:
                def __init__(self, floor, ceiling):
                    self.floor = floor
                    self.ceiling = ceiling
                    self.level = floor

                def raise_by(self, steps):
                    self.level = self.level + steps
                    return self.level
            ''',
            "tests/test_fader.py": """
            from mixer.fader import Fader


            def test_raising_within_range():
                fader = Fader(0, 10)
                assert fader.raise_by(4) == 4


            def test_raising_stops_at_the_ceiling():
                fader = Fader(0, 10)
                fader.raise_by(6)
                assert fader.raise_by(7) == 10
            """,
        },
        failing={"tests/test_fader.py::test_raising_stops_at_the_ceiling"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["        self.level = self.level + steps"]
    assert added == ["        self.level = min(self.level + steps, self.ceiling)"]
    assert result.fixes[0].family == "synthesis-clamp"
    assert build_lessons(result)[0].startswith(
        "In `Fader.raise_by` (mixer/fader.py:11) a value was not kept within its bound: "
    )


def test_a_wrong_starting_value_is_swapped_for_the_neutral_one(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "weather/__init__.py": "",
            "weather/readings.py": '''
            """Temperature readings of a station, in degrees Celsius."""


            def warmest(readings):
                """The highest of the readings; winter readings are below zero."""
                best = 0
                for reading in readings:
                    if reading > best:
                        best = reading
                return best
            ''',
            "tests/test_readings.py": """
            from weather.readings import warmest


            def test_a_summer_day():
                assert warmest([14, 21, 18]) == 21


            def test_a_winter_day():
                assert warmest([-8, -3, -5]) == -3
            """,
        },
        failing={"tests/test_readings.py::test_a_winter_day"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    best = 0"]
    assert added == ['    best = float("-inf")']
    assert result.fixes[0].family == "synthesis-neutral"


def test_a_set_that_is_tested_but_never_filled_gets_the_missing_add(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "mail/__init__.py": "",
            "mail/recipients.py": '''
            """Recipient lists for a mailing."""


            def distinct(addresses):
                """The addresses in their first order, each once whatever its case."""
                seen = set()
                kept = []
                for address in addresses:
                    key = address.strip().lower()
                    if key in seen:
                        continue
                    kept.append(address.strip())
                return kept
            ''',
            "tests/test_recipients.py": """
            from mail.recipients import distinct


            def test_distinct_addresses_are_kept():
                assert distinct(["a@x.org", "b@x.org"]) == ["a@x.org", "b@x.org"]


            def test_a_repeated_address_is_kept_once():
                assert distinct(["Ann@x.org", "bob@x.org", "ann@X.org "]) == ["Ann@x.org", "bob@x.org"]
            """,
        },
        failing={"tests/test_recipients.py::test_a_repeated_address_is_kept_once"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == []
    assert added == ["        seen.add(key)"]
    assert result.fixes[0].family == "synthesis-update"
