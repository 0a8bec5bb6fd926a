"""Paths into JSON documents: keys joined by dots, list indexes in brackets."""

from __future__ import annotations

import re
from typing import Any, Iterator, Union

Part = Union[str, int]
TOKEN = re.compile(r"(?:^|\.)([A-Za-z_][\w-]*)|\[(-?\d+)\]")


def parse_path(path: str) -> list[Part]:
    """'orders[0].items[-1].sku' -> ['orders', 0, 'items', -1, 'sku']."""
    parts: list[Part] = []
    position = 0
    for match in TOKEN.finditer(path):
        if match.start() != position:
            break
        key, index = match.groups()
        parts.append(key if key is not None else int(index))
        position = match.end()
    if position != len(path) or not parts:
        raise ValueError(f"bad path: {path!r}")
    return parts


def _get(node: Any, parts: list[Part], default: Any) -> Any:
    if not parts:
        return node
    head, rest = parts[0], parts[1:]
    if isinstance(head, int):
        if not isinstance(node, list) or head > len(node) or head < -len(node):
            return default
        return _get(node[head], rest, default)
    if not isinstance(node, dict) or head not in node:
        return default
    return _get(node[head], rest, default)


def get(document: Any, path: str, default: Any = None) -> Any:
    """The value at `path`, or `default` when any step of it is missing."""
    return _get(document, parse_path(path), default)


def leaf_paths(document: Any, prefix: str = "") -> Iterator[str]:
    """Paths of every scalar in the document, depth first."""
    if isinstance(document, dict):
        for key, value in document.items():
            yield from leaf_paths(value, f"{prefix}.{key}" if prefix else key)
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from leaf_paths(value, f"{prefix}[{index}]")
    else:
        yield prefix


def find_all(document: Any, key: str) -> list[Any]:
    """Every value stored under `key` anywhere in the document, depth first."""
    found = []
    if isinstance(document, dict):
        for name, value in document.items():
            if name == key:
                found.append(value)
            found.extend(find_all(value, key))
    elif isinstance(document, list):
        for value in document:
            found.extend(find_all(value, key))
    return found
