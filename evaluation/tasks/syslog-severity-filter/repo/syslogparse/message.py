"""RFC 3164 messages: "<PRI>Mmm dd hh:mm:ss host tag[pid]: text".

PRI is facility * 8 + severity; severity 0 (emerg) is the most severe, 7 (debug) the least.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SEVERITIES = ["emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"]
FACILITIES = [
    "kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news",
    "uucp", "cron", "authpriv", "ftp", "ntp", "audit", "alert", "clock",
    "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7",
]
LINE = re.compile(
    r"^<(?P<pri>\d{1,3})>(?P<stamp>[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d) (?P<host>\S+) "
    r"(?P<tag>[^:\[\s]+)(?:\[(?P<pid>\d+)\])?: ?(?P<text>.*)$"
)


@dataclass(frozen=True)
class Message:
    facility: str
    severity: str
    stamp: str
    host: str
    tag: str
    pid: int | None
    text: str

    @property
    def level(self) -> int:
        return SEVERITIES.index(self.severity)


def decode_priority(pri: int) -> tuple[str, str]:
    """(facility, severity) names for a PRI value."""
    if not 0 <= pri <= 191:
        raise ValueError(f"PRI out of range: {pri}")
    severity = pri // 8
    facility = pri % 8
    return FACILITIES[facility], SEVERITIES[severity]


def parse_line(line: str) -> Message:
    match = LINE.match(line.rstrip("\n"))
    if not match:
        raise ValueError(f"not a syslog line: {line!r}")
    facility, severity = decode_priority(int(match["pri"]))
    return Message(
        facility=facility,
        severity=severity,
        stamp=match["stamp"],
        host=match["host"],
        tag=match["tag"],
        pid=int(match["pid"]) if match["pid"] else None,
        text=match["text"],
    )
