"""The JSON Schemas of the event payloads selfheal reads: checked before any field is used.

Only the fields selfheal reads are described, with the types GitHub documents for them (a field
GitHub may leave out or send as null is allowed to be missing or null); everything else in a payload
is left alone, and so are missing pieces: the parser names those. A payload that breaks its schema
is refused with EventError naming the field, so a wrongly typed field is a 400 at the webhook and a
clear exit 1 in the Action, never a dropped connection or a traceback.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from selfheal.bot.exceptions import EventError


def _maybe(kind: str | list[str], **more: Any) -> dict[str, Any]:
    kinds = [kind] if isinstance(kind, str) else kind
    return {"type": [*kinds, "null"], **more}


USER = _maybe("object", properties={"login": {"type": "string"}, "type": _maybe("string")})
REPOSITORY = {
    "type": "object",
    "properties": {"full_name": {"type": "string"}, "default_branch": _maybe("string")},
}
INSTALLATION = _maybe("object", properties={"id": {"type": "integer"}})
COMMON = {"repository": REPOSITORY, "installation": INSTALLATION, "sender": USER, "action": _maybe("string")}

SCHEMAS: dict[str, dict[str, Any]] = {
    "issue_comment": {
        "type": "object",
        "properties": {
            **COMMON,
            "comment": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "body": _maybe("string"), "user": USER},
            },
            "issue": {
                "type": "object",
                "properties": {
                    "number": {"type": "integer"},
                    "title": _maybe("string"),
                    "body": _maybe("string"),
                    "pull_request": _maybe("object"),
                },
            },
        },
    },
    "workflow_run": {
        "type": "object",
        "properties": {
            **COMMON,
            "workflow_run": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "name": _maybe("string"),
                    "html_url": _maybe("string"),
                    "path": _maybe("string"),
                    "conclusion": _maybe("string"),
                    "head_sha": _maybe("string"),
                    "head_branch": _maybe("string"),
                    "head_repository": _maybe("object", properties={"full_name": {"type": "string"}}),
                    "pull_requests": _maybe(
                        "array",
                        items={"type": "object", "properties": {"number": {"type": "integer"}}},
                    ),
                },
            },
            "workflow": _maybe("object", properties={"path": _maybe("string")}),
        },
    },
    "workflow_dispatch": {
        "type": "object",
        "properties": {
            **COMMON,
            "ref": _maybe("string"),
            "inputs": _maybe(
                "object",
                properties={
                    "ref": _maybe("string"),
                    "test-command": _maybe("string"),
                    "test_command": _maybe("string"),
                },
            ),
        },
    },
}
_VALIDATORS = {name: Draft202012Validator(schema) for name, schema in SCHEMAS.items()}


def check_payload(event: str, payload: Any) -> None:
    """Raise EventError naming the first wrongly typed or missing field of an event selfheal reads."""
    validator = _VALIDATORS.get(event)
    if validator is None:
        return
    error = next(iter(sorted(validator.iter_errors(payload), key=lambda e: list(e.absolute_path))), None)
    if error is not None:
        raise EventError(f"{event} payload: {_describe(error)}")


def _describe(error: ValidationError) -> str:
    where = ".".join(str(part) for part in error.absolute_path) or "the payload"
    if error.validator == "type":
        wanted = error.validator_value
        wanted = " or ".join(wanted) if isinstance(wanted, list) else wanted
        return f"{where} is a {_json_type(error.instance)}, not {wanted}"
    return f"{where}: {error.message[:200]}"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"
