"""Whole heals whose fix calls the method next door (`time()` for `timetz()`, `match` for `fullmatch`)
or reads an attribute of a name instead of the name (`page` for `page.parent`).

Each runs through the public API with the local sandbox and real pytest, checks the proof
obligations of `heal_repo`, then the concrete fix.
"""

from __future__ import annotations

import pytest

from tests.agent.test_heal_bug_shapes import heal_repo
from tests.conftest import diff_lines

pytestmark = pytest.mark.slow


def test_a_time_of_day_that_drops_its_offset_calls_the_sibling_method(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "logclock/__init__.py": "",
            "logclock/stamps.py": '''
            """Times of day of log lines."""

            from datetime import datetime


            def clock_of(stamp: str):
                """The time of day of an ISO timestamp, with its UTC offset when it has one."""
                moment = datetime.fromisoformat(stamp)
                return moment.time()


            def describe(stamp: str) -> str:
                return clock_of(stamp).isoformat()
            ''',
            "tests/test_stamps.py": """
            from logclock.stamps import describe


            def test_a_naive_stamp():
                assert describe("2024-05-01T10:30:00") == "10:30:00"


            def test_an_offset_is_kept():
                assert describe("2024-05-01T10:30:00+02:00") == "10:30:00+02:00"
            """,
        },
        failing={"tests/test_stamps.py::test_an_offset_is_kept"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    return moment.time()"]
    assert added == ["    return moment.timetz()"]


def test_a_validator_that_accepts_a_prefix_matches_the_whole_text(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "tags/__init__.py": "",
            "tags/names.py": '''
            """Tag names: lower-case letters, digits and dashes."""

            import re

            _TAG = re.compile(r"[a-z0-9-]+")


            def is_tag(text: str) -> bool:
                return _TAG.match(text) is not None
            ''',
            "tests/test_names.py": """
            from tags.names import is_tag


            def test_plain_tags():
                assert is_tag("release-2")
                assert not is_tag("")


            def test_trailing_junk_is_not_a_tag():
                assert not is_tag("release!")
            """,
        },
        failing={"tests/test_names.py::test_trailing_junk_is_not_a_tag"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    return _TAG.match(text) is not None"]
    assert added == ["    return _TAG.fullmatch(text) is not None"]


def test_a_walk_up_the_tree_that_counts_the_root_tests_the_parent_instead(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "sitemap/__init__.py": "",
            "sitemap/pages.py": '''
            """Pages of a site, each under its parent page."""


            class Page:
                def __init__(self, title, parent=None):
                    self.title = title
                    self.parent = parent


            def trail(page):
                """The titles from under the site's root down to `page`; the root itself has none."""
                titles = []
                while page is not None:
                    titles.append(page.title)
                    page = page.parent
                return list(reversed(titles))
            ''',
            "tests/test_pages.py": """
            from sitemap.pages import Page, trail


            def test_the_root_has_no_trail():
                assert trail(Page("Home")) == []


            def test_a_nested_page():
                docs = Page("Docs", Page("Home"))
                assert trail(Page("API", docs)) == ["Docs", "API"]
            """,
        },
        failing={
            "tests/test_pages.py::test_the_root_has_no_trail",
            "tests/test_pages.py::test_a_nested_page",
        },
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    while page is not None:"]
    assert added == ["    while page.parent is not None:"]
