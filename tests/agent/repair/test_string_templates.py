"""Format-field edits of string literals: a field quoted by hand becomes a `!r` field."""

from __future__ import annotations

import ast

from selfheal.agent.repair.edits import SourceFile, apply_edits
from selfheal.agent.repair.string_templates import format_field_edits

SOURCE = (
    "def messages(name, path, key, x):\n"
    "    a = _(\"{name} '{filename}' is a directory.\").format(name=name, filename=path)\n"
    "    b = f\"no such key '{key}' in {name}\"\n"
    "    c = 'the value \"{value.text}\" is too long'.format(value=x)\n"
    '    d = "it\'s {x} and {y}".format(x=x, y=x)\n'
    "    e = '{x}'.format(x=x)\n"
    "    return a, b, c, d, e\n"
)


def quoted_field_edits(line: int) -> list[str]:
    src = SourceFile("m.py", SOURCE)
    statement = src.tree.body[0].body[line - 2]
    changed = []
    for node in ast.walk(statement):
        for mutation in format_field_edits(src, node, ()):
            if "quoted and escaped" in mutation.description:
                new = apply_edits({"m.py": SOURCE}, mutation.edits)["m.py"]
                changed += [ln.strip() for ln in new.splitlines() if ln not in SOURCE.splitlines()]
    return changed


def test_a_field_quoted_by_hand_in_a_format_string_is_shown_with_repr():
    assert quoted_field_edits(2) == [
        'a = _("{name} {filename!r} is a directory.").format(name=name, filename=path)'
    ]


def test_a_field_quoted_by_hand_in_an_f_string_is_shown_with_repr_once():
    assert quoted_field_edits(3) == ['b = f"no such key {key!r} in {name}"']


def test_a_dotted_field_in_double_quotes_inside_a_single_quoted_literal():
    assert quoted_field_edits(4) == ["c = 'the value {value.text!r} is too long'.format(value=x)"]


def test_an_apostrophe_is_no_quote_and_the_literals_own_delimiters_are_not_either():
    assert quoted_field_edits(5) == []
    assert quoted_field_edits(6) == []
