"""Selecting messages."""

from __future__ import annotations

from typing import Iterable

from syslogparse.message import SEVERITIES, Message


def at_least(messages: Iterable[Message], severity: str) -> list[Message]:
    """Messages at `severity` or more severe (a smaller number)."""
    threshold = SEVERITIES.index(severity)
    return [message for message in messages if message.level <= threshold]


def by_facility(messages: Iterable[Message], *facilities: str) -> list[Message]:
    wanted = set(facilities)
    return [message for message in messages if message.facility in wanted]
