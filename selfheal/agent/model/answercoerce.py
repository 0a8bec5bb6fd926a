"""The simple type mismatches of a parsed answer fixed as its schema asks: "0.8" -> 0.8,
"true" -> true, 3.0 -> 3, "Accept" -> "accept" (enum), item -> [item], 12 -> "12", a JSON object
sent as a string -> the object, keys dropped where additionalProperties is false."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from selfheal.agent.model.answerjson import loads
from selfheal.agent.model.answershape import schema_types

_INTEGER = re.compile(r"[+-]?\d+\Z")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\Z")
_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "null": lambda v: v is None,
}


def coerce(value: Any, schema: Any) -> Any:
    """`value` with the simple type mismatches `schema` asks about fixed (see the module doc)."""
    if not isinstance(schema, dict):
        return value
    types = schema_types(schema)
    if types and not any(_JSON_TYPES.get(t, lambda v: True)(value) for t in types):
        value = _coerce_scalar(value, types)
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        coerced = {}
        for key, item in value.items():
            if key in properties:
                coerced[key] = coerce(item, properties[key])
            elif extra is False:
                continue
            else:
                coerced[key] = coerce(item, extra) if isinstance(extra, dict) else item
        return coerced
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [coerce(item, schema["items"]) for item in value]
    if isinstance(value, str) and "enum" in schema and value not in schema["enum"]:
        wanted = _enum_key(value)
        for option in schema["enum"]:
            if isinstance(option, str) and _enum_key(option) == wanted:
                return option
    return value


def _coerce_scalar(value: Any, types: list[str]) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if "integer" in types and _INTEGER.match(text):
            return int(text)
        if "number" in types and _NUMBER.match(text):
            return float(text)
        if "boolean" in types and text.lower() in ("true", "false"):
            return text.lower() == "true"
        if ("object" in types and text.startswith("{")) or ("array" in types and text.startswith("[")):
            try:
                return loads(text)
            except json.JSONDecodeError:
                pass
    if isinstance(value, float) and "integer" in types and value.is_integer():
        return int(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and "string" in types:
        return str(value)
    if "array" in types and value is not None:
        return [value]
    return value


def _enum_key(text: str) -> str:
    return re.sub(r"[\s\-]+", "_", text.strip().lower())
