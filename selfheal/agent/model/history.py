"""The repair attempts of one heal, and what moved between them, told compactly for a model.

An `Attempt` is a candidate's description, its unified diff against the base and what screening
(or the verdict) said: which target tests it fixed, which still fail, which passing tests it
broke. `History.render` shows the last few as transitions:

    attempt 2 → 3 (clamp: `<` -> `<=`): core.py:33 `<`→`<=` | fixed 1→2, still failing 1→0, broken 0→0

The line changes between two attempts are read from their diffs against the base, so an attempt
that moved back to the base shows as such, and one that changed nothing says so.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from selfheal.agent.repair.strategy import Screening

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
TOKEN = re.compile(r"\w+|\s+|[^\w\s]+")
MAX_SNIPPET = 60  # characters of code quoted per side of a change
MAX_CHANGES = 4  # changes listed per transition
MAX_NAMES = 3  # test names listed per "newly fixed" / "newly broken"


@dataclass(frozen=True)
class Attempt:
    description: str
    diff: str  # unified diff (git format) against the base
    fixed: tuple[str, ...] = ()  # target tests that pass with it
    still_failing: tuple[str, ...] = ()  # target tests that still fail
    broken: tuple[str, ...] = ()  # tests that passed at baseline and fail with it
    verdict: str | None = None  # "healed", "partial", "rejected: ..."; None: screened only
    error: str | None = None  # the candidate could not be screened (syntax error, crash)

    @classmethod
    def from_screening(cls, screening: Screening, diff: str, verdict: str | None = None) -> Attempt:
        return cls(
            description=screening.candidate.description,
            diff=diff,
            fixed=tuple(sorted(screening.fixed)),
            still_failing=tuple(sorted(screening.still_failing)),
            broken=tuple(sorted(screening.broken)),
            verdict=verdict,
            error=screening.error,
        )

    def counts(self) -> str:
        return f"fixed {len(self.fixed)}, still failing {len(self.still_failing)}, broken {len(self.broken)}"


class History:
    """The attempts so far, oldest first (the loop appends; the `diff_iterations` tool reads)."""

    def __init__(self, attempts: Iterable[Attempt] = ()) -> None:
        self.attempts: list[Attempt] = list(attempts)

    def add(self, attempt: Attempt) -> None:
        self.attempts.append(attempt)

    def __len__(self) -> int:
        return len(self.attempts)

    def render(self, last: int = 4) -> str:
        if not self.attempts:
            return "no repair attempts yet"
        first = max(0, len(self.attempts) - last)
        lines = []
        if first:
            lines.append(f"{len(self.attempts)} attempts; the first {first} not shown")
        for index in range(first, len(self.attempts)):
            lines.extend(self._render_one(index, index == first))
        return "\n".join(lines)

    def _render_one(self, index: int, opening: bool) -> list[str]:
        attempt = self.attempts[index]
        number = index + 1
        tail = []
        if attempt.verdict:
            tail.append(f"verdict: {attempt.verdict}")
        if attempt.error:
            tail.append(f"error: {_one_line(attempt.error, 100)}")
        if opening:
            changes = describe_changes({}, parse_changes(attempt.diff)) or "no change"
            head = f"attempt {number} ({_one_line(attempt.description, 80)}): {changes} | {attempt.counts()}"
            return [" | ".join([head, *tail])]
        before = self.attempts[index - 1]
        changes = describe_changes(parse_changes(before.diff), parse_changes(attempt.diff))
        moved = ", ".join(
            f"{label} {len(getattr(before, name))}→{len(getattr(attempt, name))}"
            for label, name in (("fixed", "fixed"), ("still failing", "still_failing"), ("broken", "broken"))
        )
        head = (
            f"attempt {number - 1} → {number} ({_one_line(attempt.description, 80)}): "
            f"{changes or 'same change as before'} | {moved}"
        )
        lines = [" | ".join([head, *tail])]
        flips = (
            ("newly fixed", [t for t in attempt.fixed if t not in before.fixed]),
            ("fixed before, failing again", [t for t in attempt.still_failing if t in before.fixed]),
            ("newly broken", [t for t in attempt.broken if t not in before.broken]),
        )
        for label, names in flips:
            if names:
                shown = ", ".join(_short(t) for t in names[:MAX_NAMES])
                more = f" (+{len(names) - MAX_NAMES})" if len(names) > MAX_NAMES else ""
                lines.append(f"    {label}: {shown}{more}")
        return lines


@dataclass(frozen=True)
class Change:
    """One run of removed and added lines of a diff, placed at its first base line."""

    file: str
    line: int
    removed: tuple[str, ...]
    added: tuple[str, ...]


def parse_changes(diff: str) -> dict[tuple[str, int], Change]:
    changes: dict[tuple[str, int], Change] = {}
    old_file = new_file = ""
    base_line = 0
    start: int | None = None
    removed: list[str] = []
    added: list[str] = []

    def flush() -> None:
        nonlocal start
        if start is not None and (removed or added):
            path = new_file if new_file and new_file != "/dev/null" else old_file
            changes[(path, start)] = Change(path, start, tuple(removed), tuple(added))
        start = None
        removed.clear()
        added.clear()

    old_left = new_left = 0  # lines of the current hunk still to come, per side
    for raw in diff.splitlines():
        in_hunk = old_left > 0 or new_left > 0
        if in_hunk and raw.startswith("-"):
            start = base_line if start is None else start
            removed.append(raw[1:])
            base_line += 1
            old_left -= 1
        elif in_hunk and raw.startswith("+"):
            start = base_line if start is None else start
            added.append(raw[1:])
            new_left -= 1
        elif in_hunk and not raw.startswith("\\"):  # context
            flush()
            base_line += 1
            old_left -= 1
            new_left -= 1
        elif match := HUNK.match(raw):
            flush()
            base_line = int(match.group(1))
            old_left = int(match.group(2) or 1)
            new_left = int(match.group(4) or 1)
            if old_left == 0:  # a pure insertion after line N
                base_line += 1
        elif raw.startswith("--- "):
            flush()
            old_file = _strip_prefix(raw[4:])
        elif raw.startswith("+++ "):
            new_file = _strip_prefix(raw[4:])
    flush()
    return changes


def describe_changes(before: dict[tuple[str, int], Change], after: dict[tuple[str, int], Change]) -> str:
    """What `after` does differently from `before` (both read against the same base)."""
    parts = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        if new is None:
            assert old is not None
            parts.append(f"{old.file}:{old.line} back to base")
            continue
        was = old.added if old is not None else new.removed
        parts.extend(_line_changes(new.file, new.line, was, new.added))
    if len(parts) > MAX_CHANGES:
        parts = [*parts[:MAX_CHANGES], f"and {len(parts) - MAX_CHANGES} more"]
    return "; ".join(parts)


def _line_changes(path: str, line: int, old: tuple[str, ...], new: tuple[str, ...]) -> list[str]:
    parts = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        where = f"{path}:{line + i1}"
        if op == "equal":
            continue
        if op == "replace" and i2 - i1 == j2 - j1:
            parts.extend(
                f"{path}:{line + i1 + k} {_token_change(old[i1 + k], new[j1 + k])}" for k in range(i2 - i1)
            )
        elif op == "replace":
            parts.append(f"{where} {_lines(i2 - i1)} → {_lines(j2 - j1)}: `{_snippet(new[j1].strip())}`…")
        elif op == "delete":
            parts.append(f"{where} removed {_quote(old[i1:i2])}")
        else:  # insert
            parts.append(f"{where} added {_quote(new[j1:j2])}")
    return parts


def _token_change(old: str, new: str) -> str:
    """`if a < b:` -> `if a <= b:` as "`<`→`<=`": the differing tokens, never an empty side."""
    a, b = TOKEN.findall(old.strip()), TOKEN.findall(new.strip())
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    left, right = a[head : len(a) - tail], b[head : len(b) - tail]
    # widen to a neighbouring non-blank token while one side is empty or blank
    while not ("".join(left).strip() and "".join(right).strip()) and (head or tail):
        if head:
            head -= 1
        else:
            tail -= 1
        left, right = a[head : len(a) - tail], b[head : len(b) - tail]
    return f"`{_snippet(''.join(left).strip())}`→`{_snippet(''.join(right).strip())}`"


def _lines(count: int) -> str:
    return "1 line" if count == 1 else f"{count} lines"


def _quote(lines: tuple[str, ...]) -> str:
    first = f"`{_snippet(lines[0].strip())}`"
    return first if len(lines) == 1 else f"{len(lines)} lines: {first}…"


def _strip_prefix(name: str) -> str:
    name = name.strip().split("\t", 1)[0]
    return name[2:] if name.startswith(("a/", "b/")) else name


def _snippet(text: str) -> str:
    return text if len(text) <= MAX_SNIPPET else text[: MAX_SNIPPET - 1] + "…"


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _short(nodeid: str) -> str:
    return nodeid.rsplit("::", 1)[-1] if "::" in nodeid else nodeid
