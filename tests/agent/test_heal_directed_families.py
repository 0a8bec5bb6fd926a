"""One whole heal per directed family: a tiny package whose failing test crashes, or whose regex
or string literal is wrong, healed through the public API with the local sandbox and real pytest.

The first repository runs its buggy code under a tracer it installs itself, so coverage records
nothing of the function that crashes: only the crash site from the traceback can point there.
Each test checks the proof obligations of `heal_repo` and then the concrete fix.
"""

from __future__ import annotations

import pytest

from tests.agent.test_heal_bug_shapes import heal_repo
from tests.conftest import diff_lines

pytestmark = pytest.mark.slow


def test_a_name_error_under_the_projects_own_tracer_is_fixed_by_spelling(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "stats/__init__.py": "",
            "stats/profiler.py": '''
            """Counts the calls a computation makes, with a tracer of its own."""

            import sys

            calls = []


            def _count(frame, event, arg):
                if event == "call":
                    calls.append(frame.f_code.co_name)
                return None


            def profiled(function, *args):
                previous = sys.gettrace()
                sys.settrace(_count)
                try:
                    return function(*args)
                finally:
                    sys.settrace(previous)
            ''',
            "stats/summary.py": '''
            """Summaries of a series of numbers."""

            from stats.profiler import profiled


            def spread(values):
                lowest = min(values)
                highest = max(values)
                return highest - lowst


            def describe(values):
                if not values:
                    return "empty"
                return f"spread {profiled(spread, values)}"
            ''',
            "tests/test_summary.py": """
            from stats.summary import describe


            def test_empty_series():
                assert describe([]) == "empty"


            def test_spread_of_a_series():
                assert describe([4, 1, 9]) == "spread 8"
            """,
        },
        failing={"tests/test_summary.py::test_spread_of_a_series"},
    )
    crash = result.localization.crashes[0]
    assert (crash.file, crash.exception, crash.message) == (
        "stats/summary.py",
        "NameError",
        "name 'lowst' is not defined",
    )
    site = next(s for s in result.localization.lines if (s.file, s.line) == (crash.file, crash.line))
    assert result.localization.had_coverage
    assert site.ochiai == 0.0  # the project's own tracer hid the crash line from coverage
    assert site.score == result.localization.lines[0].score  # yet it ranks with the best line
    removed, added = diff_lines(result.patch)
    assert removed == ["    return highest - lowst"]
    assert added == ["    return highest - lowest"]


def test_an_attribute_of_none_gets_a_none_check_at_the_crash_site(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "contacts/__init__.py": "",
            "contacts/book.py": '''
            """An address book."""

            from dataclasses import dataclass


            @dataclass
            class Contact:
                name: str
                email: str | None = None


            def domains(contacts):
                """The distinct e-mail domains, sorted; contacts without an e-mail are skipped."""
                found = set()
                for contact in contacts:
                    found.add(contact.email.split("@")[1])
                return sorted(found)
            ''',
            "tests/test_book.py": """
            from contacts.book import Contact, domains


            def test_domains_are_distinct_and_sorted():
                people = [Contact("a", "a@y.org"), Contact("b", "b@x.org"), Contact("c", "c@y.org")]
                assert domains(people) == ["x.org", "y.org"]


            def test_contacts_without_email_are_skipped():
                assert domains([Contact("a", "a@x.org"), Contact("b")]) == ["x.org"]
            """,
        },
        failing={"tests/test_book.py::test_contacts_without_email_are_skipped"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == []
    assert added == ["        if contact.email is None:", "            continue"]


def test_a_key_error_on_a_missing_group_becomes_setdefault(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "words/__init__.py": "",
            "words/groups.py": '''
            """Words grouped by their first letter."""


            def by_initial(words):
                groups = {}
                for word in words:
                    groups[word[0]].append(word)
                return groups
            ''',
            "tests/test_groups.py": """
            from words.groups import by_initial


            def test_no_words_no_groups():
                assert by_initial([]) == {}


            def test_words_are_grouped_in_order():
                assert by_initial(["apple", "banana", "avocado"]) == {
                    "a": ["apple", "avocado"],
                    "b": ["banana"],
                }
            """,
        },
        failing={"tests/test_groups.py::test_words_are_grouped_in_order"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["        groups[word[0]].append(word)"]
    assert added == ["        groups.setdefault(word[0], []).append(word)"]


def test_a_misspelt_keyword_is_adapted_to_the_callees_signature(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "shop/__init__.py": "",
            "shop/prices.py": '''
            """Prices as text."""


            def format_price(amount, currency="EUR", *, decimals=2):
                return f"{amount:.{decimals}f} {currency}"


            def invoice_line(name, amount, whole=False):
                if whole:
                    return f"{name}: {format_price(amount, decimal=0)}"
                return f"{name}: {format_price(amount)}"
            ''',
            "tests/test_prices.py": """
            from shop.prices import invoice_line


            def test_a_line_in_cents():
                assert invoice_line("tea", 3.5) == "tea: 3.50 EUR"


            def test_a_line_in_whole_euros():
                assert invoice_line("tea", 3.0, whole=True) == "tea: 3 EUR"
            """,
        },
        failing={"tests/test_prices.py::test_a_line_in_whole_euros"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ['        return f"{name}: {format_price(amount, decimal=0)}"']
    assert added == ['        return f"{name}: {format_price(amount, decimals=0)}"']


def test_a_regex_class_too_narrow_for_the_failing_input_is_widened(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "notes/__init__.py": "",
            "notes/tags.py": '''
            """Hash tags in a note."""

            import re

            TAG = re.compile(r"#(\\w+)")


            def tags(text):
                return TAG.findall(text)
            ''',
            "tests/test_tags.py": """
            from notes.tags import tags


            def test_simple_tags():
                assert tags("#a and #b") == ["a", "b"]


            def test_a_tag_with_a_hyphen():
                assert tags("learning #data-science with #python") == ["data-science", "python"]
            """,
        },
        failing={"tests/test_tags.py::test_a_tag_with_a_hyphen"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ['TAG = re.compile(r"#(\\w+)")']
    assert added == ['TAG = re.compile(r"#([\\w-]+)")']


def test_a_separator_is_taken_from_the_failing_input(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "config/__init__.py": "",
            "config/pairs.py": '''
            """Settings written as `key=value` pairs."""


            def parse_pairs(text):
                pairs = {}
                for item in text.split(","):
                    key, value = item.strip().split("=")
                    pairs[key] = int(value)
                return pairs
            ''',
            "tests/test_pairs.py": """
            from config.pairs import parse_pairs


            def test_one_pair():
                assert parse_pairs("a=1") == {"a": 1}


            def test_pairs_are_separated_by_semicolons():
                assert parse_pairs("a=1; b=2") == {"a": 1, "b": 2}
            """,
        },
        failing={"tests/test_pairs.py::test_pairs_are_separated_by_semicolons"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ['    for item in text.split(","):']
    # "; " from the input and ";" (the pairs are stripped) both split it right
    assert added in (['    for item in text.split(";"):'], ['    for item in text.split("; "):'])


def test_a_format_precision_is_taken_from_the_expected_text(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "labels/__init__.py": "",
            "labels/tags.py": '''
            """Price tags."""


            def price_tag(amount):
                return f"{amount:.1f} EUR"
            ''',
            "tests/test_tags.py": """
            from labels.tags import price_tag


            def test_a_price_tag_in_cents():
                assert price_tag(3.5) == "3.50 EUR"
            """,
        },
        failing={"tests/test_tags.py::test_a_price_tag_in_cents"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ['    return f"{amount:.1f} EUR"']
    assert added == ['    return f"{amount:.2f} EUR"']


def test_a_rounded_literal_becomes_the_standard_named_constant(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "geometry/__init__.py": "",
            "geometry/circles.py": '''
            """Circles."""


            def area(radius):
                return 3.14 * radius * radius
            ''',
            "tests/test_circles.py": """
            import pytest

            from geometry.circles import area


            def test_no_radius_no_area():
                assert area(0) == 0


            def test_area_of_a_circle():
                assert area(2) == pytest.approx(12.566370614359172)
            """,
        },
        failing={"tests/test_circles.py::test_area_of_a_circle"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    return 3.14 * radius * radius"]
    assert added == ["import math", "    return math.pi * radius * radius"]


def test_a_name_quoted_by_hand_in_an_error_message_is_shown_with_repr(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "store/__init__.py": "",
            "store/keys.py": '''
            """A key-value store that names the key it cannot find."""


            class MissingKey(Exception):
                pass


            def lookup(table: dict[str, str], key: str) -> str:
                if key not in table:
                    raise MissingKey("no key '{key}' in the table".format(key=key))
                return table[key]
            ''',
            "tests/test_keys.py": r"""
            import pytest

            from store.keys import MissingKey, lookup


            def test_found():
                assert lookup({"a": "1"}, "a") == "1"


            def test_a_missing_key_is_named():
                with pytest.raises(MissingKey, match="no key 'b' in the table"):
                    lookup({"a": "1"}, "b")


            def test_a_missing_key_with_a_newline_stays_on_one_line():
                with pytest.raises(MissingKey) as raised:
                    lookup({}, "two\nlines")
                assert "\n" not in str(raised.value)
                assert "'two\\nlines'" in str(raised.value)
            """,
        },
        failing={"tests/test_keys.py::test_a_missing_key_with_a_newline_stays_on_one_line"},
    )
    assert [f.family for f in result.fixes] == ["format-field"]
    removed, added = diff_lines(result.patch)
    assert removed == ["""        raise MissingKey("no key '{key}' in the table".format(key=key))"""]
    assert added == ["""        raise MissingKey("no key {key!r} in the table".format(key=key))"""]
