"""The memory of a repository's heals: one record per heal, kept as JSON Lines.

    record = record_of(result)                 # after a heal: what failed, where, what fixed it
    store = LocalMemory(repo / ".selfheal" / "memory.jsonl")
    store.append(record)                       # capped; scrubbed; safe against a concurrent append
    store.records(); store.forget(id); store.export()

A record holds no source beyond names (functions, paths, test ids) and the patch's changed lines,
each shortened: the store is pushed to the repository's `selfheal-memory` branch by the Action and
the bot, where anyone who can read the repository reads it. It is scrubbed like every output.

The store is capped in records and bytes; over the cap the least recalled go first, the oldest
of them first. A record is recalled when a later heal's record lists it in `recalled`, so the
store stays append-only (a branch of JSONL commits merges by appending).

A store is data others can write (anyone who may push to the memory branch, a hand edit): a read
takes at most MAX_READ_BYTES from its end (the newest records), never follows a symbolic link,
and with a key (the operator's) keeps only the records that key signed. A record names the branch
and the run that wrote it. Whatever a record says reaches a prompt only through the sanitiser of
text from outside (agent/model/untrusted.py).
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import secrets
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from selfheal.agent.config import HealConfig
from selfheal.agent.exceptions import HealError
from selfheal.agent.report.result import HealResult
from selfheal.agent.run.junit import error_type
from selfheal.sandbox.secrets import Scrubber, process_scrubber

RECORD_VERSION = 1
MAX_RECORDS = 200
MAX_BYTES = 512 * 1024
MAX_TEXT = 200  # characters of one message, root cause or lesson
MAX_CHANGED_LINES = 12
MAX_LINE = 160
MEMORY_FILE = "memory.jsonl"
MAX_READ_BYTES = 2 * MAX_BYTES  # what one read takes from a store's end, however large it grew


@dataclass(frozen=True)
class MemoryRecord:
    id: str
    created: str  # UTC, ISO 8601
    signature: str  # the failing test ids and their error types, hashed
    status: str
    provider: str
    tests: tuple[str, ...]  # failing at baseline
    error_types: tuple[str, ...]
    messages: tuple[str, ...]  # the first line of each failure message, shortened
    functions: tuple[str, ...]  # the suspects, most suspicious first
    paths: tuple[str, ...]
    root_cause: str
    families: tuple[str, ...]  # of the shipped fix, in the order its edits were found
    fix_sites: tuple[tuple[str, str], ...]  # (file, function) of each edit
    changed_lines: tuple[str, ...]  # the patch's -/+ lines, shortened
    ruled_out: tuple[str, ...]  # families screened without a plausible candidate
    lessons: tuple[str, ...]
    recalled: tuple[str, ...] = ()  # ids of the earlier records this heal recalled
    version: int = RECORD_VERSION
    branch: str = ""  # the branch whose heal wrote it
    run: str = ""  # the run that wrote it (a workflow run's address, a job)
    sig: str = ""  # HMAC-SHA256 of the rest under the operator's key; "" when none was given

    def sign(self, key: bytes) -> MemoryRecord:
        return replace(self, sig=self._mac(key))

    def signed_by(self, key: bytes) -> bool:
        return bool(self.sig) and hmac.compare_digest(self.sig, self._mac(key))

    def _mac(self, key: bytes) -> str:
        body = json.dumps({k: v for k, v in self.as_dict().items() if k != "sig"}, sort_keys=True)
        return hmac.new(key, body.encode("utf-8"), hashlib.sha256).hexdigest()

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MemoryRecord:
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        scalars = {
            "id",
            "created",
            "signature",
            "status",
            "provider",
            "root_cause",
            "version",
            "branch",
            "run",
            "sig",
        }
        for name in known - scalars:
            value = values.get(name, ())
            values[name] = tuple(tuple(v) if isinstance(v, list) else v for v in value)
        missing = {"id", "created", "signature", "status", "provider", "root_cause"} - values.keys()
        if missing:
            raise ValueError(f"a memory record lacks {', '.join(sorted(missing))}")
        return cls(**values)

    def text(self) -> str:
        """What recall matches a failure against: error types, messages, names and paths."""
        return " ".join([*self.error_types, *self.messages, *self.tests, *self.functions, *self.paths])


def _short(text: str, limit: int = MAX_TEXT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def failure_signature(tests: Iterable[tuple[str, str]]) -> str:
    """(test id, error type) pairs -> a short stable hash."""
    lines = sorted(f"{nodeid}|{kind}" for nodeid, kind in tests)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:12]


def changed_lines(patch: str) -> tuple[str, ...]:
    """The patch's removed and added lines (no context, no headers), shortened and capped."""
    kept = [
        _short(line, MAX_LINE)
        for line in patch.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---")) and line[1:].strip()
    ]
    return tuple(kept[:MAX_CHANGED_LINES])


def failure_facts(result: HealResult) -> tuple[list[str], list[str], list[str]]:
    """(failing test ids, their error types, the first line of their messages) at baseline."""
    baseline = result.baseline
    if baseline is None:
        return [], [], []
    tests, kinds, messages = [], [], []
    for nodeid, outcome in baseline.outcomes.items():
        if not outcome.failing or nodeid in result.flaky:
            continue
        tests.append(nodeid)
        kinds.append(error_type(outcome.message, outcome.outcome))
        first = (outcome.message or "").strip().splitlines()
        messages.append(_short(first[0]) if first else "")
    return tests, kinds, messages


def record_of(result: HealResult, report: dict[str, Any], recalled: Sequence[str] = ()) -> MemoryRecord:
    """The memory of one heal, from its result and the report written for it."""
    tests, kinds, messages = failure_facts(result)
    targets = result.targets
    fixed_families = {f.family for f in result.fixes}
    ruled_out = sorted(family for family in result.families_tried if family not in fixed_families)
    diagnosis = report.get("diagnosis") or {}
    return MemoryRecord(
        id=secrets.token_hex(6),
        created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        signature=failure_signature(zip(tests, kinds, strict=True)),
        status=result.status,
        provider=result.provider,
        tests=tuple(_short(t, MAX_LINE) for t in tests[:20]),  # a test id is the repository's text
        error_types=tuple(dict.fromkeys(kinds)),
        messages=tuple(dict.fromkeys(m for m in messages if m))[:10],
        functions=tuple(dict.fromkeys(_short(t.function, MAX_LINE) for t in targets))[:10],
        paths=tuple(dict.fromkeys(_short(t.file, MAX_LINE) for t in targets))[:10],
        root_cause=_short(str(diagnosis.get("root_cause", "")), 400),
        families=tuple(f.family for f in result.fixes),
        fix_sites=tuple((f.file, f.function) for f in result.fixes),
        changed_lines=changed_lines(result.patch),
        ruled_out=tuple(ruled_out[:20]),
        lessons=tuple(_short(lesson) for lesson in report.get("lessons", ())[:5]),
        recalled=tuple(recalled),
    )


def recall_counts(records: Iterable[MemoryRecord]) -> Counter[str]:
    return Counter(rid for record in records for rid in record.recalled)


def capped(
    records: list[MemoryRecord], max_records: int = MAX_RECORDS, max_bytes: int = MAX_BYTES
) -> list[MemoryRecord]:
    """`records` within the caps, in their order; the least recalled, then the oldest, dropped first."""
    counts = recall_counts(records)
    sizes = {r.id: len(json.dumps(r.as_dict())) + 1 for r in records}
    total = sum(sizes.values())
    drop: set[str] = set()
    # the newest record is the one being added: never its own victim
    candidates = sorted(records[:-1], key=lambda r: (counts[r.id], r.created))
    for record in candidates:
        if len(records) - len(drop) <= max_records and total <= max_bytes:
            break
        drop.add(record.id)
        total -= sizes[record.id]
    return [r for r in records if r.id not in drop]


def scrubbed_record(record: MemoryRecord, scrub: Scrubber | None, key: bytes | None) -> MemoryRecord:
    """`record` as it will be stored: scrubbed, then signed with `key` (signed last, so that what is
    read back is what was signed)."""
    clean = MemoryRecord.from_dict((scrub or process_scrubber()).scrub_data(record.as_dict()))
    return clean.sign(key) if key else clean


def memory_key(secret: bytes) -> bytes:
    """The key records are signed with, derived from a secret the operator holds."""
    return hmac.new(secret, b"selfheal memory records", hashlib.sha256).digest()


def parse_lines(text: str, key: bytes | None = None) -> list[MemoryRecord]:
    """The records of a JSONL text; a line that is no record (a bad merge, a hand edit) is skipped,
    and so is, with `key`, a record that key did not sign. Only the text's last MAX_READ_BYTES are
    read (the newest records), and of them the last MAX_RECORDS."""
    if len(text) > MAX_READ_BYTES:
        text = text[-MAX_READ_BYTES:].split("\n", 1)[-1]  # from the first whole line
    records = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            record = MemoryRecord.from_dict(json.loads(line))
        except (ValueError, TypeError, AttributeError):
            continue
        if key is None or record.signed_by(key):
            records.append(record)
    return records[-MAX_RECORDS:]


def render_lines(records: Iterable[MemoryRecord], scrub: Scrubber | None = None) -> str:
    scrub = scrub or process_scrubber()
    return "".join(json.dumps(scrub.scrub_data(r.as_dict()), sort_keys=True) + "\n" for r in records)


class LocalMemory:
    """The store in a file: `.selfheal/memory.jsonl` of the repository by default."""

    def __init__(
        self, path: Path, max_records: int = MAX_RECORDS, max_bytes: int = MAX_BYTES, key: bytes | None = None
    ) -> None:
        self.path = path
        self.max_records, self.max_bytes = max_records, max_bytes
        self.key = key

    @classmethod
    def of_repo(cls, repo: Path) -> LocalMemory:
        return cls(repo / ".selfheal" / MEMORY_FILE)

    def records(self) -> list[MemoryRecord]:
        self._refuse_links()
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise HealError(f"could not read the memory {self.path}: {exc.strerror or exc}") from exc
        with os.fdopen(fd, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            handle.seek(max(0, size - MAX_READ_BYTES))
            data = handle.read(MAX_READ_BYTES)
        text = data.decode("utf-8", "replace")
        if size > MAX_READ_BYTES:
            text = text.split("\n", 1)[-1]
        return parse_lines(text, self.key)

    def _refuse_links(self) -> None:
        """A store reached through a symbolic link (a committed `.selfheal -> /somewhere`) is
        neither read nor written: it could point out of the repository."""
        for path in (self.path.parent, self.path):
            if path.is_symlink():
                raise HealError(f"the memory {self.path}: {path} is a symbolic link; not followed")

    def append(self, record: MemoryRecord, scrub: Scrubber | None = None) -> list[MemoryRecord]:
        """Add `record` (capped, scrubbed); the records kept. Concurrent appends both land."""
        record = scrubbed_record(record, scrub, self.key)
        return self._rewrite(
            lambda records: capped([*records, record], self.max_records, self.max_bytes), scrub
        )

    def forget(self, record_id: str) -> bool:
        """Drop the record `record_id` (or the one it is a unique prefix of); whether one was."""
        found: list[bool] = []

        def without(records: list[MemoryRecord]) -> list[MemoryRecord]:
            chosen = find(records, record_id)
            found.append(chosen is not None)
            return [r for r in records if chosen is None or r.id != chosen.id]

        self._rewrite(without)
        return found[0]

    def export(self) -> str:
        return render_lines(self.records())

    def _rewrite(self, change, scrub: Scrubber | None = None) -> list[MemoryRecord]:
        self._refuse_links()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.path.parent / ".gitignore"
            if self.path.parent.name == ".selfheal" and not ignore.exists():
                ignore.write_text("# selfheal run outputs\n*\n", encoding="utf-8")  # as the runs' folder
            folder = os.open(self.path.parent, os.O_RDONLY | os.O_DIRECTORY)
            try:
                # the folder is the lock (no lock file left behind): two heals of one checkout
                # rewrite the store one after the other, so both records land
                fcntl.flock(folder, fcntl.LOCK_EX)
                kept = change(self.records())
                partial = self.path.with_name(f".{self.path.name}.{secrets.token_hex(4)}.tmp")
                partial.write_text(render_lines(kept, scrub), encoding="utf-8")
                os.replace(partial, self.path)
            finally:
                os.close(folder)  # and with it the lock
        except OSError as exc:
            raise HealError(f"could not write the memory {self.path}: {exc.strerror or exc}") from exc
        return kept


def memory_store(config: HealConfig) -> LocalMemory:
    """The store a heal of `config` recalls from and adds to."""
    return LocalMemory(config.memory_path) if config.memory_path else LocalMemory.of_repo(config.repo)


def find(records: Iterable[MemoryRecord], record_id: str) -> MemoryRecord | None:
    """The record whose id is `record_id` or starts with it (when only one does)."""
    matches = [r for r in records if r.id == record_id]
    if not matches and record_id:
        matches = [r for r in records if r.id.startswith(record_id)]
    return matches[0] if len(matches) == 1 else None


REMEMBERED = ("healed", "partial", "not_healed")  # a heal with no failure, or none run, teaches nothing


def worth_keeping(result: HealResult, report: dict[str, Any]) -> MemoryRecord | None:
    """This heal's record, or None when there is nothing to keep (no failure, or none ran)."""
    if result.status not in REMEMBERED:
        return None
    recalled = [item["id"] for item in report.get("memory", {}).get("recalled", [])]
    return record_of(result, report, recalled=recalled)


def remember(store: LocalMemory, result: HealResult, report: dict[str, Any]) -> MemoryRecord | None:
    """Append this heal's record to `store`; the record, or None when there is nothing to keep."""
    record = worth_keeping(result, report)
    if record is not None:
        store.append(record)
    return record
