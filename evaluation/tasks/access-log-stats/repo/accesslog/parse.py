"""Parsing common log format lines.

    127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Iterator

LINE = re.compile(
    r'^(?P<host>\S+) \S+ (?P<user>\S+) \[(?P<time>[^\]]+)\] '
    r'"(?P<method>[A-Z]+) (?P<path>\S+) [^"]*" (?P<status>\d{3}) (?P<size>\d+|-)\s*$'
)
TIME_FORMAT = "%d/%b/%Y:%H:%M:%S %z"


@dataclass(frozen=True)
class LogEntry:
    host: str
    user: str | None
    time: datetime
    method: str
    path: str
    status: int
    size: int


def parse_line(line: str) -> LogEntry:
    match = LINE.match(line)
    if not match:
        raise ValueError(f"not a common log format line: {line!r}")
    user = match["user"]
    return LogEntry(
        host=match["host"],
        user=None if user == "-" else user,
        time=datetime.strptime(match["time"], TIME_FORMAT),
        method=match["method"],
        path=match["path"].split("?", 1)[0],
        status=int(match["status"]),
        size=0 if match["size"] == "-" else int(match["size"]),
    )


def parse_log(lines: Iterable[str]) -> Iterator[LogEntry]:
    """Parse every non-blank line."""
    for line in lines:
        if line.strip():
            yield parse_line(line)
