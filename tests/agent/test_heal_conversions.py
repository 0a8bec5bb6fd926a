"""Whole heals whose fix wraps a value in the conversion the failing assertion asks for.

Through the public API with the local sandbox and real pytest; `heal_repo` checks the proof
obligations, then each test the concrete fix.
"""

from __future__ import annotations

import pytest

from tests.agent.test_heal_bug_shapes import heal_repo
from tests.conftest import diff_lines

pytestmark = pytest.mark.slow


def test_a_whole_float_printed_as_a_count_is_formatted_as_an_integer(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "pages/__init__.py": "",
            "pages/counts.py": '''
            """Page counts for a print job."""


            def sheets(pages: float, per_sheet: int = 2) -> str:
                """How many sheets a job needs, e.g. "3 sheets"; a job of one sheet says "1 sheet"."""
                needed = -(-pages // per_sheet)
                if needed == 1:
                    return "1 sheet"
                return f"{needed} sheets"
            ''',
            "tests/test_counts.py": """
            from pages.counts import sheets


            def test_whole_pages():
                assert sheets(2) == "1 sheet"
                assert sheets(5) == "3 sheets"


            def test_pages_read_from_a_float_field():
                assert sheets(7.0) == "4 sheets"
            """,
        },
        failing={"tests/test_counts.py::test_pages_read_from_a_float_field"},
    )
    assert [f.family for f in result.fixes] == ["conversion"]
    removed, added = diff_lines(result.patch)
    assert removed == ['    return f"{needed} sheets"']
    assert added == ['    return f"{int(needed)} sheets"']


def test_a_pair_built_as_a_list_is_returned_as_the_tuple_callers_compare_with(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "readings/__init__.py": "",
            "readings/span.py": '''
            """The range of a series of sensor readings."""


            def span(readings: list[float]) -> tuple[float, float]:
                """The (lowest, highest) reading; (0, 0) for no readings."""
                if not readings:
                    return (0, 0)
                ordered = sorted(readings)
                ends = [ordered[0], ordered[-1]]
                return ends
            ''',
            "tests/test_span.py": """
            from readings.span import span


            def test_no_readings():
                assert span([]) == (0, 0)


            def test_lowest_and_highest():
                assert span([4, 1, 9]) == (1, 9)
            """,
        },
        failing={"tests/test_span.py::test_lowest_and_highest"},
    )
    assert [f.family for f in result.fixes] == ["conversion"]
    removed, added = diff_lines(result.patch)
    assert (removed, added) in (
        (["    ends = [ordered[0], ordered[-1]]"], ["    ends = tuple([ordered[0], ordered[-1]])"]),
        (["    return ends"], ["    return tuple(ends)"]),
    )
