"""Statement operators: the families that add, delete, move or rewrite a whole statement.

Guards and raise-guards before it, deletion, moves out of its block and swaps with the next line,
`break` <-> `continue`, insertion of a sibling statement, a condition widened, narrowed or negated,
and a returned value replaced. They edit whole lines in the file's own indentation.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import (
    FunctionFacts,
    Mutation,
    header_nodes,
    indent_unit,
    inside_loop,
    paren,
    short,
)

BUILTIN_NAMES = set(dir(builtins))
SIMPLE_STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)


def _block_of(statement: ast.stmt, parents) -> tuple[ast.AST | None, list[ast.stmt], str]:
    parent = parents.get(statement)
    if parent is None:
        return None, [], ""
    for field_name in ("body", "orelse", "finalbody", "handlers"):
        block = getattr(parent, field_name, None)
        if isinstance(block, list) and statement in block:
            return parent, block, field_name
    return parent, [], ""


def owns_its_lines(src: SourceFile, statement: ast.stmt) -> bool:
    """Does the statement start its line alone (not `if x: y`)? Whole-line edits would break it."""
    indent = src.indent_of(statement.lineno)
    return src.line_text(statement.lineno)[len(indent) :] == src.segment(statement).splitlines()[0]


def line_span(src: SourceFile, statement: ast.stmt) -> tuple[int, int]:
    """Byte span of the statement's whole lines, their line ends included."""
    start = src.line_starts[statement.lineno - 1]
    last = statement.end_lineno
    end = src.line_starts[last] if last < len(src.line_starts) else len(src.data)
    return start, end


def _reindent(text: str, old: str, new: str) -> str:
    lines = text.splitlines(keepends=True)
    out = []
    for line in lines:
        out.append(new + line[len(old) :] if line.startswith(old) else line)
    result = "".join(out)
    return result if result.endswith("\n") else result + "\n"


def statement_level(src, statement, parents, facts: FunctionFacts, module, hints) -> Iterator[Mutation]:
    path = src.path
    indent = src.indent_of(statement.lineno)
    if not owns_its_lines(src, statement):
        return
    start, end = line_span(src, statement)
    parent, block, _ = _block_of(statement, parents)
    unit = indent_unit(src)
    inside_function = facts.function is not None and isinstance(
        facts.function, (ast.FunctionDef, ast.AsyncFunctionDef)
    )
    in_loop = inside_loop(statement, parents, facts.function)

    # guards before the statement
    if inside_function and not isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
        used = []
        for root in header_nodes(statement):
            for node in ast.walk(root):
                if (
                    isinstance(node, ast.Name)
                    and isinstance(node.ctx, ast.Load)
                    and node.id in facts.scope_names
                    and node.id not in used
                ):
                    used.append(node.id)
        exits = [
            ("return" if facts.is_generator else f"return {value}")
            for value in (facts.default_returns(src) or ["None"])
        ]
        if facts.is_generator:
            exits = ["return"]
        if in_loop:
            exits.append("continue")
        for name in used[:4]:
            for condition in (f"not {name}", f"{name} is None"):
                for exit_ in exits:
                    text = f"{indent}if {condition}:\n{indent}{unit}{exit_}\n"
                    yield Mutation(
                        "guard",
                        1.0 if condition.startswith("not") else 0.8,
                        (Edit(path, start, start, text),),
                        f"guard `if {condition}: {exit_}` before line {statement.lineno}",
                    )
        for exception in hints.expected_exceptions:
            if exception not in BUILTIN_NAMES and exception not in module.names:
                continue
            for name in used[:4]:
                for condition in (f"not {name}", f"{name} is None", f"{name} < 0", f"{name} <= 0"):
                    text = (
                        f"{indent}if {condition}:\n{indent}{unit}raise {exception}({('invalid ' + name)!r})\n"
                    )
                    yield Mutation(
                        "raise-guard",
                        1.0,
                        (Edit(path, start, start, text),),
                        f"guard `if {condition}: raise {exception}` before line {statement.lineno}",
                    )

    # deletion
    if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        replacement = "" if len(block) > 1 else f"{indent}pass\n"
        weight = 1.0 if isinstance(statement, SIMPLE_STATEMENTS) else 0.6
        yield Mutation(
            "statement-delete",
            weight,
            (Edit(path, start, end, replacement),),
            f"delete line {statement.lineno} `{short(src.line_text(statement.lineno).strip())}`",
        )

    # move out of its block (an over-indented line) when it is the block's last statement
    if (
        block
        and block[-1] is statement
        and len(block) > 1
        and isinstance(parent, (ast.For, ast.While, ast.If, ast.With))
        and not getattr(parent, "orelse", None)
        and isinstance(statement, SIMPLE_STATEMENTS)
    ):
        outer = src.indent_of(parent.lineno)
        moved = _reindent(src.data[start:end].decode("utf-8"), indent, outer)
        yield Mutation(
            "statement-move",
            1.0,
            (Edit(path, start, end, moved),),
            f"move line {statement.lineno} out of the `{type(parent).__name__.lower()}` block",
        )

    # swap with the next statement of the same block
    if block:
        position = block.index(statement)
        if position + 1 < len(block):
            following = block[position + 1]
            if isinstance(following, SIMPLE_STATEMENTS) and isinstance(statement, SIMPLE_STATEMENTS):
                f_start, f_end = line_span(src, following)
                if f_start == end:
                    text = src.data[f_start:f_end].decode("utf-8") + src.data[start:end].decode("utf-8")
                    yield Mutation(
                        "statement-move",
                        0.8,
                        (Edit(path, start, f_end, text),),
                        f"swap lines {statement.lineno} and {following.lineno}",
                    )

    # break <-> continue
    if isinstance(statement, (ast.Break, ast.Continue)):
        new = "continue" if isinstance(statement, ast.Break) else "break"
        yield Mutation(
            "break-continue",
            1.0,
            (Edit(path, *src.span(statement), new),),
            f"`{src.segment(statement)}` -> `{new}` at line {statement.lineno}",
        )

    # insertion / duplication of another simple statement of the function, before or after
    if inside_function and facts.statements:
        donors = [
            s
            for s in facts.statements
            if isinstance(s, (ast.Assign, ast.AugAssign, ast.Expr))
            and s.lineno == s.end_lineno
            and not isinstance(getattr(s, "value", None), ast.Constant)
        ]
        donors.sort(key=lambda s: abs(s.lineno - statement.lineno))
        for donor in donors[:6]:
            text = indent + src.segment(donor) + "\n"
            yield Mutation(
                "statement-insert",
                1.0,
                (Edit(path, start, start, text),),
                f"insert `{short(src.segment(donor))}` before line {statement.lineno}",
            )
            yield Mutation(
                "statement-insert",
                0.9,
                (Edit(path, end, end, text),),
                f"insert `{short(src.segment(donor))}` after line {statement.end_lineno}",
            )

    # add a clause to a condition (widen / narrow)
    if isinstance(statement, (ast.If, ast.While)):
        test = statement.test
        base = (
            paren(src, test)
            if isinstance(test, (ast.BoolOp, ast.IfExp, ast.NamedExpr))
            else src.segment(test)
        )
        clauses = []
        for other in facts.conditions:
            if other is not test and isinstance(other, ast.Compare):
                clause = src.segment(other)
                if clause not in clauses and clause != src.segment(test):
                    clauses.append(clause)
        for name in [n.id for n in ast.walk(test) if isinstance(n, ast.Name) and n.id in facts.scope_names][
            :2
        ]:
            clauses.append(f"{name} is not None")
        for clause in clauses[:5]:
            for joiner in ("and", "or"):
                text = f"{base} {joiner} {clause}"
                yield Mutation(
                    "condition",
                    0.6,
                    (Edit(path, *src.span(test), text),),
                    f"condition `{short(src.segment(test))}` -> `{short(text)}`",
                )
        negated = (
            f"not {paren(src, test)}" if not isinstance(test, ast.Compare) else f"not {src.segment(test)}"
        )
        yield Mutation(
            "negation",
            0.7,
            (Edit(path, *src.span(test), negated),),
            f"negate condition `{short(src.segment(test))}`",
        )

    # return value replacement
    if isinstance(statement, ast.Return) and statement.value is not None:
        current = src.segment(statement.value)
        seen = {current}
        for other in facts.returns:
            if other.value is not None and src.segment(other.value) not in seen:
                seen.add(src.segment(other.value))
                yield Mutation(
                    "return-value",
                    1.0,
                    (Edit(path, *src.span(statement.value), src.segment(other.value)),),
                    f"return `{short(src.segment(other.value))}` instead of `{short(current)}`",
                )
