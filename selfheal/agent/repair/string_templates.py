"""String-literal edits: separators, format fields, and a literal <-> the standard named constant.

- a separator (`","` in `split(",")`, `", ".join(...)`, `replace("-", ...)`, `sep=`) replaced by
  one the failing tests' inputs use, then by the common ones;
- a format field's numbers (`{x:.2f}`, `%5d`, `{:>8}`) set to the decimals the inputs show or
  moved by one, a field's `!r` added or dropped;
- a literal that spells (part of) a standard constant replaced by it or by a wider sibling
  (`"abc...z"` -> `string.ascii_letters`, `3.14` -> `math.pi`), and a named constant swapped
  for its sibling (`string.ascii_lowercase` -> `string.ascii_letters`, `math.pi` -> `math.tau`),
  with the import added when the module lacks it.
"""

from __future__ import annotations

import ast
import math
import re
import string
from collections.abc import Iterator

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import Mutation, called_name, short

SEPARATOR_METHODS = {
    "split", "rsplit", "join", "replace", "partition", "rpartition", "strip", "lstrip", "rstrip",
    "startswith", "endswith", "count", "find", "rfind", "index", "removeprefix", "removesuffix",
}  # fmt: skip
COMMON_SEPARATORS = (",", ", ", ";", ":", " ", "\t", "\n", "-", "_", "/", "|", ".", "=", "")
MAX_SEPARATORS = 8
STRING_CONSTANTS = {
    name: getattr(string, name)
    for name in (
        "ascii_lowercase", "ascii_uppercase", "ascii_letters", "digits", "hexdigits", "octdigits",
        "punctuation", "whitespace",
    )
}  # fmt: skip
MATH_CONSTANTS = {"pi": math.pi, "tau": math.tau, "e": math.e}
QUOTED_FIELD = re.compile(r"""(?P<quote>['"])\{(?P<field>[A-Za-z_]\w*(?:\.\w+)*)\}(?P=quote)""")
FORMAT_FIELD = re.compile(r"\{[^{}]*:(?P<spec>[^{}]*\d[^{}]*)\}|%(?P<pct>[-+ #0]*\d*(?:\.\d+)?)[dfsieEgGx]")


def separator_edits(
    src: SourceFile, node: ast.Constant, parents, inputs: tuple[str, ...]
) -> Iterator[Mutation]:
    if not _is_separator(node, parents):
        return
    options = [(s, 1.0) for s in _input_separators(inputs)] + [(s, 0.6) for s in COMMON_SEPARATORS]
    seen = {node.value}
    count = 0
    for other, weight in options:
        if other in seen or count >= MAX_SEPARATORS:
            continue
        seen.add(other)
        count += 1
        yield Mutation(
            "separator",
            weight,
            (Edit(src.path, *src.span(node), quoted_like(src.segment(node), other)),),
            f"separator {src.segment(node)} -> {other!r}",
        )
    call = parents.get(node)
    if isinstance(call, ast.Call) and called_name(call) in ("split", "rsplit") and node.value.strip() == "":
        yield Mutation(
            "separator",
            0.8,
            (Edit(src.path, *src.span(node), ""),),
            f"split on any whitespace, not {node.value!r}",
        )


def format_field_edits(src: SourceFile, node: ast.AST, inputs: tuple[str, ...]) -> Iterator[Mutation]:
    """Numbers in format specs set to the inputs' decimals or moved by one; `!r` toggled."""
    decimals = sorted({len(m) for s in inputs for m in re.findall(r"\d\.(\d+)\b", s)})[:3]
    if isinstance(node, ast.JoinedStr):
        quoted = list(_quoted_fields(src, node))
        yield from quoted
        for value in node.values:
            if isinstance(value, ast.FormattedValue) and value.format_spec is not None:
                yield from _spec_numbers(src, value.format_spec, decimals)
            if isinstance(value, ast.FormattedValue) and not quoted:
                yield from _conversion(src, value)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        if FORMAT_FIELD.search(node.value):
            yield from _spec_numbers(src, node, decimals)
        yield from _quoted_fields(src, node)


def _quoted_fields(src: SourceFile, node: ast.AST) -> Iterator[Mutation]:
    """`'{name}'` -> `{name!r}`: a field quoted by hand shows a name with a quote, a newline or
    an escape in it wrongly, where `repr` quotes and escapes it. The literal's own text is
    edited, so only where the hand-made quote is not the literal's delimiter."""
    if node.lineno != node.end_lineno:
        return
    text = src.segment(node)
    delimiter = re.match(r"([rRbBuUfF]*)(['\"])", text)
    if delimiter is None or (isinstance(node, ast.Constant) and "f" in delimiter.group(1).lower()):
        return  # a part of an f-string: its JoinedStr is edited instead
    start = src.span(node)[0]
    for field in QUOTED_FIELD.finditer(text):
        if field.group("quote") == delimiter.group(2):
            continue
        at = start + len(text[: field.start()].encode("utf-8"))
        end = at + len(field.group().encode("utf-8"))
        yield Mutation(
            "format-field",
            0.8,
            (Edit(src.path, at, end, "{" + field.group("field") + "!r}"),),
            f"field {field.group()} -> {{{field.group('field')}!r}} (quoted and escaped by repr)",
        )


def _spec_numbers(src: SourceFile, spec: ast.AST, decimals: list[int]) -> Iterator[Mutation]:
    literal = src.segment(spec) if isinstance(spec, ast.Constant) else None
    start, end = src.span(spec)
    text = src.data[start:end].decode("utf-8")
    if literal is None and spec.lineno != spec.end_lineno:
        return
    for number in re.finditer(r"(?<![\w{])(\.?)(\d+)", text):
        if literal is not None and not _inside_field(text, number.start()):
            continue
        value = int(number.group(2))
        precision = number.group(1) == "."
        targets = [(d, 1.0) for d in decimals if precision and d != value]
        targets += [(value + 1, 0.7), (value - 1, 0.7)] if value > 0 else [(value + 1, 0.7)]
        at = start + len(text[: number.start(2)].encode("utf-8"))
        done = set()
        for new, weight in targets:
            if new in done or new == value:
                continue
            done.add(new)
            yield Mutation(
                "format-field",
                weight,
                (Edit(src.path, at, at + len(number.group(2)), str(new)),),
                f"format field {short(text, 30)}: {value} -> {new}",
            )


def _inside_field(text: str, index: int) -> bool:
    return any(m.start() <= index < m.end() for m in FORMAT_FIELD.finditer(text))


def _conversion(src: SourceFile, value: ast.FormattedValue) -> Iterator[Mutation]:
    if value.format_spec is not None:
        return
    end = src.span(value.value)[1]
    if value.conversion == -1:
        yield Mutation(
            "format-field", 0.5, (Edit(src.path, end, end, "!r"),), "field shown with `!r` (quoted)"
        )
    elif value.conversion == ord("r"):
        yield Mutation("format-field", 0.6, (Edit(src.path, end, end + 2, ""),), "field's `!r` dropped")


def named_constant_edits(src: SourceFile, node: ast.AST) -> Iterator[Mutation]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) >= 5:
        chars = set(node.value)
        for name, value in STRING_CONSTANTS.items():
            if chars <= set(value) and node.value != value:
                weight = 1.0 if len(chars) * 2 >= len(set(value)) else 0.6
                yield _use_constant(
                    src, node, "string", name, weight, f"{short(src.segment(node), 30)} -> `string.{name}`"
                )
    elif isinstance(node, ast.Constant) and type(node.value) is float:
        for name, value in MATH_CONSTANTS.items():
            if node.value != value and abs(node.value - value) <= 2e-3 * value:
                yield _use_constant(src, node, "math", name, 1.0, f"{src.segment(node)} -> `math.{name}`")
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        owner, attr = node.value.id, node.attr
        family = STRING_CONSTANTS if owner == "string" else MATH_CONSTANTS if owner == "math" else {}
        if attr in family:
            for other in family:
                if other != attr:
                    yield Mutation(
                        "named-constant",
                        0.8,
                        (Edit(src.path, src.span(node)[1] - len(attr), src.span(node)[1], other),),
                        f"`{owner}.{attr}` -> `{owner}.{other}`",
                    )


def _use_constant(
    src: SourceFile, node: ast.AST, module: str, name: str, weight: float, description: str
) -> Mutation:
    edits = [Edit(src.path, *src.span(node), f"{module}.{name}")]
    if not _imports(src, module):
        at = _import_offset(src)
        edits.insert(0, Edit(src.path, at, at, f"import {module}\n"))
    return Mutation("named-constant", weight, tuple(edits), description)


def _imports(src: SourceFile, module: str) -> bool:
    return any(
        isinstance(n, ast.Import) and any(a.name == module and a.asname is None for a in n.names)
        for n in src.tree.body
    )


def _import_offset(src: SourceFile) -> int:
    """Where a new import goes: before the first import that is not `__future__`, else after the
    docstring and the `__future__` imports."""
    after = 0
    for node in src.tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            after = node.end_lineno or node.lineno
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            return src.line_starts[node.lineno - 1]
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and node is src.tree.body[0]:
            after = node.end_lineno or node.lineno
        else:
            break
    return src.line_starts[after] if after < len(src.line_starts) else len(src.data)


def quoted_like(literal: str, value: str) -> str:
    """`value` as a literal in the quotes `literal` uses, where that needs no escaping."""
    text = repr(value)
    quote = literal.lstrip("rRbBuU")[:1]
    if quote == '"' and text[0] == "'" and '"' not in value and "'" not in value:
        return f'"{text[1:-1]}"'
    return text


def _is_separator(node: ast.Constant, parents) -> bool:
    if not isinstance(node.value, str) or len(node.value) > 3 or any(c.isalnum() for c in node.value):
        return False
    parent = parents.get(node)
    if isinstance(parent, ast.Call):
        return called_name(parent) in SEPARATOR_METHODS and node in parent.args
    if isinstance(parent, ast.Attribute) and parent.attr == "join":
        return True
    if isinstance(parent, ast.keyword):
        return parent.arg in ("sep", "end", "delimiter")
    return False


def _input_separators(inputs: tuple[str, ...]) -> list[str]:
    """Runs of punctuation and spaces between word characters in the inputs: `", "` in "a, b"."""
    found = [m for s in inputs for m in re.findall(r"(?<=\w)([^\w\n]{1,2})(?=\w)", s)]
    return list(dict.fromkeys(found))[:MAX_SEPARATORS]
