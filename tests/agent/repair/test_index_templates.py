"""Index steps: after removing the element at a walked position, the position steps back."""

from __future__ import annotations

import textwrap

from selfheal.agent.repair.edits import SourceFile, apply_edits
from selfheal.agent.repair.index_templates import index_positions, index_steps
from selfheal.agent.repair.mutation import FunctionFacts, enclosing_function, parent_map, statement_at

SOURCE = textwrap.dedent(
    """
    def drop_blanks(lines):
        i = 0
        while i < len(lines):
            if not lines[i].strip():
                lines.pop(i)
            elif lines[i].startswith("#"):
                lines.insert(i, "")
                i += 1
            i += 1
        return lines


    def first(xs):
        xs.remove(None)
        return xs[0]
    """
).lstrip()


def steps_at(line: int) -> list[str]:
    src = SourceFile("m.py", SOURCE)
    parents = parent_map(src.tree)
    statement = statement_at(src, line, parents)
    facts = FunctionFacts(src, enclosing_function(statement, parents))
    out = []
    for mutation in index_steps(src, statement, parents, facts):
        assert mutation.family == "index-step"
        new = apply_edits({"m.py": SOURCE}, mutation.edits)["m.py"]
        compile(new, "m.py", "exec")
        out.append(new.splitlines()[line])
    return out


def test_the_walked_positions_are_the_subscripts_and_insert_pop_positions():
    src = SourceFile("m.py", SOURCE)
    assert index_positions(src.tree.body[0]) == ["i"]
    assert index_positions(src.tree.body[1]) == []


def test_removing_steps_back_and_inserting_steps_on_with_the_statements_indentation():
    assert steps_at(5) == ["            i -= 1"]
    assert steps_at(7) == ["            i += 1"]


def test_no_step_outside_a_loop_or_without_a_position():
    assert steps_at(14) == []
    assert steps_at(10) == []  # `return lines` changes nothing
