"""Nested dicts addressed by dotted paths such as "db.pool.size"."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

_MISSING = object()


def get_path(data: Mapping[str, Any], path: str, default: Any = None) -> Any:
    node: Any = data
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return default
        node = node[part]
    return node


def set_path(data: dict[str, Any], path: str, value: Any) -> None:
    """Set a value, creating intermediate dicts as needed."""
    *parents, last = path.split(".")
    node = data
    for part in parents:
        child = node.get(part, _MISSING)
        if not isinstance(child, dict):
            child = node[part] = {}
        node = child
    node[last] = value


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"db": {"host": "x", "port": 5432}} -> {"db.host": "x", "db.port": 5432}.

    Empty dicts are kept as values so that unflatten can restore them.
    """
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, Mapping) and value:
            flat.update(flatten(value, name))
        else:
            flat[name] = value
    return flat


def unflatten(flat: Mapping[str, Any]) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for path, value in flat.items():
        set_path(nested, path, value)
    return nested


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """A new dict with `override` laid over `base`.

    Where both hold a dict under the same key the two are merged key by key, recursively;
    anywhere else the value from `override` wins. Neither argument is modified.
    """
    merged = dict(base)
    for key, value in override.items():
        current = merged.get(key)
        if isinstance(current, Mapping) and isinstance(value, Mapping):
            merged[key] = deep_merge(value, current)
        else:
            merged[key] = value
    return merged


def layered(configs: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Merge configs in order: defaults first, the most specific last."""
    result: dict[str, Any] = {}
    for config in configs:
        result = deep_merge(result, config)
    return result
