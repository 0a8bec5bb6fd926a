"""Events of a heal: the trace (`trace.jsonl`) and the live progress display read the same stream."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from selfheal.sandbox.addresses import without_addresses


@dataclass(frozen=True)
class Event:
    node: str  # baseline | flake_check | localize | screen | validate | ...
    start: float
    end: float | None  # None: the step has just started
    data: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        record = {"node": self.node, "start": round(self.start, 4)}
        if self.end is not None:
            record["end"] = round(self.end, 4)
            record["duration_s"] = round(self.end - self.start, 4)
        record.update(self.data)
        return record


class EventSink(Protocol):
    def emit(self, event: Event) -> None: ...


class Trace:
    """Every finished step, in order."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        if event.end is not None:
            self.events.append(event)

    def write(self, path: Path) -> None:
        with path.open("w", encoding="utf-8") as handle:
            for event in self.events:
                handle.write(json.dumps(event.as_dict(), default=str) + "\n")


class Fanout:
    def __init__(self, *sinks: EventSink) -> None:
        self.sinks = [s for s in sinks if s is not None]

    def emit(self, event: Event) -> None:
        for sink in self.sinks:
            sink.emit(event)


@contextmanager
def stage(sink: EventSink, node: str, **data: Any) -> Iterator[dict[str, Any]]:
    """Emit a start event, let the body fill in details, emit the finished step."""
    started = time.time()
    sink.emit(Event(node, started, None, dict(data)))
    details: dict[str, Any] = dict(data)
    try:
        yield details
    finally:
        sink.emit(Event(node, started, time.time(), details))


def count(n: int, noun: str, plural: str = "") -> str:
    """`n` and its noun, singular or plural as `n` asks: "1 test", "2 tests", "0 guards"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def shown_names(names: list[str], limit: int = 3) -> str:
    """The first `limit` names, and how many more there are."""
    more = len(names) - limit
    return ", ".join(names[:limit]) + (f" and {more} more" if more > 0 else "")


def describe_finished(event: Event) -> str | None:
    """One line for a finished step, as the CLI prints it and the progress comment shows it."""
    data, node = event.data, event.node
    took = f" ({event.end - event.start:.1f}s)" if event.end is not None else ""
    if node == "sandbox":
        if data.get("error"):
            return f"sandbox: could not be prepared: {without_addresses(str(data['error']).splitlines()[0])}"
        # a trace from before the plain words: the first part of the isolation statement
        plain = data.get("plain") or str(data.get("isolation", "")).split(";")[0]
        return f"sandbox: {plain}{took}"
    if node == "baseline":
        if data.get("status") != "ok":
            return f"baseline: the tests did not run{took}"  # the heal's error then says why, once
        line = f"baseline: {data.get('failed', 0)} failing, {data.get('passed', 0)} passing{took}"
        hung = list(data.get("hung") or [])
        if hung:
            limit = f" after {data['test_limit_s']:g}s" if data.get("test_limit_s") else ""
            were = "was" if len(hung) == 1 else "were"
            line += f"; {count(len(hung), 'test')} hung and {were} stopped{limit}: {shown_names(hung)}"
        return line
    if node == "flake_check":
        flaky = data.get("flaky") or []
        return f"flake check: {len(flaky)} flaky{': ' + ', '.join(flaky[:3]) if flaky else ''}{took}"
    if node == "localize":
        top = (data.get("top") or ["nothing"])[0]
        return f"localized: {count(data.get('lines', 0), 'suspicious line')}, most suspicious {top}{took}"
    if node == "screening_worker":
        if str(data.get("screener", "")).startswith("fork-worker"):
            ordered = f"; {data.get('note')}" if data.get("ordered") else ""
            return (
                f"screening worker ready: {count(data.get('tests', 0), 'test')} collected once{ordered}{took}"
            )
        return f"screening worker unavailable ({data.get('note')}); using one pytest run per candidate"
    if node == "repair":
        # `in_all`: the screenings of earlier rounds too, the number a heal that stops reports
        tried, in_all = data.get("screened", data.get("tried", 0)), data.get("in_all")
        total = f" ({in_all} in all)" if in_all is not None and in_all != tried else ""
        return (
            f"round {data.get('round')}: {count(tried, 'candidate')} screened{total}, "
            f"{data.get('plausible', 0)} plausible{took}"
        )
    if node == "debugger":
        state = "degraded: " + str(data.get("stopped_because")) if data.get("degraded") else "concluded"
        return (
            f"debugger: {count(data.get('steps', 0), 'step')}, "
            f"{count(data.get('tool_calls', 0), 'tool call')}, {state} "
            f"({data.get('tokens_in', 0)}+{data.get('tokens_out', 0)} tokens)"
        )
    if node == "generator":
        return (
            f"generator: {count(data.get('answers', 0), 'answer')}, "
            f"{data.get('not_applied', 0)} did not apply, "
            f"{data.get('screened', 0)} screened "
            f"({data.get('tokens_in', 0)}+{data.get('tokens_out', 0)} tokens)"
        )
    if node in ("spec_tests", "qa_adversarial", "edge_cases"):
        what = {"spec_tests": "spec tests", "qa_adversarial": "adversarial tests", "edge_cases": "edge cases"}
        where = f" for {data['function']}" if data.get("function") else ""
        return f"{what[node]}{where}: {len(data.get('cases') or [])} written{took}"
    if node == "new_tests":
        held = (
            f" ({data['contested']} held back: the fixes disagree on them)" if data.get("contested") else ""
        )
        return (
            f"new tests: {data.get('fail_to_pass', 0)} fail→pass, {count(data.get('guard', 0), 'guard')}, "
            f"{data.get('discarded', 0)} discarded{held}{took}"
        )
    if node == "compare_plausible":
        plausible = data.get("plausible", 0)
        if plausible < 2:
            return f"compared fixes: the only plausible patch found{took}"
        if not data.get("measured"):
            return f"compared fixes: {plausible} plausible patches, not callable on generated inputs{took}"
        if data.get("open"):
            return (
                f"compared fixes: {plausible} plausible patches behave {data.get('standing')} different ways "
                f"on {count(data.get('probes', 0), 'input')}: the tests allow more than one fix{took}"
            )
        inputs = count(data.get("probes", 0), "input")
        return f"compared fixes: {plausible} plausible patches agree on {inputs}{took}"
    if node == "overfit_review":
        kinds = ", ".join(str(k).replace("_", " ") for k in data.get("kinds") or [])
        return f"overfit review: {count(data.get('risks', 0), 'risk')}{': ' + kinds if kinds else ''}"
    if node == "critic":
        return f"critic: {data.get('decision')}" + (f" — {data['reason']}" if data.get("reason") else "")
    if node == "choose":
        return f"chose {data.get('winner')} ({data.get('strategy')}) of {len(data.get('competitors') or [])}"
    if node == "validate":
        return f"verdict for {data.get('candidate', '?')}: {data.get('status')}{took}"
    return None
