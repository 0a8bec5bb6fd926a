"""Templates with {{ name }} placeholders.

Names may be dotted ({{ user.name }}) to reach into nested dicts or attributes, and may carry
a default used when the value is missing: {{ user.nickname | friend }}.
"""

from __future__ import annotations

import html
import re
from typing import Any, Mapping

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][\w.]*)\s*(?:\|\s*(.*)\s*)?\}\}")
_MISSING = object()


class MissingValue(KeyError):
    pass


def lookup(context: Mapping[str, Any], name: str) -> Any:
    value: Any = context
    for part in name.split("."):
        if isinstance(value, Mapping):
            value = value.get(part, _MISSING)
        else:
            value = getattr(value, part, _MISSING)
        if value is _MISSING:
            return _MISSING
    return value


def render(template: str, context: Mapping[str, Any], strict: bool = False, escape: bool = False) -> str:
    """Fill in every placeholder.

    A missing value without a default renders as "" or, with strict=True, raises MissingValue.
    With escape=True values (not defaults) are HTML-escaped.
    """

    def replace(match: re.Match) -> str:
        name, default = match.group(1), match.group(2)
        value = lookup(context, name)
        if value is _MISSING or value is None:
            if default is not None:
                return default.strip()
            if strict:
                raise MissingValue(name)
            return ""
        text = str(value)
        return html.escape(text) if escape else text

    return PLACEHOLDER.sub(replace, template)


def placeholders(template: str) -> list[str]:
    """Names used in the template, in order of first use."""
    names: list[str] = []
    for match in PLACEHOLDER.finditer(template):
        if match.group(1) not in names:
            names.append(match.group(1))
    return names
