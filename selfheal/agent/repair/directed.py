"""Directed families: `directed_mutations`, the repairs one statement gets from what the failing
tests showed, before the blind families.

At a crash site, the error-directed repairs of `crash_templates` for each exception raised there;
in a `try` body or handler, the `except` clause edits of `handler_templates`;
on any suspicious statement, the regex edits of `regex_templates` and the string-literal edits of
`string_templates`, guided by the failing tests' inputs, and the conversions of
`conversion_templates` their failing assertions ask for.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from selfheal.agent.repair.conversion_templates import conversion_edits
from selfheal.agent.repair.crash_templates import crash_mutations
from selfheal.agent.repair.edits import SourceFile
from selfheal.agent.repair.evidence import FailureEvidence
from selfheal.agent.repair.handler_templates import handler_edits
from selfheal.agent.repair.mutation import FunctionFacts, Mutation, header_nodes
from selfheal.agent.repair.regex_templates import function_swaps, pattern_flags, pattern_literals, regex_edits
from selfheal.agent.repair.string_templates import format_field_edits, named_constant_edits, separator_edits


def directed_mutations(
    src: SourceFile,
    statement: ast.stmt,
    parents: dict[ast.AST, ast.AST],
    facts: FunctionFacts,
    evidence: FailureEvidence,
    sources: dict[str, str],
) -> Iterator[Mutation]:
    seen: set[tuple[str, str]] = set()
    crashes = evidence.crashes_at(src.path, statement)
    for crash in crashes:
        if (crash.exception, crash.message) not in seen:
            seen.add((crash.exception, crash.message))
            yield from crash_mutations(src, statement, parents, facts, crash, sources)
    through = evidence.crashes_through(src.path, statement)
    yield from handler_edits(src, statement, parents, through, evidence.named_exceptions)
    yield from conversion_edits(src, statement, evidence.conversions)
    patterns = pattern_literals(src, statement, parents)
    for literal in patterns:
        yield from regex_edits(src, literal, evidence.inputs, pattern_flags(literal, parents))
    for header in header_nodes(statement):
        for node in ast.walk(header):
            if isinstance(node, ast.Call):
                yield from function_swaps(src, node)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node not in patterns:
                yield from separator_edits(src, node, parents, evidence.inputs)
            if isinstance(node, (ast.JoinedStr, ast.Constant)) and node not in patterns:
                yield from format_field_edits(src, node, evidence.inputs)
            if isinstance(node, (ast.Constant, ast.Attribute)) and node not in patterns:
                yield from named_constant_edits(src, node)
