"""Records written by logging with the format "%(asctime)s %(levelname)s %(name)s %(message)s".

A record starts with a header line; the lines that follow up to the next header (a traceback,
a multi-line message) belong to it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Iterable, Iterator

HEADER = re.compile(
    r"^(?P<time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) "
    r"(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) (?P<logger>\S+) (?P<message>.*)$"
)
TIME_FORMAT = "%Y-%m-%d %H:%M:%S,%f"


@dataclass
class Record:
    time: datetime
    level: str
    logger: str
    message: str
    extra: list[str] = field(default_factory=list)

    @property
    def has_traceback(self) -> bool:
        return bool(self.extra) and self.extra[0].startswith("Traceback")

    @property
    def exception(self) -> str | None:
        """The last line of the traceback, e.g. "ValueError: bad input"."""
        return self.extra[-1] if self.has_traceback else None


def parse_header(line: str) -> Record | None:
    match = HEADER.match(line)
    if not match:
        return None
    return Record(
        time=datetime.strptime(match["time"], TIME_FORMAT),
        level=match["level"],
        logger=match["logger"],
        message=match["message"],
    )


def records(lines: Iterable[str]) -> Iterator[Record]:
    """The records in `lines`; lines before the first header are ignored."""
    current: Record | None = None
    for raw in lines:
        line = raw.rstrip("\n")
        header = parse_header(line)
        if header is not None:
            if current is not None:
                yield current
            current = header
        elif current is not None and line.strip():
            current.extra.append(line)


def counts_by_level(lines: Iterable[str]) -> dict[str, int]:
    return dict(Counter(record.level for record in records(lines)))


def errors(lines: Iterable[str]) -> list[Record]:
    """ERROR and CRITICAL records, in order."""
    return [record for record in records(lines) if record.level in ("ERROR", "CRITICAL")]
