"""Operand offsets: a value moved by one where arithmetic or a call uses it, bracketed as the
operator needs, in the likelier direction first, each edit once across the families, capped."""

from __future__ import annotations

import textwrap

import pytest

from selfheal.agent.repair.edits import SourceFile, apply_edits, content_key
from selfheal.agent.repair.mutation import (
    PRIORS,
    FunctionFacts,
    Hints,
    ModuleFacts,
    enclosing_function,
    parent_map,
    statement_at,
)
from selfheal.agent.repair.operand_offsets import (
    MAX_PER_STATEMENT,
    direction_weights,
    operand_offsets,
)
from selfheal.agent.repair.operators import statement_mutations
from selfheal.agent.repair.scope import scope_at
from selfheal.agent.repair.templates import template_mutations

SOURCE = textwrap.dedent('''
    import math

    LIMIT = 10
    TITLE = "Report"


    def page_of(items, page, per_page):
        """Pages are numbered from 1."""
        start = page * per_page
        return items[start:start + per_page]


    class Grid:
        def __init__(self, width):
            self.width = width
            self.cells = []

        def cell(self, row, col, names: list, label: str, grid, spec):
            index = row * self.width + col
            place = (row + col) * self.width
            power = 2 ** row
            mean = total(names) / len(names)
            share = row % col
            spread = (len(names) - 1) * col
            text = "%d rows" % row
            rule = "-" * col
            doubled = names * 2
            circle = math.pi * row ** 2
            offset = (row + 1) * col
            heading = label + TITLE
            pos = grid.origin + row - col
            last = row - len(names) - 1
            self.draw(grid.origin, LIMIT, count=row, size=len(names), key=total(names), title=TITLE)
            shown = show(names, label, row, self.width)
            wide = row * col * grid.origin * spec.width * self.width * LIMIT * total(names)
            braced = {"a": row}["a"] * col
            for i in range(col, len(names) - row):
                pass
            return wrap(row, len(names) + col)


    def repay(principal: Decimal, rate, months: int):
        balance = principal
        spread = 0.5
        for month in range(months):
            interest = to_cents(balance * rate)
            cut = spread * month
            payment = balance + interest
            fee = to_cents(principal / months * month)
            mean = total(month) / months
            late = mean * month
''').lstrip()


def line_of(text: str) -> int:
    return next(i for i, ln in enumerate(SOURCE.splitlines(), 1) if text in ln)


def _setup(text: str):
    src = SourceFile("m.py", SOURCE)
    parents = parent_map(src.tree)
    statement = statement_at(src, line_of(text), parents)
    facts = FunctionFacts(src, enclosing_function(statement, parents))
    return src, statement, parents, facts, ModuleFacts(src)


def _changed(edits) -> str:
    new = apply_edits({"m.py": SOURCE}, edits)["m.py"]
    compile(new, "m.py", "exec")
    return " | ".join(ln.strip() for ln in new.splitlines() if ln not in SOURCE.splitlines())


def offsets_at(text: str) -> list[str]:
    """The changed line of each operand offset of the statement at `text`, best first."""
    src, statement, parents, facts, module = _setup(text)
    scope = scope_at(src, statement, parents, facts, module)
    found = []
    for mutation in operand_offsets(src, statement, parents, facts, module, scope):
        assert mutation.family == "off-by-one" and mutation.family in PRIORS
        found.append(_changed(mutation.edits))
    return found


def descriptions_at(text: str) -> list[str]:
    src, statement, parents, facts, module = _setup(text)
    scope = scope_at(src, statement, parents, facts, module)
    return [m.description for m in operand_offsets(src, statement, parents, facts, module, scope)]


def every_family_at(text: str) -> list[tuple[str, str, str]]:
    """(family, description, changed line) of every operator and template at `text`."""
    src, statement, parents, facts, module = _setup(text)
    mutations = [
        *statement_mutations(src, statement, parents, facts, module, Hints()),
        *template_mutations(src, statement, parents, facts, module),
    ]
    return [(m.family, m.description, _changed(m.edits)) for m in mutations]


def test_a_page_numbered_from_one_is_moved_back_inside_brackets_before_it_is_multiplied():
    assert offsets_at("start = page * per_page") == [
        "start = (page - 1) * per_page",
        "start = page * (per_page - 1)",
        "start = (page + 1) * per_page",
        "start = page * (per_page + 1)",
    ]
    assert descriptions_at("start = page * per_page")[0] == "`page` -> `page - 1` in `page * per_page`"


def test_the_likelier_direction_per_operator_comes_first_by_the_counts():
    # `/`: 9 of `x + 1` against 48 of `x - 1` in the corpus, so `- 1` gets the full weight
    assert direction_weights("/", 0.8) == [("-", 0.8), ("+", pytest.approx(0.8 * 10 / 49))]
    # `%`: 40 against 17, the other way round
    assert direction_weights("%", 0.8) == [("+", 0.8), ("-", pytest.approx(0.8 * 18 / 41))]
    assert offsets_at("mean = total(names) / len(names)") == [
        "mean = (total(names) - 1) / len(names)",
        "mean = total(names) / (len(names) - 1)",
        "mean = (total(names) + 1) / len(names)",
        "mean = total(names) / (len(names) + 1)",
    ]
    assert offsets_at("share = row % col")[:2] == ["share = (row + 1) % col", "share = row % (col + 1)"]
    assert offsets_at("power = 2 ** row") == ["power = 2 ** (row - 1)", "power = 2 ** (row + 1)"]


def test_a_sum_is_moved_once_at_its_end_without_new_brackets():
    assert offsets_at("index = row * self.width + col") == [
        "index = (row - 1) * self.width + col",
        "index = row * (self.width - 1) + col",
        "index = row * self.width + col + 1",
        "index = (row + 1) * self.width + col",
        "index = row * (self.width + 1) + col",
        "index = row * self.width + col - 1",
    ]
    assert descriptions_at("index = row * self.width + col")[2] == (
        "`row * self.width + col` -> `row * self.width + col + 1`"
    )
    # a bracketed sum under `*` is moved inside its own brackets
    assert offsets_at("place = (row + col) * self.width")[:2] == [
        "place = (row + col - 1) * self.width",
        "place = (row + col) * (self.width - 1)",
    ]
    # one edit per direction for the whole sum, however many terms it has
    assert offsets_at("pos = grid.origin + row - col") == [
        "pos = grid.origin + row - col + 1",
        "pos = grid.origin + row - col - 1",
    ]


def test_call_arguments_the_other_families_leave_are_moved():
    assert offsets_at("self.draw(grid.origin") == [
        "self.draw(grid.origin - 1, LIMIT, count=row, size=len(names), key=total(names), title=TITLE)",
        "self.draw(grid.origin, LIMIT + 1, count=row, size=len(names), key=total(names), title=TITLE)",
        "self.draw(grid.origin, LIMIT, count=row + 1, size=len(names), key=total(names), title=TITLE)",
        "self.draw(grid.origin, LIMIT, count=row, size=len(names), key=total(names) + 1, title=TITLE)",
        "self.draw(grid.origin + 1, LIMIT, count=row, size=len(names), key=total(names), title=TITLE)",
        "self.draw(grid.origin, LIMIT - 1, count=row, size=len(names), key=total(names), title=TITLE)",
        "self.draw(grid.origin, LIMIT, count=row - 1, size=len(names), key=total(names), title=TITLE)",
        "self.draw(grid.origin, LIMIT, count=row, size=len(names), key=total(names) - 1, title=TITLE)",
    ]
    assert descriptions_at("self.draw(grid.origin")[2] == "argument `row` of `draw(...)` -> `row + 1`"
    # a sum passed on is moved as a sum
    assert offsets_at("return wrap(row, len(names) + col)") == [
        "return wrap(row, len(names) + col + 1)",
        "return wrap(row, len(names) + col - 1)",
    ]


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ('text = "%d rows" % row', []),  # `%` formats text
        ("doubled = names * 2", []),  # a list repeated
        ("heading = label + TITLE", []),  # text joined
        ("last = row - len(names) - 1", []),  # a sum holding a constant: the literal families move it
        ("for i in range(col, len(names) - row):", []),  # range's bounds are the bound operators'
        # `math.pi` is a module's constant, not the program's count; `row ** 2`'s constant is the literals'
        (
            "circle = math.pi * row ** 2",
            ["circle = math.pi * (row - 1) ** 2", "circle = math.pi * (row + 1) ** 2"],
        ),
    ],
)
def test_text_collections_constants_and_covered_sites_are_not_moved(statement, expected):
    assert offsets_at(statement) == expected


def test_braces_in_the_expression_are_described_as_written():
    assert descriptions_at("braced = ") == [
        '`col` -> `col - 1` in `{"a": row}["a"] * col`',
        '`col` -> `col + 1` in `{"a": row}["a"] * col`',
    ]


def test_a_real_amount_is_not_moved_by_one():
    # `balance` is the Decimal principal: moving a money amount by one fits a test by coincidence
    assert offsets_at("interest = to_cents(balance * rate)") == [
        "interest = to_cents(balance * (rate - 1))",
        "interest = to_cents(balance * (rate + 1))",
    ]
    assert offsets_at("cut = spread * month") == ["cut = spread * (month - 1)", "cut = spread * (month + 1)"]
    assert offsets_at("payment = balance + interest") == []  # a sum of amounts
    assert offsets_at("fee = to_cents(principal / months * month)") == [
        "fee = to_cents(principal / months * (month - 1))",
        "fee = to_cents(principal / (months - 1) * month)",
        "fee = to_cents(principal / months * (month + 1))",
        "fee = to_cents(principal / (months + 1) * month)",
    ]
    # a true division's result is a real amount too
    assert offsets_at("late = mean * month") == ["late = mean * (month - 1)", "late = mean * (month + 1)"]


def test_a_string_repeated_moves_only_its_count():
    assert offsets_at('rule = "-" * col') == ['rule = "-" * (col - 1)', 'rule = "-" * (col + 1)']


def test_a_sum_holding_a_constant_leaves_its_terms_alone_and_no_op_is_made():
    assert offsets_at("offset = (row + 1) * col") == [
        "offset = (row + 1) * (col - 1)",
        "offset = (row + 1) * (col + 1)",
    ]
    assert offsets_at("spread = (len(names) - 1) * col") == [
        "spread = (len(names) - 1) * (col - 1)",
        "spread = (len(names) - 1) * (col + 1)",
    ]
    everything = [changed for _, _, changed in every_family_at("spread = (len(names) - 1) * col")]
    assert "spread = (len(names) + 1 - 1) * col" not in everything  # the length site's old no-op


def test_a_length_in_arithmetic_is_bracketed_by_this_family_not_moved_by_the_length_site():
    found = every_family_at("mean = total(names) / len(names)")
    assert ("off-by-one", "`len(names)` -> `len(names) - 1` in `total(names) / len(names)`") in [
        (family, description) for family, description, _ in found
    ]
    assert not any(description.startswith("length ") for _, description, _ in found)
    assert "mean = total(names) / len(names) - 1" not in [changed for _, _, changed in found]


def test_a_long_expression_is_capped_the_best_weighted_first():
    found = offsets_at("wide = row * col")
    assert len(found) == MAX_PER_STATEMENT
    assert all(" - 1" in changed for changed in found[:7])  # `*` moves `- 1` first (98 against 124)


@pytest.mark.parametrize(
    "statement",
    [
        "start = page * per_page",
        "index = row * self.width + col",
        "mean = total(names) / len(names)",
        "spread = (len(names) - 1) * col",
        "self.draw(grid.origin",
        "shown = show(names, label, row, self.width)",
        "for i in range(col, len(names) - row):",
        "return wrap(row, len(names) + col)",
        "return items[start:start + per_page]",
    ],
)
def test_no_operand_offset_repeats_another_familys_edit(statement):
    found = every_family_at(statement)
    ours = [changed for family, description, changed in found if (family, description) in _ours(statement)]
    others = [
        changed for family, description, changed in found if (family, description) not in _ours(statement)
    ]
    assert not set(ours) & set(others)
    assert len(ours) == len(set(ours))


def _ours(statement: str) -> set[tuple[str, str]]:
    src, node, parents, facts, module = _setup(statement)
    scope = scope_at(src, node, parents, facts, module)
    return {(m.family, m.description) for m in operand_offsets(src, node, parents, facts, module, scope)}


def test_positional_locals_and_self_attributes_are_left_to_bounded_arguments():
    found = every_family_at("shown = show(names, label, row, self.width)")
    assert offsets_at("shown = show(names, label, row, self.width)") == []
    bounded = sorted(changed for family, _, changed in found if family == "off-by-one")
    assert "shown = show(names, label, row - 1, self.width)" in bounded
    assert "shown = show(names, label, row, self.width - 1)" in bounded


def test_every_offset_changes_the_program():
    src = SourceFile("m.py", SOURCE)
    for line in range(1, len(SOURCE.splitlines()) + 1):
        parents = parent_map(src.tree)
        statement = statement_at(src, line, parents)
        if statement is None:
            continue
        facts = FunctionFacts(src, enclosing_function(statement, parents))
        module = ModuleFacts(src)
        scope = scope_at(src, statement, parents, facts, module)
        for mutation in operand_offsets(src, statement, parents, facts, module, scope):
            new = apply_edits({"m.py": SOURCE}, mutation.edits)
            assert content_key(new) != content_key({"m.py": SOURCE})
            assert " + 1 - 1" not in new["m.py"] and " - 1 + 1" not in new["m.py"]
