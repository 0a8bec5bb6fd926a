"""Fix templates produce exact, compilable edits of the shape their docstrings promise."""

from __future__ import annotations

import textwrap

from selfheal.agent.repair.edits import SourceFile, apply_edits
from selfheal.agent.repair.mutation import (
    PRIORS,
    FunctionFacts,
    ModuleFacts,
    enclosing_function,
    parent_map,
    statement_at,
)
from selfheal.agent.repair.templates import template_mutations

SOURCE = textwrap.dedent("""
    import decimal
    import re
    from datetime import datetime

    UNITS = {"s": 1.0, "ms": 0.001, "us": 1000.0, "min": 60}
    PATTERN = re.compile(r"\\{(\\w+)\\|(.*)\\}")


    class Level:
        LOW = 1
        HIGH = 2
        _HIDDEN = 3


    def total_size(node, depth):
        total = 0
        for child in node.children:
            total = total_size(child, depth)
        return walk(node, depth)


    def merge(own, inherited, line, when, word, ttl, default, names):
        key, value = line.split("=")
        merged = {**own, **inherited}
        day = datetime.strptime(when, "%m/%d/%Y")
        if word in names:
            pass
        life = ttl or default
        minutes = own * ttl * 60 + default
        scaled = own * (ttl + 1)
        rounded = decimal.Decimal(value).quantize(1, rounding=decimal.ROUND_DOWN)
        if ttl:
            return Level.LOW
        if word.startswith("0"):
            tail = word[1:]
        elif word.startswith("00"):
            tail = word[2:]
        else:
            tail = word[-ttl:]
        return (ttl + 1, (own - default) - 1)
""").lstrip()


def templates_at(line: int) -> dict[str, list[str]]:
    """Changed lines per family for the statement at `line`, each mutant compiled."""
    src = SourceFile("m.py", SOURCE)
    parents = parent_map(src.tree)
    statement = statement_at(src, line, parents)
    facts = FunctionFacts(src, enclosing_function(statement, parents))
    found: dict[str, list[str]] = {}
    for mutation in template_mutations(src, statement, parents, facts, ModuleFacts(src)):
        assert mutation.family in PRIORS
        new = apply_edits({"m.py": SOURCE}, mutation.edits)["m.py"]
        compile(new, "m.py", "exec")
        changed = [ln for ln in new.splitlines() if ln not in SOURCE.splitlines()]
        found.setdefault(mutation.family, []).append(" | ".join(changed))
    return found


def line_of(text: str) -> int:
    return next(i for i, ln in enumerate(SOURCE.splitlines(), 1) if text in ln)


def test_an_overwrite_in_a_loop_becomes_an_accumulation():
    found = templates_at(line_of("total = total_size(child, depth)"))
    assert found["augmented-assignment"] == [
        "        total += total_size(child, depth)",
        "        total -= total_size(child, depth)",
    ]
    # a name bound once, like `key` below, is not an accumulator
    assert "augmented-assignment" not in templates_at(line_of('key, value = line.split("=")'))


def test_an_argument_is_bounded_and_a_plus_one_dropped():
    found = templates_at(line_of("total = total_size(child, depth)"))
    assert "        total = total_size(child, depth - 1)" in found["off-by-one"]
    assert "        total = total_size(child - 1, depth)" in found["off-by-one"]
    dropped = templates_at(line_of("return (ttl + 1"))["off-by-one"]
    assert "    return (ttl, (own - default) - 1)" in dropped
    assert "    return (ttl + 1, own - default)" in dropped


def test_a_split_is_limited_to_the_first_separator():
    found = templates_at(line_of('key, value = line.split("=")'))
    assert found["argument"] == ['    key, value = line.split("=", 1)']


def test_a_dict_merge_is_reordered():
    found = templates_at(line_of("merged = {**own, **inherited}"))
    assert found["operand-swap"] == ["    merged = {**inherited, **own}"]


def test_two_date_fields_trade_places():
    found = templates_at(line_of("datetime.strptime"))
    assert found["format-string"][0] == '    day = datetime.strptime(when, "%d/%m/%Y")'
    assert '    day = datetime.strptime(when, "%Y/%d/%m")' in found["format-string"]
    assert len(found["format-string"]) == 3


def test_a_value_is_normalised_before_a_membership_test():
    found = templates_at(line_of("if word in names"))
    assert found["normalize"] == ["    if word.lower() in names:", "    if word.strip() in names:"]


def test_none_instead_of_falsiness():
    assert templates_at(line_of("life = ttl or default"))["none-check"] == [
        "    life = ttl if ttl is not None else default"
    ]
    assert "    if ttl is not None:" in templates_at(line_of("    if ttl:"))["none-check"]


def test_an_expression_is_regrouped_and_brackets_dropped():
    found = templates_at(line_of("minutes = own * ttl * 60 + default"))["grouping"]
    assert "    minutes = own * (ttl * 60 + default)" in found
    assert "    minutes = own * ttl * (60 + default)" in found
    assert templates_at(line_of("scaled = own * (ttl + 1)"))["grouping"] == ["    scaled = own * ttl + 1"]
    # `(own - default) - 1` reads the same without the brackets: nothing offered there
    assert "grouping" not in templates_at(line_of("return (ttl + 1"))


def test_a_greedy_regex_quantifier_becomes_lazy_first():
    found = templates_at(line_of("PATTERN = re.compile"))["regex"]
    assert found[0] == 'PATTERN = re.compile(r"\\{(\\w+?)\\|(.*)\\}")'
    assert found[1] == 'PATTERN = re.compile(r"\\{(\\w+)\\|(.*?)\\}")'
    assert 'PATTERN = re.compile(r"\\{(\\w+)\\|(.+)\\}")' in found


def test_sibling_constants_of_a_standard_module_and_of_a_class():
    found = templates_at(line_of("rounding=decimal.ROUND_DOWN"))["constant-swap"]
    assert "    rounded = decimal.Decimal(value).quantize(1, rounding=decimal.ROUND_HALF_UP)" in found
    assert all("rounding=decimal.ROUND_" in line for line in found)
    assert len(found) == 7  # ROUND_05UP, CEILING, FLOOR, HALF_DOWN, HALF_EVEN, HALF_UP, UP
    assert templates_at(line_of("return Level.LOW"))["constant-swap"] == ["        return Level.HIGH"]


def test_a_shadowed_elif_is_checked_first():
    src = SourceFile("m.py", SOURCE)
    parents = parent_map(src.tree)
    block = SOURCE[
        SOURCE.index('    if word.startswith("0")') : SOURCE.index("    else:\n        tail = word[-")
    ]
    swapped = (
        '    if word.startswith("00"):\n'
        "        tail = word[2:]\n"
        '    elif word.startswith("0"):\n'
        "        tail = word[1:]\n"
    )
    for line in (line_of('if word.startswith("0")'), line_of('elif word.startswith("00")')):
        statement = statement_at(src, line, parents)
        facts = FunctionFacts(src, enclosing_function(statement, parents))
        moves = [
            m for m in template_mutations(src, statement, parents, facts, ModuleFacts(src))
            if m.family == "statement-move"
        ]  # fmt: skip
        assert len(moves) == 1
        new = apply_edits({"m.py": SOURCE}, moves[0].edits)["m.py"]
        assert new == SOURCE.replace(block, swapped)


def test_a_negative_slice_bound_counts_from_the_length():
    found = templates_at(line_of("tail = word[-ttl:]"))["slice"]
    assert found == ["        tail = word[len(word) - ttl:]"]


def test_a_unit_scale_is_inverted():
    found = templates_at(line_of("UNITS = {"))["literal"]
    assert found == [
        'UNITS = {"s": 1.0, "ms": 1000.0, "us": 1000.0, "min": 60}',
        'UNITS = {"s": 1.0, "ms": 0.001, "us": 0.001, "min": 60}',
    ]
