"""Live progress on stderr: a spinner and a candidate counter on a terminal, plain lines elsewhere."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from rich.console import Console, Group
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

from selfheal.agent.events import Event, count, describe_finished

RUNNING = {
    "sandbox": "starting the sandbox (and installing dependencies, if any)",
    "baseline": "running the test suite (baseline, with per-test coverage)",
    "flake_check": "re-running the failing tests (flake check)",
    "localize": "localizing the fault",
    "screening_worker": "starting the screening worker",
    "repair": "searching for a repair",
    "validate": "verifying a candidate with the full test suite",
}


class ProgressDisplay:
    """An EventSink that shows the heal as it happens."""

    def __init__(self, stream: TextIO | None = None, *, live: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.console = Console(file=self.stream, highlight=False, soft_wrap=True)
        self._current: str | None = None
        self._screened = 0  # this round's
        self._in_all = 0  # since the heal began, as a heal that stops reports it
        self._plausible = 0
        self._round_started = 0.0
        self._live: Live | None = None

    def __enter__(self) -> ProgressDisplay:
        if self.live:
            self._live = Live(self._render(), console=self.console, refresh_per_second=10, transient=True)
            self._live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._live is not None:
            self._live.__exit__(*exc)
            self._live = None

    def emit(self, event: Event) -> None:
        if event.node == "screen":
            self._screened += 1
            self._in_all = int(event.data.get("n", self._in_all + 1))
            self._plausible += bool(event.data.get("plausible"))
            self._refresh()
            return
        if event.end is None:
            self._current = RUNNING.get(event.node, event.node)
            if event.node == "repair":
                self._screened = self._plausible = 0
                self._round_started = time.monotonic()
            self._refresh()
            return
        line = describe_finished(event)
        self._current = None
        if line:
            self._print(line)
        self._refresh()

    def _print(self, line: str) -> None:
        if self.live:
            self.console.print(Text("✓ ", style="green") + Text(line))
        else:
            self.stream.write(f"[selfheal] {line}\n")
            self.stream.flush()

    def _render(self) -> Group:
        parts: list[Any] = []
        if self._current:
            parts.append(Spinner("dots", text=Text(self._current)))
        if self._current and self._current == RUNNING["repair"]:
            elapsed = max(time.monotonic() - self._round_started, 1e-6)
            in_all = f" ({self._in_all} in all)" if self._in_all != self._screened else ""
            parts.append(
                Text(
                    f"   {count(self._screened, 'candidate')} screened{in_all} · {self._plausible} plausible"
                    f" · {self._screened / elapsed:.1f}/s",
                    style="dim",
                )
            )
        return Group(*parts)

    def _refresh(self) -> None:
        if self._live is not None:
            self._live.update(self._render())
