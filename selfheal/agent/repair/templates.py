"""Fix templates: `template_mutations`, every template that applies to one statement, in ranking order.

A template is a repair one step larger than a single-token mutation. PAR and TBar found that
many human fixes follow a few templates: turn an overwrite into an accumulation (`total = f(x)`
-> `total += f(x)`), bound an argument (`n` -> `n - 1`), regroup an expression (`a * b + c` ->
`a * (b + c)`), check for None instead of falsiness (`x or d` -> `x if x is not None else d`),
normalise a value before comparing it (`w in S` -> `w.lower() in S`), limit a split
(`split("=")` -> `split("=", 1)`), reorder a dict merge, make a regular expression's quantifier
lazy, swap the fields of a date format, pick a sibling constant (`ROUND_DOWN` ->
`ROUND_HALF_UP`), count a negative slice bound from the length (`x[-n:]` is all of `x` when n is
0), check a narrow case before the broad one that shadows it (`if/elif` order), invert a unit
scale (`1000.0` -> `0.001`), step a position back after removing the element there
(`xs.remove(x)` -> `xs.remove(x); i -= 1`), move a value by one where arithmetic or a call
uses it (`page * n` -> `(page - 1) * n`), transform an argument like its sibling
(`max(len(a), b)` -> `max(len(a), len(b))`), iterate over part of a sequence or a sibling
attribute (`xs` -> `xs[1:]`, `node.children` -> `node.parents`), return a computed value instead
of a constant (`return None` -> `return best`), drop a sub-expression (`a + b + c` -> `a + c`), or
insert an update modelled on a sibling (`seen.add(key)` beside `seen.add(name)`).
Each yields `Mutation`s for one suspicious statement, like the operators in `operators`, and is
ranked the same way (suspiciousness x prior). The templates live in `arithmetic_templates`,
`argument_templates`, `check_templates`, `literal_templates`, `index_templates`,
`operand_offsets`, `sibling_templates`, `iteration_templates`, `return_templates` and
`removal_templates`; the order here is kept: ties in the search's ranking fall back on it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfheal.agent.repair.argument_templates import (
    dict_merge_order,
    limited_split,
    normalise_before_compare,
    union_order,
)
from selfheal.agent.repair.arithmetic_templates import (
    accumulate,
    bounded_arguments,
    drop_one,
    negative_bound,
    regroup,
)
from selfheal.agent.repair.check_templates import branch_order, none_test, or_default
from selfheal.agent.repair.edits import SourceFile
from selfheal.agent.repair.index_templates import index_steps
from selfheal.agent.repair.iteration_templates import iterations
from selfheal.agent.repair.literal_templates import (
    DATE_FORMAT_FUNCTIONS,
    REGEX_FUNCTIONS,
    date_fields,
    inverted_scale,
    is_re_call,
    power_of_ten,
    regex_quantifiers,
    sibling_constants,
)
from selfheal.agent.repair.mutation import FunctionFacts, ModuleFacts, Mutation, called_name, header_nodes
from selfheal.agent.repair.operand_offsets import operand_offsets
from selfheal.agent.repair.removal_templates import removed_subexpressions
from selfheal.agent.repair.return_templates import return_expressions
from selfheal.agent.repair.scope import Scope, scope_at
from selfheal.agent.repair.sibling_templates import sibling_arguments, sibling_statements


def template_mutations(
    src: SourceFile,
    statement: ast.stmt,
    parents: dict[ast.AST, ast.AST],
    facts: FunctionFacts,
    module: ModuleFacts,
    scope: Scope | None = None,
) -> Iterator[Mutation]:
    """Every template that applies to one statement: its expressions, then the statement
    (`scope`: the statement's, when the caller has it already)."""
    if scope is None:
        scope = scope_at(src, statement, parents, facts, module)
    for header in header_nodes(statement):
        for node in ast.walk(header):
            yield from _node_templates(src, node, parents, facts)
    yield from accumulate(src, statement, parents, facts)
    yield from none_test(src, statement)
    yield from branch_order(src, statement, parents)
    yield from index_steps(src, statement, parents, facts)
    yield from operand_offsets(src, statement, parents, facts, module, scope)
    yield from sibling_arguments(src, statement, module)
    yield from iterations(src, statement, module, scope)
    yield from return_expressions(src, statement, facts, scope)
    yield from removed_subexpressions(src, statement)
    yield from sibling_statements(src, statement, parents, facts, scope)


def _node_templates(src, node, parents, facts) -> Iterator[Mutation]:
    if isinstance(node, ast.BinOp):
        yield from drop_one(src, node)
        yield from regroup(src, node)
        yield from union_order(src, node)
    elif isinstance(node, ast.Call):
        yield from bounded_arguments(src, node, facts)
        yield from limited_split(src, node)
    elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        yield from negative_bound(src, node)
    elif isinstance(node, ast.Dict):
        yield from dict_merge_order(src, node)
    elif isinstance(node, ast.Compare):
        yield from normalise_before_compare(src, node)
    elif isinstance(node, ast.BoolOp):
        yield from or_default(src, node)
    elif isinstance(node, ast.Constant) and power_of_ten(node.value):
        yield from inverted_scale(src, node)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        call = parents.get(node)
        name = called_name(call) if isinstance(call, ast.Call) and node in call.args else None
        if name in REGEX_FUNCTIONS and is_re_call(call):
            yield from regex_quantifiers(src, node)
        elif name in DATE_FORMAT_FUNCTIONS:
            yield from date_fields(src, node)
    elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        parent = parents.get(node)
        if not (isinstance(parent, ast.Call) and parent.func is node):
            yield from sibling_constants(src, node)
