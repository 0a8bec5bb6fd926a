"""Mutation operators produce exact, compilable edits that keep the rest of the line intact."""

from __future__ import annotations

import textwrap

import pytest

from selfheal.agent.repair.edits import Candidate, Edit, SourceFile, apply_edits
from selfheal.agent.repair.mutation import (
    FunctionFacts,
    Hints,
    ModuleFacts,
    enclosing_function,
    parent_map,
    statement_at,
)
from selfheal.agent.repair.operators import statement_mutations

SOURCE = textwrap.dedent('''
    import math


    def window(values, size, start=0):
        """Sum of each run of `size` values."""
        out = []
        for i in range(start, len(values) - size):  # trailing comment < keep
            chunk = values[i:i + size]
            if chunk and size > 0:
                out.append(sum(chunk) / size)
        return out


    def pick(xs, flag):
        best = max(xs)
        total = math.floor(best - 1)
        name = "é" + str(total)
        while flag is not None:
            break
        return name.strip()
''').lstrip()


def mutants(line: int, hints: Hints | None = None) -> dict[str, list[str]]:
    hints = hints or Hints()
    src = SourceFile("m.py", SOURCE)
    parents = parent_map(src.tree)
    statement = statement_at(src, line, parents)
    facts = FunctionFacts(src, enclosing_function(statement, parents))
    found: dict[str, list[str]] = {}
    for mutation in statement_mutations(src, statement, parents, facts, ModuleFacts(src), hints):
        new = apply_edits({"m.py": SOURCE}, mutation.edits)["m.py"]
        compile(new, "m.py", "exec")
        changed = [ln for ln in new.splitlines() if ln not in SOURCE.splitlines()]
        found.setdefault(mutation.family, []).append(" | ".join(changed) or "<deleted>")
    return found


def test_loop_header_mutations():
    found = mutants(7)
    assert (
        "    for i in range(start, len(values) - size + 1):  # trailing comment < keep" in found["off-by-one"]
    )
    assert (
        "    for i in range(start, len(values) + size):  # trailing comment < keep"
        in found["arithmetic-operator"]
    )
    assert (
        "    for i in range(len(values) - size, start):  # trailing comment < keep" in found["argument-swap"]
    )
    assert (
        "    for i in range(start, len(values) - size - 1):  # trailing comment < keep" in found["off-by-one"]
    )
    # `len(values)` inside the sum is not moved on its own: that is the whole bound moved, again
    assert (
        "    for i in range(start, len(values) - 1 - size):  # trailing comment < keep"
        not in found["off-by-one"]
    )


def test_slice_and_condition_mutations():
    slices = mutants(8)["slice"]
    assert "        chunk = values[i:i + size + 1]" in slices
    assert "        chunk = values[i:]" in slices
    found = mutants(9)
    assert "        if chunk or size > 0:" in found["boolean-operator"]
    assert "        if chunk and size >= 0:" in found["comparison-operator"]
    assert "        if size > 0:" in found["condition"]
    assert "        if not (chunk and size > 0):" in found["negation"]


def test_builtin_swaps_keep_unicode_offsets_right():
    found = mutants(17)
    assert '    name = "é" + str(total)' not in found.get("call-unwrap", [])
    assert '    name = "é" + total' in found["call-unwrap"]
    assert '    name = str(total) + "é"' in found["operand-swap"]
    assert "    best = min(xs)" in mutants(15)["builtin-swap"]
    assert "    total = math.ceil(best - 1)" in mutants(16)["builtin-swap"]


def test_statement_level_mutations():
    found = mutants(10)
    assert found["statement-delete"] == ["            pass"]  # the only statement of its block
    guards = found["guard"]
    assert "            if not chunk: |                 return []" in guards
    assert "            if not chunk: |                 continue" in guards
    assert any("if size is None:" in g for g in guards)
    assert "        return name.strip()" not in found.get("statement-move", [])


def test_return_inside_a_loop_moves_out():
    source = textwrap.dedent("""
        def first_even(xs):
            found = None
            for x in xs:
                found = x
                return found
    """).lstrip()
    src = SourceFile("m.py", source)
    parents = parent_map(src.tree)
    statement = statement_at(src, 5, parents)
    facts = FunctionFacts(src, enclosing_function(statement, parents))
    moved = [
        apply_edits({"m.py": source}, m.edits)["m.py"]
        for m in statement_mutations(src, statement, parents, facts, ModuleFacts(src), Hints())
        if m.family == "statement-move"
    ]
    assert "        found = x\n    return found\n" in moved[0]


def test_raise_guard_uses_the_exception_the_test_expected():
    found = mutants(16, Hints(expected_exceptions=("ValueError",)))
    assert any("raise ValueError('invalid best')" in g for g in found["raise-guard"])
    assert "raise-guard" not in mutants(16)


def test_break_continue_and_while_condition():
    assert mutants(19)["break-continue"] == ["        continue"]
    assert "    while flag is None:" in mutants(18)["comparison-operator"]


def test_apply_edits_rejects_overlaps_and_combines_candidates():
    edits = (Edit("m.py", 0, 6, "import os"), Edit("m.py", 3, 8, "x"))
    with pytest.raises(ValueError, match="overlapping"):
        apply_edits({"m.py": SOURCE}, edits)
    a = Candidate((Edit("m.py", 0, 1, "I"),), "name", "a", "m.py", 1, "f", 0.5)
    b = Candidate((Edit("m.py", 5, 6, "X"),), "literal", "b", "m.py", 3, "f", 0.4)
    both = a.combined_with(b)
    assert both.family == "name+literal"
    assert both.score == pytest.approx(0.2)
    assert not a.conflicts_with(b)
    assert apply_edits({"m.py": SOURCE}, both.edits)["m.py"].startswith("Impor")


def test_a_name_is_replaced_by_an_attribute_of_it_the_function_reads_but_not_by_a_method():
    source = textwrap.dedent(
        """
        def depth(node):
            level = 0
            while node is not None:
                level += 1
                node = node.parent
            return node.describe(level)
        """
    ).lstrip()
    src = SourceFile("m.py", source)
    parents = parent_map(src.tree)
    statement = statement_at(src, 3, parents)
    facts = FunctionFacts(src, enclosing_function(statement, parents))
    assert facts.attribute_reads == {"node": ["parent"]}
    found = [
        apply_edits({"m.py": source}, m.edits)["m.py"].splitlines()[2]
        for m in statement_mutations(src, statement, parents, facts, ModuleFacts(src), Hints())
        if m.family == "attribute-of"
    ]
    assert found == ["    while node.parent is not None:"]
