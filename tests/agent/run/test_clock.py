"""The heal's deadline says its budget as the user gave it, in words that agree with the number."""

from __future__ import annotations

import pytest

from selfheal.agent.exceptions import HealStopped
from selfheal.agent.run.clock import HealClock, minutes


def test_a_budget_is_said_in_minutes_singular_or_plural() -> None:
    assert [minutes(s) for s in (60, 30, 600, 90, 0)] == [
        "1 minute",
        "0.5 minutes",
        "10 minutes",
        "1.5 minutes",
        "0 minutes",
    ]


def test_a_budget_that_ran_out_says_so_once_with_its_minutes() -> None:
    clock = HealClock(3.0)  # less than the margin kept for the outputs: spent from the start
    with pytest.raises(HealStopped) as stopped:
        clock.check("screening")
    assert str(stopped.value) == "the heal's budget of 0.05 minutes ran out during screening"
