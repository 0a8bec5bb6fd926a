"""Whole heals whose fix moves a value by one where arithmetic, an index or a call uses it.

A page numbered from 1 used as an offset counted from 0 (`(page - 1) * per_page`), a middle
position computed from a count where the last position was meant (`(len(xs) - 1) // 2`), and a
count of fields passed where a count of splits was meant (`maxsplit=spec.fields - 1`). Through
the public API with the local sandbox and real pytest; `heal_repo` checks the proof obligations,
then each test the concrete fix and that the off-by-one family made it.
"""

from __future__ import annotations

import pytest

from selfheal.agent.report.lessons import meaning
from tests.agent.test_heal_bug_shapes import heal_repo
from tests.conftest import diff_lines

pytestmark = pytest.mark.slow


def test_a_page_numbered_from_one_is_moved_back_before_it_is_multiplied(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "paging/__init__.py": "",
            "paging/pages.py": '''
            """Pagination of a list of items. Pages are numbered from 1."""


            def page_of(items: list, page: int, per_page: int) -> list:
                """The items on page `page` (the first page is page 1), `per_page` to a page."""
                start = page * per_page
                return items[start:start + per_page]


            def page_count(items: list, per_page: int) -> int:
                """How many pages the items fill; an empty list still has one (empty) page."""
                return max(1, -(-len(items) // per_page))
            ''',
            "tests/test_pages.py": """
            from paging.pages import page_count, page_of

            ITEMS = list(range(1, 24))


            def test_the_first_page_holds_the_first_items():
                assert page_of(ITEMS, 1, 10) == list(range(1, 11))


            def test_the_second_page_follows_the_first():
                assert page_of(ITEMS, 2, 10) == list(range(11, 21))


            def test_the_page_count_rounds_up():
                assert page_count(ITEMS, 10) == 3
                assert page_count([], 10) == 1
            """,
        },
        failing={
            "tests/test_pages.py::test_the_first_page_holds_the_first_items",
            "tests/test_pages.py::test_the_second_page_follows_the_first",
        },
    )
    removed, added = diff_lines(result.patch)
    assert (removed, added) == (["    start = page * per_page"], ["    start = (page - 1) * per_page"])
    assert result.fixes[0].family == "off-by-one"
    assert result.fixes[0].description.endswith("`page` -> `page - 1` in `page * per_page`")
    assert meaning(result.fixes[0]) == "a bound, index or constant was off by one"


def test_a_middle_index_counts_from_the_last_position_not_the_length(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "stats/__init__.py": "",
            "stats/middle.py": '''
            """Order statistics of lists already sorted in ascending order."""


            def lower_median(ordered: list[float]) -> float:
                """The middle value; of an even count, the lower of the two middle values."""
                return ordered[len(ordered) // 2]
            ''',
            "tests/test_middle.py": """
            from stats.middle import lower_median


            def test_an_odd_count_has_one_middle():
                assert lower_median([1, 3, 5]) == 3
                assert lower_median([1, 2, 4, 7, 9]) == 4


            def test_an_even_count_takes_the_lower_middle():
                assert lower_median([1, 2, 3, 4]) == 2
                assert lower_median([10, 20, 30, 40, 50, 60]) == 30
            """,
        },
        failing={"tests/test_middle.py::test_an_even_count_takes_the_lower_middle"},
    )
    removed, added = diff_lines(result.patch)
    assert (removed, added) == (
        ["    return ordered[len(ordered) // 2]"],
        ["    return ordered[(len(ordered) - 1) // 2]"],
    )
    assert result.fixes[0].family == "off-by-one"


def test_a_count_of_fields_passed_as_a_count_of_splits_is_moved_back(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "records/__init__.py": "",
            "records/lines.py": '''
            """Delimited text records whose last field may itself hold the delimiter."""

            from dataclasses import dataclass


            @dataclass(frozen=True)
            class Layout:
                fields: int  # how many fields a record has
                delimiter: str = ","


            def split_record(line: str, layout: Layout, strip: bool, width: int, skip: int) -> list[str]:
                """The record's fields: exactly `layout.fields` of them when the line has that many
                delimiters or more, the last one keeping the rest of the line; each field stripped of
                spaces when `strip` is set, cut to `width` characters, after `skip` leading characters
                of the line are skipped."""
                parts = line[skip:].split(layout.delimiter, maxsplit=layout.fields)
                return [(part.strip() if strip else part)[:width] for part in parts]
            ''',
            "tests/test_lines.py": """
            from records.lines import Layout, split_record


            def test_a_record_with_as_many_fields_as_the_layout():
                assert split_record("a,b,c", Layout(3), False, 10, 0) == ["a", "b", "c"]


            def test_the_last_field_keeps_the_rest_of_the_line():
                assert split_record("a,b,c,d", Layout(3), False, 10, 0) == ["a", "b", "c,d"]


            def test_fields_are_stripped_and_cut():
                assert split_record("#  a , bb,c;d", Layout(2), True, 3, 1) == ["a", "bb,"]
            """,
        },
        failing={
            "tests/test_lines.py::test_the_last_field_keeps_the_rest_of_the_line",
            "tests/test_lines.py::test_fields_are_stripped_and_cut",
        },
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    parts = line[skip:].split(layout.delimiter, maxsplit=layout.fields)"]
    assert added == ["    parts = line[skip:].split(layout.delimiter, maxsplit=layout.fields - 1)"]
    assert result.fixes[0].family == "off-by-one"
