"""Wrongly typed payload fields at the webhook: each is answered 400 with a message naming the
field, queues nothing and prints no traceback (the issue found them dropping the connection)."""

from __future__ import annotations

import pytest

from selfheal.bot.eventschema import SCHEMAS
from tests.bot.botserver import BotWorld
from tests.bot.wrong_payloads import WRONG

NOTHING_QUEUED = {"queued": 0, "running": 0, "done": 0, "failed": 0}


def test_every_event_selfheal_acts_on_has_a_schema() -> None:
    assert sorted(SCHEMAS) == ["issue_comment", "workflow_dispatch", "workflow_run"]


@pytest.mark.parametrize("case", sorted(WRONG))
def test_a_wrongly_typed_field_is_a_400_naming_it(bot_world: BotWorld, case: str) -> None:
    event, payload, message = WRONG[case]
    bot = bot_world.start("--sandbox", "local")
    reply = bot.deliver(event, payload)
    assert (reply.status, reply.body) == (400, {"error": message})
    assert bot.health()["queue"] == NOTHING_QUEUED
    assert f"{event} refused: {message}" in bot.output()
    assert "Traceback" not in bot.output()
    assert bot.terminate() == 0
