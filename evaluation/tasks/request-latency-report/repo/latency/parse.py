"""Request log lines: "2024-05-01T12:00:00Z GET /api/users 200 duration=12.5ms"."""

from __future__ import annotations

import re
from dataclasses import dataclass

UNIT_TO_MS = {"s": 1000.0, "ms": 1.0, "us": 1000.0}
DURATION = re.compile(r"^(\d+(?:\.\d+)?)(s|ms|us)$")


@dataclass(frozen=True)
class Request:
    time: str
    method: str
    path: str
    status: int
    duration_ms: float

    @property
    def endpoint(self) -> str:
        return f"{self.method} {self.path}"


def parse_duration(text: str) -> float:
    """Milliseconds in "1.5s", "250ms" or "800us"."""
    match = DURATION.match(text.strip())
    if not match:
        raise ValueError(f"not a duration: {text!r}")
    value, unit = match.groups()
    return float(value) * UNIT_TO_MS[unit]


def parse_request(line: str) -> Request:
    fields = line.split()
    if len(fields) != 5 or not fields[4].startswith("duration="):
        raise ValueError(f"not a request line: {line!r}")
    time, method, path, status, duration = fields
    return Request(time, method, path.split("?", 1)[0], int(status), parse_duration(duration[len("duration="):]))
