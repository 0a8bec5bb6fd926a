"""Signed payloads whose fields have the wrong types, as the issue found them dropping the bot's
connection: (event, payload, the message selfheal answers with), for the bot's and the Action's tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.bot import payloads
from tests.bot.botserver import installed


def comment(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    payload = installed(payloads.issue_comment("/heal", number=7, comment_id=5001))
    change(payload)
    return payload


def run(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    payload = installed(payloads.workflow_run(conclusion="failure", head_sha="a" * 40, pulls=[{"number": 7}]))
    change(payload)
    return payload


def dispatch(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    payload = installed(payloads.workflow_dispatch())
    change(payload)
    return payload


# (event, payload, the message): one per wrongly typed field the issue lists, and their neighbours
WRONG = {
    "comment body a number": ("issue_comment", comment(lambda p: p["comment"].update(body=42)),
                              "issue_comment payload: comment.body is a number, not string or null"),
    "comment user a string": ("issue_comment", comment(lambda p: p["comment"].update(user="alice")),
                              "issue_comment payload: comment.user is a string, not object or null"),
    "issue title a number": ("issue_comment", comment(lambda p: p["issue"].update(title=3.5)),
                             "issue_comment payload: issue.title is a number, not string or null"),
    "comment id a string": ("issue_comment", comment(lambda p: p["comment"].update(id="5001")),
                            "issue_comment payload: comment.id is a string, not integer"),
    "pull_requests items not objects": (
        "workflow_run", run(lambda p: p["workflow_run"].update(pull_requests=[7, "8"])),
        "workflow_run payload: workflow_run.pull_requests.0 is a number, not object"),
    "run id not a number": ("workflow_run", run(lambda p: p["workflow_run"].update(id="nine")),
                            "workflow_run payload: workflow_run.id is a string, not integer"),
    "dispatch inputs a string": ("workflow_dispatch", dispatch(lambda p: p.update(inputs="ref=main")),
                                 "workflow_dispatch payload: inputs is a string, not object or null"),
    "dispatch ref input a list": ("workflow_dispatch", dispatch(lambda p: p.update(inputs={"ref": ["main"]})),
                                  "workflow_dispatch payload: inputs.ref is a array, not string or null"),
}  # fmt: skip
