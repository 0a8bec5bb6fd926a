"""Where a value is set and where a later statement reads it (agent/repair/origin.py)."""

from __future__ import annotations

from selfheal.agent.repair.origin import reads_what_is_assigned

SOURCE = """\
class Fader:
    def raise_by(self, steps):
        self.level = self.level + steps
        return self.level

    def lower_by(self, steps):
        return self.level - steps


def total(prices, limit):
    total = 0
    for price in prices:
        total += price
    if total > limit:
        return limit
    items = [p for p in prices]
    return len(items)
"""


def test_a_return_reads_the_attribute_the_line_before_assigns():
    assert reads_what_is_assigned(SOURCE, assigned_at=3, read_at=4) is True


def test_the_assignment_does_not_read_what_a_return_sets():
    assert reads_what_is_assigned(SOURCE, assigned_at=4, read_at=3) is False


def test_another_method_reading_the_same_attribute_is_not_downstream():
    assert reads_what_is_assigned(SOURCE, assigned_at=3, read_at=7) is False


def test_an_augmented_assignment_feeds_the_header_of_a_later_if():
    assert reads_what_is_assigned(SOURCE, assigned_at=13, read_at=14) is True


def test_a_statement_inside_the_if_reads_only_its_own_names():
    # line 15 (`return limit`) sits inside the `if` whose header reads `total`; it reads `limit` only
    assert reads_what_is_assigned(SOURCE, assigned_at=11, read_at=14) is True
    assert reads_what_is_assigned(SOURCE, assigned_at=11, read_at=15) is False


def test_a_name_a_later_line_does_not_read():
    assert reads_what_is_assigned(SOURCE, assigned_at=16, read_at=14) is False
    assert reads_what_is_assigned(SOURCE, assigned_at=11, read_at=17) is False


def test_a_line_inside_a_block_that_no_statement_spans_is_nothing():
    assert (
        reads_what_is_assigned(
            "def f(x):\n    y = x\n    if y:\n\n        return y\n", assigned_at=2, read_at=4
        )
        is False
    )


def test_a_subscript_target_is_not_a_value_the_search_can_follow():
    source = "def f(xs):\n    xs[0] = 1\n    return xs[0]\n"
    assert reads_what_is_assigned(source, assigned_at=2, read_at=3) is False


def test_source_that_does_not_parse_says_nothing():
    assert reads_what_is_assigned("def f(:\n", assigned_at=1, read_at=1) is False
