"""The run's signed account of itself (selfheal_pytest_plugin's records), read and checked.

The plugin reads a one-time key when pytest imports it, before any conftest or test module (so
before the code under test runs), and chains every record to the one before with an HMAC under
that key. Here each line is checked against the chain: a record the tests forged, changed, dropped
or reordered breaks it, and a run that stopped before pytest's end (an exit at import, os._exit,
a KeyboardInterrupt) has no `finished` record.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass, field

ORDER = {"passed": 0, "skipped": 1, "failed": 2}


@dataclass(frozen=True)
class RunRecords:
    """What the records say: per test its coarse outcome (passed | skipped | failed), the exit
    status pytest meant to return, and the test machinery rebound during the run."""

    outcomes: dict[str, str] = field(default_factory=dict)
    finished: bool = False
    exitstatus: int | None = None
    rebound: tuple[str, ...] = ()
    broken: str = ""  # why the chain does not hold ("" when it does)

    @property
    def complete(self) -> bool:
        return self.finished and not self.broken


def new_key() -> bytes:
    return secrets.token_bytes(32)


def read_records(raw: bytes | None, key: bytes) -> RunRecords:
    if raw is None:
        return RunRecords(broken="no records: the file the plugin writes is missing or not a regular file")
    mac = b""
    outcomes: dict[str, str] = {}
    for number, line in enumerate(raw.decode("utf-8", "replace").splitlines(), 1):
        try:
            entry = json.loads(line)
            body, given = entry["record"], bytes.fromhex(entry["mac"])
            record = json.loads(body)
        except (ValueError, KeyError, TypeError):
            return RunRecords(outcomes, broken=f"record {number} is not one the plugin wrote")
        mac = hmac.new(key, mac + body.encode(), hashlib.sha256).digest()
        if not hmac.compare_digest(mac, given):
            return RunRecords(outcomes, broken=f"record {number} was forged, changed or moved")
        if record.get("kind") == "finished":
            return RunRecords(
                outcomes,
                finished=True,
                exitstatus=int(record.get("exitstatus", -1)),
                rebound=tuple(record.get("rebound", ())),
                broken="records follow the end of the run" if number != len(raw.splitlines()) else "",
            )
        if record.get("kind") == "test":
            coarse = _coarse(record)
            nodeid = str(record.get("nodeid", ""))
            if ORDER[coarse] > ORDER.get(outcomes.get(nodeid, "passed"), 0) or nodeid not in outcomes:
                outcomes[nodeid] = coarse
    return RunRecords(outcomes)


def _coarse(record: dict) -> str:
    outcome = record.get("outcome")
    return outcome if outcome in ("failed", "skipped") else "passed"
