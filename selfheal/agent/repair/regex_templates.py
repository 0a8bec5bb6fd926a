"""Regular-expression edits guided by the failing tests' inputs.

A pattern is the first argument of a `re` call or a string constant bound to a name that is. Its
edits: a character class widened by a character of the failing input it does not match (or by a
letter case or the digits) or narrowed by one item; a shorthand (`\\d`, `\\w`) widened; a
quantifier changed (`+` <-> `*`, `?` dropped, `{m,n}` by one) or added to a class; an alternative
from the input added to a group; a `.` escaped or unescaped; an anchor added or dropped; a
backspace that a non-raw `"\\b"` made turned back into a word boundary; `re.match` <-> `re.search`
<-> `re.fullmatch`.

Each edit is compiled and, where the inputs can be read, run on them: an edit that changes what
the pattern finds in a failing test's input keeps its weight, one that changes nothing there is
halved. At most `MAX_PER_PATTERN` per pattern, the best first.
"""

from __future__ import annotations

import ast
import re
import textwrap
import warnings
from collections.abc import Iterator

from selfheal.agent.repair.edits import Edit, SourceFile
from selfheal.agent.repair.mutation import Mutation, called_name, header_nodes, short

REGEX_FUNCTIONS = {"compile", "match", "fullmatch", "search", "findall", "finditer", "sub", "subn", "split"}
FUNCTION_SWAPS = {
    "match": ("search", "fullmatch"),
    "search": ("match", "fullmatch"),
    "fullmatch": ("match", "search"),
}
MAX_PER_PATTERN = 24
MAX_INPUT_CHARS = 12
EVALUATED_INPUT_LENGTH = 200
TOKEN = re.compile(r"\\.|\[\^?\]?(?:\\.|[^\]\\])*\]|\(\?[:=!<P]?|\{\d*,?\d*\}\??|[*+?]\??|.", re.S)
SHORTHANDS = {"\\d": "\\w", "\\w": "\\S", "\\s": "[\\s,;]"}


def pattern_literals(
    src: SourceFile, statement: ast.stmt, parents: dict[ast.AST, ast.AST]
) -> list[ast.Constant]:
    """String constants on the statement's own lines that are used as regular expressions."""
    pattern_names: set[str] | None = None  # read from the whole module only when needed
    found = []
    for node in (n for header in header_nodes(statement) for n in ast.walk(header)):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node and is_re_call(parent):
            found.append(node)
        elif isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is node:
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            if pattern_names is None:
                pattern_names = _pattern_names(src)
            if any(isinstance(t, ast.Name) and t.id in pattern_names for t in targets):
                found.append(node)
    return found


def regex_edits(
    src: SourceFile, node: ast.Constant, inputs: tuple[str, ...], flags: int = 0
) -> Iterator[Mutation]:
    """`flags`: the `re` flags the pattern is compiled with, so that the failing inputs are
    read as the program reads them (`^` at each line under `re.MULTILINE`)."""
    pattern = node.value
    variants: dict[str, tuple[float, str]] = {}
    samples = _samples(inputs)
    for new, weight, description in _variants(pattern, inputs):
        if new != pattern and new not in variants and _compiles(new):
            variants[new] = (weight * _guidance(pattern, new, samples, flags), description)
    ranked = sorted(variants.items(), key=lambda item: -item[1][0])[:MAX_PER_PATTERN]
    literal = src.segment(node)
    for new, (weight, description) in ranked:
        yield Mutation(
            "regex-edit",
            weight,
            (Edit(src.path, *src.span(node), render(literal, new)),),
            f"regex {short(literal, 40)}: {description}",
        )


def function_swaps(src: SourceFile, call: ast.Call) -> Iterator[Mutation]:
    """`re.match` (anchored at the start) <-> `re.search` <-> `re.fullmatch`."""
    name = called_name(call)
    if not is_re_call(call) or name not in FUNCTION_SWAPS:
        return
    end = src.span(call.func)[1]
    for other in FUNCTION_SWAPS[name]:
        yield Mutation(
            "regex-edit", 0.8, (Edit(src.path, end - len(name), end, other),), f"`re.{name}` -> `re.{other}`"
        )


def render(literal: str, value: str) -> str:
    """The new pattern in the literal's own style: raw and its quote where it can be."""
    prefix = re.match(r"[rRbBuUfF]*", literal).group()
    quote = literal[len(prefix)]
    raw_ok = quote not in value and not value.endswith("\\") and "\n" not in value and value.isprintable()
    if raw_ok and ("r" in prefix.lower() or "\\" in value):
        return f"r{quote}{value}{quote}"
    return repr(value)


def pattern_flags(node: ast.Constant, parents: dict[ast.AST, ast.AST]) -> int:
    """The flags (`re.M | re.I`, `flags=re.S`) of the `re` call the pattern is passed to; 0 for
    a pattern bound to a name, whose calls may differ."""
    call = parents.get(node)
    if not (isinstance(call, ast.Call) and is_re_call(call) and call.args and call.args[0] is node):
        return 0
    name = called_name(call)
    position = {"compile": 1, "match": 2, "fullmatch": 2, "search": 2, "findall": 2, "finditer": 2,
                "split": 3, "sub": 4, "subn": 4}.get(name or "")  # fmt: skip
    given = [k.value for k in call.keywords if k.arg == "flags"]
    if position is not None and len(call.args) > position:
        given.append(call.args[position])
    return _flag_value(given[0]) if given else 0


def _flag_value(node: ast.AST) -> int:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _flag_value(node.left) | _flag_value(node.right)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "re":
        flag = getattr(re, node.attr, 0)
        return int(flag) if isinstance(flag, re.RegexFlag) else 0
    return 0


def is_re_call(node: ast.Call) -> bool:
    return (
        isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in ("re", "regex")
        and node.func.attr in REGEX_FUNCTIONS
    )


def _pattern_names(src: SourceFile) -> set[str]:
    """Names passed as the pattern of a `re` call anywhere in the file."""
    return {
        n.args[0].id
        for n in ast.walk(src.tree)
        if isinstance(n, ast.Call) and is_re_call(n) and n.args and isinstance(n.args[0], ast.Name)
    }


def _variants(pattern: str, inputs: tuple[str, ...]) -> Iterator[tuple[str, float, str]]:
    tokens = TOKEN.findall(pattern)
    chars = _input_chars(inputs)
    for i, token in enumerate(tokens):
        before, after = "".join(tokens[:i]), "".join(tokens[i + 1 :])
        quantified = i + 1 < len(tokens) and tokens[i + 1][:1] in "*+?{"
        if token.startswith("[") and len(token) > 2:
            yield from ((before + t + after, w, d) for t, w, d in _class_variants(token, chars))
            if not quantified:
                yield before + token + "+" + after, 0.7, f"`{token}` repeated: `{token}+`"
        elif token in SHORTHANDS:
            for c in chars:
                if not re.fullmatch(token, c):
                    yield before + f"[{token}{_in_class(c)}]" + after, 0.9, f"`{token}` also takes {c!r}"
            yield before + SHORTHANDS[token] + after, 0.6, f"`{token}` -> `{SHORTHANDS[token]}`"
            if not quantified:
                yield before + token + "+" + after, 0.7, f"`{token}` repeated: `{token}+`"
        elif token[:1] in "*+?{" and i > 0:
            yield from ((before + t + after, w, d) for t, w, d in _quantifier_variants(token))
        elif token == ".":
            yield before + "\\." + after, 0.8, "`.` escaped: a literal dot"
        elif token == "\\.":
            yield before + "." + after, 0.5, "`\\.` unescaped: any character"
        elif token in ("^", "$"):
            yield before + after, 0.6, f"anchor `{token}` dropped"
        elif token == "|":
            yield from _alternatives(tokens, i, inputs)
    if "\x08" in pattern:
        yield pattern.replace("\x08", "\\b"), 1.0, 'backspaces (a non-raw `"\\b"`) -> word boundaries `\\b`'
    if not pattern.startswith("^"):
        yield "^" + pattern, 0.6, "anchored at the start: `^`"
    if not pattern.endswith("$") and not pattern.endswith("\\Z"):
        yield pattern + "$", 0.6, "anchored at the end: `$`"


def _class_variants(token: str, chars: list[str]) -> Iterator[tuple[str, float, str]]:
    negated = token.startswith("[^")
    body = token[2:-1] if negated else token[1:-1]
    head = "[^" if negated else "["
    for c in chars:
        matched = re.fullmatch(token, c) is not None
        if matched == negated:  # widening a class, or narrowing a negated one, by the input's char
            yield (
                head + body + _in_class(c) + "]",
                1.0,
                f"`{token}` {'no longer takes' if negated else 'also takes'} {c!r}",
            )
    if not negated:
        if "a-z" in body and "A-Z" not in body:
            yield head + body + "A-Z]", 0.9, f"`{token}` also takes upper case"
        if "A-Z" in body and "a-z" not in body:
            yield head + body + "a-z]", 0.9, f"`{token}` also takes lower case"
        if "0-9" not in body and "\\d" not in body and "\\w" not in body:
            yield head + body + "0-9]", 0.7, f"`{token}` also takes digits"
    items = re.findall(r"\\.|.-.|.", body)
    if len(items) > 1:
        for j, item in enumerate(items):
            narrower = head + "".join(items[:j] + items[j + 1 :]) + "]"
            yield narrower, 0.6, f"`{token}` without `{item}`"


def _quantifier_variants(token: str) -> Iterator[tuple[str, float, str]]:
    lazy = "?" if token.endswith("?") and len(token) > 1 else ""
    core = token[: len(token) - len(lazy)]
    options: list[tuple[str, float]] = []
    if core == "+":
        options = [("*", 0.9), ("?", 0.6), ("{2,}", 0.5)]
    elif core == "*":
        options = [("+", 0.9), ("?", 0.6)]
    elif core == "?":
        options = [("", 0.8), ("*", 0.7), ("+", 0.6)]
    elif core.startswith("{"):
        bounds = core[1:-1].split(",")
        low = int(bounds[0]) if bounds[0] else 0
        if len(bounds) == 1:
            options = [(f"{{{low},}}", 0.9), (f"{{{low + 1}}}", 0.7), (f"{{{max(low - 1, 0)}}}", 0.7)]
        else:
            high = bounds[1]
            options = [(f"{{{low},}}", 0.8)] if high else []
            options += [(f"{{{max(low - 1, 0)},{high}}}", 0.7), (f"{{{low + 1},{high}}}", 0.6)]
            if high:
                options += [
                    (f"{{{low},{int(high) + 1}}}", 0.8),
                    (f"{{{low},{max(int(high) - 1, low)}}}", 0.6),
                ]
    for new, weight in options:
        yield new + lazy, weight, f"quantifier `{token}` -> `{new + lazy or '(none)'}`"


def _alternatives(tokens: list[str], bar: int, inputs: tuple[str, ...]) -> Iterator[tuple[str, float, str]]:
    """`(cat|dog)` + a word of the input shaped like the alternatives: `(cat|dog|cow)`."""
    depth, end = 0, len(tokens)
    for j in range(bar, len(tokens)):
        if tokens[j].startswith("("):
            depth += 1
        elif tokens[j] == ")":
            if depth == 0:
                end = j
                break
            depth -= 1
    words = [w for s in inputs for w in re.findall(r"[A-Za-z]{2,}", s)]
    alternatives = "".join(tokens[:end])
    for word in list(dict.fromkeys(words))[:6]:
        if word not in alternatives:
            yield (
                "".join(tokens[:end]) + "|" + word + "".join(tokens[end:]),
                0.6,
                f"alternative `{word}` added",
            )


def _input_chars(inputs: tuple[str, ...]) -> list[str]:
    """Characters of the failing inputs worth adding to a class: punctuation and spaces first."""
    seen = dict.fromkeys(c for s in inputs for c in s if c.isprintable() or c in "\t")
    ordered = [c for c in seen if not c.isalnum()] + [c for c in seen if c.isalnum() and not c.isascii()]
    return ordered[:MAX_INPUT_CHARS]


def _in_class(char: str) -> str:
    """A character appended to a class's end, where a `-` is literal and needs no escape."""
    return "\\" + char if char in "\\]^[" else char


def _compiles(pattern: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    return True


def _samples(inputs: tuple[str, ...]) -> tuple[str, ...]:
    """The failing inputs, cut to length, each indented block also as the test most likely
    passes it: dedented, as a triple-quoted block in a test method usually is."""
    found: dict[str, None] = {}
    for text in inputs:
        found[text[:EVALUATED_INPUT_LENGTH]] = None
        if "\n" in text:
            found[textwrap.dedent(text)[:EVALUATED_INPUT_LENGTH]] = None
    return tuple(found)


def _guidance(old: str, new: str, samples: tuple[str, ...], flags: int = 0) -> float:
    """1 when the edit changes what the pattern finds in a failing input, 0.5 when it changes
    nothing there, 0.75 when that cannot be told (no inputs, or a nested quantifier that could
    backtrack for long)."""
    if not samples or re.search(r"\)[*+{]", new):
        return 0.75
    for sample in samples:
        if _findings(old, sample, flags) != _findings(new, sample, flags):
            return 1.0
    return 0.5


def _findings(pattern: str, text: str, flags: int = 0) -> tuple:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = re.compile(pattern, flags)
    full = compiled.fullmatch(text)
    return (
        full is not None,
        tuple((m.span(), m.groups()) for m in compiled.finditer(text)),
    )
