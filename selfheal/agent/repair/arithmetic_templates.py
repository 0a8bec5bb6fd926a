"""Fix templates: repairs one step larger than a single-token mutation.

PAR and TBar found that many human fixes follow a few templates: turn an overwrite into an
accumulation (`total = f(x)` -> `total += f(x)`), bound an argument (`n` -> `n - 1`), regroup an
expression (`a * b + c` -> `a * (b + c)`), check for None instead of falsiness (`x or d` ->
`x if x is not None else d`), normalise a value before comparing it (`w in S` -> `w.lower() in
S`), limit a split (`split("=")` -> `split("=", 1)`), reorder a dict merge, make a regular
expression's quantifier lazy, swap the fields of a date format, pick a sibling constant
(`ROUND_DOWN` -> `ROUND_HALF_UP`), count a negative slice bound from the length (`x[-n:]` is all of
`x` when n is 0), check a narrow case before the broad one that shadows it (`if/elif` order), or
invert a unit scale (`1000.0` -> `0.001`).
Each yields `Mutation`s for one suspicious statement, like the operators in `operators`, and is
ranked the same way (suspiciousness x prior).
"""

from __future__ import annotations

import ast
import importlib
import math
import re
import sys
from collections.abc import Iterator

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import (
    ATOMS,
    FunctionFacts,
    ModuleFacts,
    Mutation,
    header_nodes,
    inside_loop,
    operator_edit,
    paren,
    short,
)

# binding strength of binary operators, higher binds tighter (the Python grammar's order)
PRECEDENCE = {
    ast.BitOr: 1,
    ast.BitXor: 2,
    ast.BitAnd: 3,
    ast.LShift: 4,
    ast.RShift: 4,
    ast.Add: 5,
    ast.Sub: 5,
    ast.Mult: 6,
    ast.Div: 6,
    ast.FloorDiv: 6,
    ast.Mod: 6,
    ast.MatMult: 6,
    ast.Pow: 7,
}
ASSOCIATIVE = (ast.Add, ast.Mult, ast.BitOr, ast.BitAnd, ast.BitXor)
REGEX_FUNCTIONS = {"compile", "match", "fullmatch", "search", "findall", "finditer", "sub", "subn", "split"}
DATE_FORMAT_FUNCTIONS = {"strptime", "strftime"}
# standard modules whose import does something visible (opens a browser, prints, needs a display)
UNSAFE_TO_IMPORT = {
    "antigravity",
    "this",
    "turtle",
    "turtledemo",
    "tkinter",
    "idlelib",
    "__hello__",
    "__phello__",
}


def template_mutations(
    src: SourceFile,
    statement: ast.stmt,
    parents: dict[ast.AST, ast.AST],
    facts: FunctionFacts,
    module: ModuleFacts,
) -> Iterator[Mutation]:
    """Every template that applies to one statement: its expressions, then the statement."""
    for header in header_nodes(statement):
        for node in ast.walk(header):
            yield from _node_templates(src, node, parents, facts)
    yield from _accumulate(src, statement, parents, facts)
    yield from _none_test(src, statement)
    yield from _branch_order(src, statement, parents)


def _node_templates(src, node, parents, facts) -> Iterator[Mutation]:
    if isinstance(node, ast.BinOp):
        yield from _drop_one(src, node)
        yield from _regroup(src, node)
        if isinstance(node.op, ast.BitOr) and not _numeric_operand(node):
            swapped = f"{paren(src, node.right)} | {paren(src, node.left)}"
            yield Mutation(
                "operand-swap",
                0.5,
                (Edit(src.path, *src.span(node), swapped),),
                f"merge the other way round: `{short(src.segment(node))}` -> `{short(swapped)}`",
            )
    elif isinstance(node, ast.Call):
        yield from _bounded_arguments(src, node, facts)
        yield from _limited_split(src, node)
    elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        yield from _negative_bound(src, node)
    elif isinstance(node, ast.Dict):
        yield from _dict_merge_order(src, node)
    elif isinstance(node, ast.Compare):
        yield from _normalise_before_compare(src, node)
    elif isinstance(node, ast.BoolOp):
        yield from _or_default(src, node)
    elif isinstance(node, ast.Constant) and _power_of_ten(node.value):
        yield from _inverted_scale(src, node)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        call = parents.get(node)
        name = _called_name(call) if isinstance(call, ast.Call) and node in call.args else None
        if name in REGEX_FUNCTIONS and _is_re_call(call):
            yield from _regex_quantifiers(src, node)
        elif name in DATE_FORMAT_FUNCTIONS:
            yield from _date_fields(src, node)
    elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        parent = parents.get(node)
        if not (isinstance(parent, ast.Call) and parent.func is node):
            yield from _sibling_constants(src, node)


# -- off by one: drop a `+ 1` / `- 1` wherever it is, bound an argument ------------------------


def _drop_one(src: SourceFile, node: ast.BinOp) -> Iterator[Mutation]:
    if (
        isinstance(node.op, (ast.Add, ast.Sub))
        and isinstance(node.right, ast.Constant)
        and type(node.right.value) is int
        and node.right.value == 1
    ):
        left = src.segment(node.left)
        yield Mutation(
            "off-by-one",
            0.85,
            (Edit(src.path, *src.span(node), left),),
            f"`{short(src.segment(node))}` -> `{short(left)}`",
        )


def _bounded_arguments(src: SourceFile, node: ast.Call, facts: FunctionFacts) -> Iterator[Mutation]:
    """`f(x, n)` -> `f(x, n - 1)`: a count or limit passed on one too high or too low."""
    name = _called_name(node)
    if name in ("range", "len") or name is None:
        return  # the mutation operators already bound these
    for arg in node.args:
        if isinstance(arg, ast.Name) and arg.id in facts.scope_names:
            text = arg.id
        elif isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id == "self":
            text = src.segment(arg)
        else:
            continue
        for sign, weight in (("-", 0.7), ("+", 0.6)):
            yield Mutation(
                "off-by-one",
                weight,
                (Edit(src.path, *src.span(arg), f"{text} {sign} 1"),),
                f"argument `{text}` of `{name}(...)` -> `{text} {sign} 1`",
            )


def _negative_bound(src: SourceFile, node: ast.Subscript) -> Iterator[Mutation]:
    """`x[-n:]` -> `x[len(x) - n:]`: a negative bound of 0 takes the whole sequence, not none."""
    if not isinstance(node.value, (ast.Name, ast.Attribute)):
        return
    sequence = src.segment(node.value)
    for bound in (node.slice.lower, node.slice.upper):
        if (
            isinstance(bound, ast.UnaryOp)
            and isinstance(bound.op, ast.USub)
            and not isinstance(bound.operand, ast.Constant)
        ):
            text = f"len({sequence}) - {paren(src, bound.operand)}"
            yield Mutation(
                "slice",
                0.7,
                (Edit(src.path, *src.span(bound), text),),
                f"slice bound `{src.segment(bound)}` -> `{text}` in `{short(src.segment(node))}`",
            )


def _power_of_ten(value: object) -> bool:
    if type(value) not in (int, float) or value == 0:
        return False
    exponent = math.log10(abs(value))
    return abs(exponent - round(exponent)) < 1e-9 and abs(round(exponent)) >= 2


def _inverted_scale(src: SourceFile, node: ast.Constant) -> Iterator[Mutation]:
    """`1000.0` -> `0.001`: a unit conversion that multiplies where it should divide."""
    text = repr(10.0 ** -round(math.log10(abs(node.value))))  # exact: no 1/0.001 = 999.99...
    yield Mutation(
        "literal",
        0.6,
        (Edit(src.path, *src.span(node), text),),
        f"scale {src.segment(node)} -> {text}",
    )


# -- the order of checks -------------------------------------------------------------------


def _branch_order(src: SourceFile, statement: ast.stmt, parents) -> Iterator[Mutation]:
    """`if a: ... elif b: ...` -> `if b: ... elif a: ...`: a broad check that shadows a narrow one.

    From an `if` or `elif` line, the swap with the branch after it; from an `elif`, also the swap
    with the one before it (the suspicious line is the broad check, or the one it shadows)."""
    if not isinstance(statement, ast.If):
        return
    pairs = []
    parent = parents.get(statement)
    if isinstance(parent, ast.If) and parent.orelse == [statement] and _is_elif(src, statement):
        pairs.append((parent, statement))
    if (
        len(statement.orelse) == 1
        and isinstance(statement.orelse[0], ast.If)
        and _is_elif(src, statement.orelse[0])
    ):
        pairs.append((statement, statement.orelse[0]))
    for first, second in pairs:
        first_body, second_body = _block_span(src, first.body), _block_span(src, second.body)
        if first_body is None or second_body is None:
            continue
        edits = (
            Edit(src.path, *src.span(first.test), src.segment(second.test)),
            Edit(src.path, *first_body, src.data[slice(*second_body)].decode("utf-8")),
            Edit(src.path, *src.span(second.test), src.segment(first.test)),
            Edit(src.path, *second_body, src.data[slice(*first_body)].decode("utf-8")),
        )
        yield Mutation(
            "statement-move",
            0.9,
            edits,
            f"check `{short(src.segment(second.test))}` (line {second.lineno}) before "
            f"`{short(src.segment(first.test))}` (line {first.lineno})",
        )


def _is_elif(src: SourceFile, node: ast.If) -> bool:
    return src.line_text(node.lineno).lstrip().startswith("elif")


def _block_span(src: SourceFile, body: list[ast.stmt]) -> tuple[int, int] | None:
    """Bytes of a block's whole lines; None when it shares a line with its header."""
    first, last = body[0], body[-1]
    if src.line_text(first.lineno).lstrip() != src.segment(first).splitlines()[0].lstrip():
        return None
    start = src.line_starts[first.lineno - 1]
    end_line = last.end_lineno or last.lineno
    end = src.line_starts[end_line] if end_line < len(src.line_starts) else len(src.data)
    return start, end


# -- accumulate instead of overwrite --------------------------------------------------------


def _accumulate(src, statement, parents, facts: FunctionFacts) -> Iterator[Mutation]:
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return
    target = statement.targets[0]
    if isinstance(target, ast.Name):
        # an accumulator is set up before it is added to: `total = 0` ... `total = f(x)`
        stores = sum(
            1
            for s in facts.statements
            if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign))
            for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
            if isinstance(t, ast.Name) and t.id == target.id
        )
        if stores < 2 and target.id not in facts.params:
            return
    elif not isinstance(target, (ast.Subscript, ast.Attribute)):
        return
    span = operator_edit(src, target, statement.value, r"(?<![=!<>])=(?!=)")
    if span is None:
        return
    in_loop = inside_loop(statement, parents, facts.function)
    for new, weight in (("+=", 1.0), ("-=", 0.5)):
        yield Mutation(
            "augmented-assignment",
            weight if in_loop else weight * 0.5,
            (Edit(src.path, *span, new),),
            f"`=` -> `{new}` in `{short(src.segment(statement))}`",
        )


# -- None instead of falsiness --------------------------------------------------------------


def _or_default(src: SourceFile, node: ast.BoolOp) -> Iterator[Mutation]:
    """`x or default` -> `x if x is not None else default`: 0, "" and [] are values too."""
    if not (isinstance(node.op, ast.Or) and len(node.values) == 2):
        return
    first, default = node.values
    if not isinstance(first, (ast.Name, ast.Attribute, ast.Subscript)):
        return
    value = src.segment(first)
    text = f"{value} if {value} is not None else {paren(src, default)}"
    yield Mutation(
        "none-check",
        1.0,
        (Edit(src.path, *src.span(node), text),),
        f"`{short(src.segment(node))}` -> `{short(text)}`",
    )


def _none_test(src: SourceFile, statement: ast.stmt) -> Iterator[Mutation]:
    """`if x:` -> `if x is not None:` and `if not x:` -> `if x is None:`."""
    if not isinstance(statement, (ast.If, ast.While)):
        return
    test = statement.test
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    operand = test.operand if negated else test
    if not isinstance(operand, (ast.Name, ast.Attribute, ast.Subscript)):
        return
    text = f"{src.segment(operand)} {'is' if negated else 'is not'} None"
    yield Mutation(
        "none-check",
        0.8,
        (Edit(src.path, *src.span(test), text),),
        f"condition `{short(src.segment(test))}` -> `{short(text)}`",
    )


# -- regroup an arithmetic expression -------------------------------------------------------


def _regroup(src: SourceFile, node: ast.BinOp) -> Iterator[Mutation]:
    """`a * b + c` -> `a * (b + c)` along the left operand chain, and dropping needed brackets."""
    outer = type(node.op)
    inner = node.left
    while isinstance(inner, ast.BinOp) and not _bracketed(src, inner):
        if not (type(inner.op) is outer and isinstance(inner.op, ASSOCIATIVE)):
            start = src.span(inner.right)[0]
            if _bracketed(src, inner.right):
                start = _open_bracket(src, inner.right)
            end = src.span(node)[1]
            regrouped = (
                src.data[src.span(node)[0] : start].decode("utf-8")
                + "("
                + src.data[start:end].decode("utf-8")
                + ")"
            )
            yield Mutation(
                "grouping",
                1.0 if PRECEDENCE[type(inner.op)] > PRECEDENCE[outer] else 0.6,
                (Edit(src.path, start, start, "("), Edit(src.path, end, end, ")")),
                f"regroup `{short(src.segment(node))}` -> `{short(regrouped)}`",
            )
        inner = inner.left
    for child in (node.left, node.right):
        if isinstance(child, ast.BinOp) and _bracketed(src, child):
            opening = _open_bracket(src, child)
            closing = _close_bracket(src, child)
            if PRECEDENCE[type(child.op)] == PRECEDENCE[outer] and child is node.left:
                continue  # `(a + b) + c` reads the same without them
            yield Mutation(
                "grouping",
                0.6,
                (Edit(src.path, opening, opening + 1, ""), Edit(src.path, closing, closing + 1, "")),
                f"drop the brackets around `{short(src.segment(child))}` in `{short(src.segment(node))}`",
            )


def _bracketed(src: SourceFile, node: ast.AST) -> bool:
    return _open_bracket(src, node) >= 0 and _close_bracket(src, node) >= 0


def _open_bracket(src: SourceFile, node: ast.AST) -> int:
    position = src.span(node)[0] - 1
    while position >= 0 and src.data[position : position + 1] in (b" ", b"\t", b"\n", b"\r"):
        position -= 1
    return position if position >= 0 and src.data[position : position + 1] == b"(" else -1


def _close_bracket(src: SourceFile, node: ast.AST) -> int:
    position = src.span(node)[1]
    while position < len(src.data) and src.data[position : position + 1] in (b" ", b"\t", b"\n", b"\r"):
        position += 1
    return position if src.data[position : position + 1] == b")" else -1


def _numeric_operand(node: ast.BinOp) -> bool:
    return any(
        isinstance(side, ast.Constant) and isinstance(side.value, (int, float))
        for side in (node.left, node.right)
    )


# -- arguments, merges, comparisons ---------------------------------------------------------


def _limited_split(src: SourceFile, node: ast.Call) -> Iterator[Mutation]:
    """`line.split("=")` -> `line.split("=", 1)`: the value may hold the separator too."""
    if not (
        isinstance(node.func, ast.Attribute)
        and node.func.attr in ("split", "rsplit", "replace")
        and not node.keywords
        and all(not isinstance(a, ast.Starred) for a in node.args)
    ):
        return
    wanted = 2 if node.func.attr == "replace" else 1
    if len(node.args) != wanted:
        return
    end = src.span(node.args[-1])[1]
    yield Mutation(
        "argument",
        1.0 if node.func.attr != "replace" else 0.5,
        (Edit(src.path, end, end, ", 1"),),
        f"`{short(src.segment(node))}` -> at most one {'split' if wanted == 1 else 'replacement'}",
    )


def _dict_merge_order(src: SourceFile, node: ast.Dict) -> Iterator[Mutation]:
    """`{**a, **b}` -> `{**b, **a}`: which side wins a shared key."""
    if len(node.keys) < 2 or all(k is not None for k in node.keys):
        return
    entries = [
        f"**{src.segment(v)}" if k is None else f"{src.segment(k)}: {src.segment(v)}"
        for k, v in zip(node.keys, node.values, strict=True)
    ]
    for i in range(len(entries) - 1):
        if node.keys[i] is not None and node.keys[i + 1] is not None:
            continue  # two plain keys: their order does not matter
        swapped = [*entries[:i], entries[i + 1], entries[i], *entries[i + 2 :]]
        text = "{" + ", ".join(swapped) + "}"
        yield Mutation(
            "operand-swap",
            0.9,
            (Edit(src.path, *src.span(node), text),),
            f"merge order `{short(src.segment(node))}` -> `{short(text)}`",
        )


def _normalise_before_compare(src: SourceFile, node: ast.Compare) -> Iterator[Mutation]:
    """`word in NAMES` -> `word.lower() in NAMES` (and `.strip()`) for a case or space mismatch."""
    if len(node.ops) != 1:
        return
    op = node.ops[0]
    if isinstance(op, (ast.In, ast.NotIn)):
        operands = [node.left]
    elif isinstance(op, (ast.Eq, ast.NotEq)):
        operands = [node.left, node.comparators[0]]
    else:
        return
    for operand in operands:
        if isinstance(operand, ast.Constant) or not isinstance(
            operand, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)
        ):
            continue
        if isinstance(operand, ast.Call) and _called_name(operand) in ("lower", "casefold", "strip", "len"):
            continue
        text = src.segment(operand) if isinstance(operand, ATOMS) else f"({src.segment(operand)})"
        for method, weight in (("lower", 1.0), ("strip", 0.6)):
            yield Mutation(
                "normalize",
                weight,
                (Edit(src.path, *src.span(operand), f"{text}.{method}()"),),
                f"`{short(src.segment(operand))}` -> `{short(text)}.{method}()` in "
                f"`{short(src.segment(node))}`",
            )


# -- literals: regular expressions, date formats, sibling constants -------------------------


def _regex_quantifiers(src: SourceFile, node: ast.Constant) -> Iterator[Mutation]:
    """A greedy `.*` that should stop early, or `+` / `*` for one-or-more / zero-or-more."""
    literal = src.segment(node)
    start, _ = src.span(node)
    quote = re.match(r"[rRbBuUfF]*('''|\"\"\"|'|\")", literal)
    if quote is None:
        return
    body_start = quote.end()
    body_end = len(literal) - len(quote.group(1))
    variants: list[tuple[int, int, str, str]] = []  # offset, length, new text, description
    index = body_start
    while index < body_end:
        char = literal[index]
        if char == "\\":
            index += 2
            continue
        if char in "*+":
            lazy = index + 1 < body_end and literal[index + 1] == "?"
            if lazy:
                variants.append((index, 2, char, f"greedy `{char}` instead of lazy `{char}?`"))
            else:
                variants.append((index, 1, char + "?", f"lazy `{char}?` instead of greedy `{char}`"))
            other = "+" if char == "*" else "*"
            variants.append((index, 1, other, f"`{other}` instead of `{char}`"))
        index += 1
    variants.sort(key=lambda v: "lazy" not in v[3])  # stable: lazy ones first, in text order
    for offset, length, text, description in variants[:12]:
        at = start + len(literal[:offset].encode("utf-8"))
        yield Mutation(
            "regex",
            1.0 if "lazy" in description else 0.7,
            (Edit(src.path, at, at + length, text),),
            f"regex {short(literal, 40)}: {description}",
        )


def _date_fields(src: SourceFile, node: ast.Constant) -> Iterator[Mutation]:
    """`"%m/%d/%Y"` -> `"%d/%m/%Y"`: two fields of a date format in each other's place."""
    literal = src.segment(node)
    start, _ = src.span(node)
    fields = [m for m in re.finditer(r"%[a-zA-Z]", literal)]
    for i, first in enumerate(fields):
        for j in range(i + 1, len(fields)):
            second = fields[j]
            if first.group() == second.group():
                continue
            at_first = start + len(literal[: first.start()].encode("utf-8"))
            at_second = start + len(literal[: second.start()].encode("utf-8"))
            yield Mutation(
                "format-string",
                1.0 if j == i + 1 else 0.6,
                (
                    Edit(src.path, at_first, at_first + 2, second.group()),
                    Edit(src.path, at_second, at_second + 2, first.group()),
                ),
                f"swap `{first.group()}` and `{second.group()}` in {literal}",
            )


def _sibling_constants(src: SourceFile, node: ast.Attribute) -> Iterator[Mutation]:
    """`decimal.ROUND_DOWN` -> `decimal.ROUND_HALF_UP`, `Color.RED` -> `Color.BLUE`."""
    if not (isinstance(node.value, ast.Name) and _constant_name(node.attr)):
        return
    owner = node.value.id
    siblings = _class_constants(src, owner) or _module_constants(src, owner)
    prefix = node.attr.split("_")[0] + "_" if "_" in node.attr else ""
    alternatives = [s for s in siblings if s != node.attr and s.startswith(prefix)]
    start = src.span(node)[1] - len(node.attr.encode())
    for other in alternatives[:10]:
        yield Mutation(
            "constant-swap",
            1.0,
            (Edit(src.path, start, src.span(node)[1], other),),
            f"`{owner}.{node.attr}` -> `{owner}.{other}`",
        )


def _constant_name(name: str) -> bool:
    return name.isupper() and not name.startswith("_")


def _class_constants(src: SourceFile, owner: str) -> list[str]:
    """Upper-case names assigned in the body of a class of this file (an enum's members)."""
    for node in src.tree.body:
        if isinstance(node, ast.ClassDef) and node.name == owner:
            return [
                t.id
                for s in node.body
                if isinstance(s, (ast.Assign, ast.AnnAssign))
                for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
                if isinstance(t, ast.Name) and _constant_name(t.id)
            ]
    return []


def _module_constants(src: SourceFile, owner: str) -> list[str]:
    """Upper-case names of a standard-library module the file imports as `owner`.

    Only the standard library is imported here, on the host: the project's own modules are code
    under repair and run only in the sandbox.
    """
    module_name = None
    for node in src.tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (alias.asname or alias.name) == owner:
                    module_name = alias.name
    if module_name is None:
        return []
    root = module_name.split(".")[0]
    if root not in sys.stdlib_module_names or root in UNSAFE_TO_IMPORT:
        return []
    try:
        module = importlib.import_module(module_name)
    except Exception:  # a module this platform lacks (or fails to import) offers no alternatives
        return []
    return sorted(name for name in dir(module) if _constant_name(name))


def _called_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _is_re_call(node: ast.Call) -> bool:
    return (
        isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and (node.func.value.id in ("re", "regex"))
    )
