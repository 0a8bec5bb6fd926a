"""A candidate agrees with the code's own documentation when its edit puts in the words a
docstring or comment around it uses, and takes out none it uses."""

from __future__ import annotations

import textwrap

from selfheal.agent.repair.documented import documented
from selfheal.agent.repair.edits import Edit

SOURCE = textwrap.dedent('''
    """Invoice lines. Tax is rounded to the cent half to even (banker's rounding)."""

    import decimal
    from decimal import Decimal

    CENT = Decimal("0.01")


    def line_tax(amount, rate):
        return (amount * rate).quantize(CENT, rounding=decimal.ROUND_CEILING)


    class Labels:
        """Menu labels."""

        def label(self, kind):
            """A kind's name in title case, as the menu shows it."""
            return kind.lower()

        def code(self, kind):
            # codes are upper case, never lower case
            return kind.lower()[:3]


    def first_item(items):
        """The first item, or None."""
        return items[1]
''').lstrip()


def says(old: str, new: str, occurrence: int = 0) -> bool:
    data = SOURCE.encode("utf-8")
    start = -1
    for _ in range(occurrence + 1):
        start = data.index(old.encode("utf-8"), start + 1)
    return documented({"m.py": SOURCE}, [Edit("m.py", start, start + len(old.encode("utf-8")), new)])


def test_a_constant_whose_name_the_module_docstring_spells_is_documented_and_its_siblings_are_not():
    assert says("ROUND_CEILING", "ROUND_HALF_EVEN")  # "half to even": small words aside
    assert not says("ROUND_CEILING", "ROUND_HALF_DOWN")  # every word must be said
    assert not says("ROUND_CEILING", "ROUND_HALF_UP")
    assert not says("ROUND_CEILING", "ROUND_FLOOR")


def test_a_method_the_functions_own_docstring_names():
    assert says("lower()", "title()")
    assert not says("lower()", "upper()")


def test_a_comment_in_the_function_counts_but_not_when_it_also_names_what_the_edit_takes_out():
    # "codes are upper case, never lower case": `upper` is said, but so is `lower`, taken out
    assert not says("lower()", "upper()", occurrence=1)


def test_an_edit_without_words_says_nothing():
    assert not says("items[1]", "items[0]")
    assert not says("amount * rate", "amount * rate + 1")


def test_a_short_single_word_is_not_enough():
    assert not says("ROUND_CEILING", "ROUND_UP")  # `up` alone: two letters
