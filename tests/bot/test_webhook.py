"""X-Hub-Signature-256 as GitHub computes it, and the concurrency lanes of the queue."""

from __future__ import annotations

from selfheal.bot.events import parse_event
from selfheal.bot.server.webhook import lane_for, signature, verify
from tests.bot import payloads

# GitHub's documented test values ("Validating webhook deliveries": testing the webhook payload validation)
DOC_SECRET, DOC_BODY = b"It's a Secret to Everybody", b"Hello, World!"
DOC_SIGNATURE = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"


def test_the_signature_matches_githubs_documented_example() -> None:
    assert signature(DOC_SECRET, DOC_BODY) == DOC_SIGNATURE
    assert verify(DOC_SECRET, DOC_BODY, DOC_SIGNATURE)
    assert verify(DOC_SECRET, DOC_BODY, f" {DOC_SIGNATURE}\r\n")


def test_anything_else_does_not_verify() -> None:
    assert not verify(DOC_SECRET, DOC_BODY, None)
    assert not verify(DOC_SECRET, DOC_BODY, "")
    assert not verify(DOC_SECRET, DOC_BODY + b" ", DOC_SIGNATURE)  # the raw bytes, not the JSON's meaning
    assert not verify(b"another secret", DOC_BODY, DOC_SIGNATURE)
    assert not verify(DOC_SECRET, DOC_BODY, DOC_SIGNATURE.upper())
    assert not verify(DOC_SECRET, DOC_BODY, DOC_SIGNATURE.removeprefix("sha256="))
    assert not verify(DOC_SECRET, DOC_BODY, "sha1=" + DOC_SIGNATURE.removeprefix("sha256="))
    assert not verify(DOC_SECRET, DOC_BODY, "sha256=é" + DOC_SIGNATURE[8:])
    assert not verify(b"", DOC_BODY, signature(b"", DOC_BODY))  # no secret configured: nothing verifies


def test_lanes_follow_the_workflow_templates_concurrency_group() -> None:
    comment = parse_event("issue_comment", payloads.issue_comment("/heal", number=7))
    sha = "a" * 40
    red = parse_event(
        "workflow_run", payloads.workflow_run(conclusion="failure", head_sha=sha, head_branch="feature")
    )
    red_pr = parse_event(
        "workflow_run",
        payloads.workflow_run(
            conclusion="failure", head_sha=sha, head_branch="feature", pulls=[{"number": 7}]
        ),
    )
    dispatch = parse_event("workflow_dispatch", payloads.workflow_dispatch(ref="release"))
    lanes = [lane_for(t) for t in (comment, red, red_pr, dispatch)]  # type: ignore[arg-type]
    assert lanes == ["acme/widgets#7", "acme/widgets@feature", "acme/widgets@feature", "acme/widgets@release"]
