"""Does a candidate bring the code in line with what its own documentation says?

    documented(sources, edits) -> bool

A docstring or comment often states the behaviour a bug breaks: "rounded to the cent half up",
"names compare in upper case", "newest first". Among candidates that all pass the visible tests,
one whose edit puts in the words the documentation uses, and takes out none it uses, agrees with
the author's stated intent; the others only agree with the tests.

The words of an edit are the identifier parts and string words it adds (`ROUND_DOWN` ->
`ROUND_HALF_UP` adds `half`, `up` and removes `down`). The documentation is the module's docstring
and those of the classes and function around the edit, with the comments inside that function.
Several added words must stand together in it (`half up`, small words like "to" aside); a single
one must be four letters or more. A candidate that adds no words (`<` -> `<=`, `x + 1`) is never
documented: the measure says nothing about it.
"""

from __future__ import annotations

import ast
import difflib
import io
import re
import tokenize
from collections.abc import Sequence

from selfheal.agent.repair.edits import Edit, SourceFile

STOPWORDS = frozenset({
    "a", "an", "the", "of", "to", "in", "on", "at", "by", "for", "from", "with", "as", "is", "are",
    "be", "it", "its", "and", "or", "if", "then", "else", "this", "that", "self", "cls", "none",
    "true", "false", "return",
})  # fmt: skip
WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
MIN_SINGLE_WORD = 4


def documented(sources: dict[str, str], edits: Sequence[Edit]) -> bool:
    added: list[str] = []
    removed: list[str] = []
    docs: list[str] = []
    for edit in edits:
        text = sources.get(edit.file)
        if text is None:
            return False
        old_tokens = _tokens(text.encode("utf-8")[edit.start : edit.end].decode("utf-8", "replace"))
        new_tokens = _tokens(edit.text)
        matcher = difflib.SequenceMatcher(a=old_tokens, b=new_tokens, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                removed += _words(old_tokens[i1:i2])
                added += _words(new_tokens[j1:j2])
        documentation = _documentation(text, edit)
        if documentation is None:
            return False
        docs.append(documentation)
    new = [w for w in added if w not in removed]  # what the edit brings in ...
    gone = [w for w in removed if w not in added]  # ... and takes out
    if not new or (len(new) == 1 and len(new[0]) < MIN_SINGLE_WORD):
        return False
    words = [w for w in _plain_words(" ".join(docs)) if w not in STOPWORDS]
    if any(_said(w, words) for w in gone if len(w) > 2):
        return False  # the documentation names what the edit takes out
    if not all(_said(w, words) for w in added):
        return False  # every word of the new names: ROUND_HALF_DOWN is not "half up"
    return len(new) == 1 or _contains_run(words, new)


def _said(word: str, words: list[str]) -> bool:
    """`word` among `words`, a longer one also as the start of one (`round` in "rounded")."""
    if len(word) < MIN_SINGLE_WORD:
        return word in words
    return any(w.startswith(word) or (len(w) >= MIN_SINGLE_WORD and word.startswith(w)) for w in words)


def _tokens(code: str) -> list[str]:
    try:
        return [
            t.string
            for t in tokenize.generate_tokens(io.StringIO(code).readline)
            if t.type in (tokenize.NAME, tokenize.STRING, tokenize.NUMBER, tokenize.OP)
        ]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return code.split()


def _words(tokens: list[str]) -> list[str]:
    """Identifier parts and the words of string literals, lower case, stopwords left out."""
    found: list[str] = []
    for token in tokens:
        text = token if token[:1] in "'\"" or re.match(r"[rbufRBUF]+['\"]", token) else _split(token)
        for word in _plain_words(text):
            if word not in STOPWORDS and word not in found:
                found.append(word)
    return found


def _split(identifier: str) -> str:
    return " ".join(WORD.findall(identifier.replace("_", " ")))


def _plain_words(text: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[A-Za-z]+", text)]


def _contains_run(words: list[str], run: list[str]) -> bool:
    """The words of `run` next to each other in `words`, in any order."""
    size = len(run)
    return any(all(_said(w, words[i : i + size]) for w in run) for i in range(len(words) - size + 1))


def _documentation(text: str, edit: Edit) -> str | None:
    """The module docstring, the docstrings of the classes and function enclosing the edit, and
    the comments inside that function; None when the file does not parse."""
    try:
        src = SourceFile("m.py", text)
    except SyntaxError:
        return None
    parts = [ast.get_docstring(src.tree) or ""]
    enclosing = [
        node
        for node in ast.walk(src.tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and src.span(node)[0] <= edit.start
        and edit.end <= src.span(node)[1]
    ]
    for node in enclosing:
        parts.append(ast.get_docstring(node) or "")
    functions = [n for n in enclosing if not isinstance(n, ast.ClassDef)]
    if functions:
        innermost = max(functions, key=lambda n: n.lineno)
        body = "\n".join(src.line_text(n) for n in range(innermost.lineno, (innermost.end_lineno or 0) + 1))
        parts += _comments(body)
    return "\n".join(parts)


def _comments(code: str) -> list[str]:
    try:
        return [
            t.string
            for t in tokenize.generate_tokens(io.StringIO(code + "\n").readline)
            if t.type == tokenize.COMMENT
        ]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return re.findall(r"#[^\n]*", code)
