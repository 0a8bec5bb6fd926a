"""Aggregates over parsed entries."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from accesslog.parse import LogEntry


def is_server_error(status: int) -> bool:
    """5xx responses: the server failed to answer a valid request."""
    return 500 < status < 600


def status_counts(entries: Sequence[LogEntry]) -> dict[int, int]:
    return dict(sorted(Counter(entry.status for entry in entries).items()))


def error_rate(entries: Sequence[LogEntry]) -> float:
    """Share of requests answered with a server error; 0.0 for no requests."""
    if not entries:
        return 0.0
    return sum(is_server_error(entry.status) for entry in entries) / len(entries)


def top_paths(entries: Sequence[LogEntry], n: int = 3) -> list[tuple[str, int]]:
    """The n most requested paths with their counts; ties in first-seen order."""
    return Counter(entry.path for entry in entries).most_common(n)


def bytes_served(entries: Sequence[LogEntry]) -> int:
    return sum(entry.size for entry in entries)
