"""The shape a role's JSON Schema asks for, in words for the model: `describe`, and where in an
answer a validation error points (`json_path`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where used: a heal without a model checks no answer or tool call
    import jsonschema


def schema_types(schema: dict[str, Any]) -> list[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    return []


def json_path(error: jsonschema.ValidationError) -> str:
    path = "$"
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def instructions(schema: dict[str, Any]) -> str:
    return f"Reply with only a JSON value of this shape, no prose and no code fences:\n{describe(schema)}"


def describe(schema: Any, depth: int = 0) -> str:
    """A compact, human-readable shape of a JSON Schema ("?" marks optional keys)."""
    if not isinstance(schema, dict) or depth > 6:
        return "any"
    if "enum" in schema:
        return " | ".join(json.dumps(option) for option in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return " | ".join(describe(option, depth + 1) for option in schema[key])
    types = schema_types(schema)
    if "object" in types or "properties" in schema:
        required = set(schema.get("required", ()))
        parts = [
            f'"{name}"{"" if name in required else "?"}: {describe(sub, depth + 1)}'
            for name, sub in schema.get("properties", {}).items()
        ]
        return "{" + ", ".join(parts) + "}"
    if "array" in types:
        limit = f" (at most {schema['maxItems']})" if "maxItems" in schema else ""
        return f"[{describe(schema.get('items'), depth + 1)}, ...]{limit}"
    if not types:
        return "any"
    shown = " | ".join(types)
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        shown += f" {low}..{high}"
    elif low is not None:
        shown += f" >= {low}"
    elif high is not None:
        shown += f" <= {high}"
    return shown
