"""Wrongly typed payload fields in the Action's event file: exit 1 with a message naming the field,
no traceback, nothing written to GitHub."""

from __future__ import annotations

import pytest

from tests.action.conftest import World
from tests.bot.wrong_payloads import WRONG


@pytest.mark.parametrize("case", ["comment body a number", "run id not a number", "dispatch inputs a string"])
def test_a_wrongly_typed_field_ends_the_action_with_exit_1_naming_it(world: World, case: str) -> None:
    event, payload, message = WRONG[case]
    done = world.run(event, payload)
    assert done.returncode == 1
    assert f"::error::selfheal: {message}" in done.stderr
    assert "Traceback" not in done.stderr
    assert [r for r in world.state()["requests"] if r["method"] != "GET"] == []  # nothing written
