"""Mutation operators: `statement_mutations`, every family's repairs of one statement in ranking order.

The families follow the program-repair literature (GenProg's statement edits, PAR's fix
templates, TBar's mutation patterns): operator replacement, off-by-one changes, operand and
argument swaps, name replacement, condition widening/narrowing and guards, return-value and literal
replacement, builtin swaps, call unwrapping, slice changes, and statement deletion, insertion,
duplication and moves. Each yields `Mutation`s for one suspicious statement; a prior per
mutation says how often such a change is the right repair, and the search ranks by
suspiciousness x prior.

Expression edits replace exact byte spans (an operator token, an operand) so the rest of the
line keeps its formatting; statement edits work on whole lines with the file's indentation.
The families live in `expression_operators` (which hands calls to `call_operators` and bounds to
`bound_operators`) and `statement_operators`. The order here is kept: ties in the search's
ranking fall back on it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfheal.agent.repair.edits import SourceFile
from selfheal.agent.repair.expression_operators import expression_mutations
from selfheal.agent.repair.mutation import FunctionFacts, Hints, ModuleFacts, Mutation, header_nodes
from selfheal.agent.repair.statement_operators import statement_level


def statement_mutations(
    src: SourceFile,
    statement: ast.stmt,
    parents: dict[ast.AST, ast.AST],
    facts: FunctionFacts,
    module: ModuleFacts,
    hints: Hints,
) -> Iterator[Mutation]:
    """Every mutation of one statement: its expressions, then the statement itself."""
    seen_nodes: set[int] = set()
    for header in header_nodes(statement):
        for node in ast.walk(header):
            if id(node) in seen_nodes:
                continue
            seen_nodes.add(id(node))
            yield from expression_mutations(src, node, parents, facts, module)
    yield from statement_level(src, statement, parents, facts, module, hints)
