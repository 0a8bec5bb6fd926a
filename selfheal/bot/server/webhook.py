"""What a webhook delivery becomes (the HTTP side is asgi.py: size cap, timeouts, 411/413/408).

A delivery, in order; the first answer that applies is given:

    X-Hub-Signature-256 missing or not HMAC-SHA256(secret, body) 401 (nothing parsed before this)
    no X-GitHub-Event / X-GitHub-Delivery, body not a JSON object 400
    ping ..................................................... 200 pong
    a field of the wrong type (eventschema) .................. 400 naming the field
    an event selfheal does not act on (parse_event → Skip, or the executor's screen) 200 ignored
    a delivery id seen before ................................ 200 duplicate (no second job)
    otherwise: queued ........................................ 202 {"job": id}

GitHub waits 10 seconds for an answer, so nothing here calls GitHub: deciding is `parse_event` on
the payload, and the work happens later in a worker. The signature is compared with
`hmac.compare_digest` over the raw bytes received, never over re-serialised JSON.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from selfheal.bot.events import COMMENT, DISPATCH, WORKFLOW_RUN, Skip, Trigger, parse_event
from selfheal.bot.exceptions import EventError, QueueError
from selfheal.bot.server.jobs import Queue
from selfheal.bot.server.log import ServerLog

SIGNATURE, EVENT, DELIVERY = "X-Hub-Signature-256", "X-GitHub-Event", "X-GitHub-Delivery"
ACTED_ON = (COMMENT, WORKFLOW_RUN, DISPATCH)
HEADER_VALUE_MAX = 200


def signature(secret: bytes, body: bytes) -> str:
    """The X-Hub-Signature-256 value GitHub sends for `body`."""
    return "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()


def verify(secret: bytes, body: bytes, header: str | None) -> bool:
    if not secret or not header:
        return False
    given = header.strip().encode("utf-8", "replace")
    return hmac.compare_digest(signature(secret, body).encode("ascii"), given)


def lane_for(trigger: Trigger) -> str:
    """The concurrency group, as the workflow template's `concurrency:` (issue, else branch, else ref)."""
    if trigger.kind == COMMENT and trigger.issue_number:
        key = f"#{trigger.issue_number}"
    elif trigger.run:
        key = f"@{trigger.run.head_branch}"
    else:
        key = f"@{trigger.ref or ''}"
    return f"{trigger.repo.lower()}{key}"


@dataclass(frozen=True)
class Answer:
    status: int
    body: dict[str, Any] = field(default_factory=dict)


class Intake:
    """A delivery's headers and raw body -> an Answer (and maybe a job)."""

    def __init__(
        self,
        secret: bytes,
        queue: Queue,
        log: ServerLog,
        *,
        screen: Callable[[Trigger], str | None] = lambda trigger: None,
        on_queued: Callable[[], None] = lambda: None,
    ) -> None:
        if not secret:
            raise ValueError("the webhook secret is empty")
        self._secret = secret
        self.queue = queue
        self.log = log
        self.screen = screen
        self.on_queued = on_queued

    def __repr__(self) -> str:
        return "Intake(secret=***)"

    def receive(self, headers: Mapping[str, str], body: bytes) -> Answer:
        if not verify(self._secret, body, headers.get(SIGNATURE)):
            said = "is missing" if not headers.get(SIGNATURE) else "does not match the body"
            delivery = (headers.get(DELIVERY) or "?")[:HEADER_VALUE_MAX]
            self.log.info(f"delivery {delivery}: refused (401): {SIGNATURE} {said}")
            return Answer(401, {"error": f"{SIGNATURE} {said}"})
        event = (headers.get(EVENT) or "").strip()[:HEADER_VALUE_MAX]
        delivery = (headers.get(DELIVERY) or "").strip()[:HEADER_VALUE_MAX]
        if not event or not delivery:
            return Answer(400, {"error": f"{EVENT} and {DELIVERY} are required"})
        content_type = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if content_type == "application/x-www-form-urlencoded":
            return Answer(400, {"error": "set the webhook's content type to application/json"})
        try:
            payload = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return Answer(400, {"error": "the body is not JSON"})
        if not isinstance(payload, dict):
            return Answer(400, {"error": "the body is not a JSON object"})
        return self._accept(event, delivery, payload, body)

    def _accept(self, event: str, delivery: str, payload: dict[str, Any], body: bytes) -> Answer:
        if event == "ping":
            self.log.info(f"delivery {delivery}: ping (hook {payload.get('hook_id')})")
            return Answer(200, {"status": "pong", "zen": payload.get("zen", "")})
        if event not in ACTED_ON:
            return Answer(200, {"status": "ignored", "reason": f"selfheal does not act on {event} events"})
        try:
            trigger = parse_event(event, payload)
        except EventError as exc:
            self.log.info(f"delivery {delivery}: {event} refused: {exc}")
            return Answer(400, {"error": str(exc)})
        reason = trigger.reason if isinstance(trigger, Skip) else self.screen(trigger)
        if reason is not None or isinstance(trigger, Skip):
            return Answer(200, {"status": "ignored", "reason": reason})
        installation = payload.get("installation")
        installation_id = installation.get("id") if isinstance(installation, dict) else None
        try:
            job_id, created = self.queue.enqueue(
                delivery_id=delivery,
                event=event,
                payload=body.decode("utf-8"),
                repo=trigger.repo,
                lane=lane_for(trigger),
                installation_id=installation_id if isinstance(installation_id, int) else None,
            )
        except QueueError as exc:
            self.log.info(f"delivery {delivery}: could not be queued: {exc}")
            return Answer(503, {"error": "the job queue is not available; redeliver later"})
        if not created:
            self.log.info(f"delivery {delivery}: duplicate of job {job_id}")
            return Answer(200, {"status": "duplicate", "job": job_id})
        where = f" #{trigger.issue_number}" if trigger.issue_number else ""
        self.log.info(f"delivery {delivery}: {event} on {trigger.repo}{where} -> job {job_id}")
        self.on_queued()
        return Answer(202, {"status": "queued", "job": job_id})
