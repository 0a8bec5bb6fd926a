"""Screening: a fast, approximate look at how a candidate changes a handful of tests.

Two screeners behind one small protocol:

- `ForkScreener` talks to the persistent worker inside the sandbox (pytest started and the tests
  collected once; one fork per candidate). Tens of candidates per second.
- `SubprocessScreener` writes the patched files and runs one plain pytest process per candidate.
  The fallback when the worker cannot start, and the yardstick the benchmark compares against.

Screening only filters. A candidate that screens well is still judged by the verdict, on a clean
run of the repo's full test command.

Once the baseline has run, both screeners time each test by its own baseline duration
(run/timelimits.py): the `timeout` and `test_timeout` a caller passes are used only before that.
No screening outlives the heal's deadline.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Protocol

from selfheal.agent.run.testrun import RUNS_DIR, RUNTIME_DIR, TestRunner
from selfheal.agent.run.timelimits import load_factor
from selfheal.sandbox import Channel, Session
from selfheal.sandbox.exceptions import WorkspaceTrap

PASSING = "passed"
FORK_MARGIN_S = 2.0  # a worker's fork and patching of one candidate, on an idle machine


@dataclass(frozen=True)
class ScreenResult:
    outcomes: dict[str, str] = field(default_factory=dict)
    messages: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    duration_s: float = 0.0

    def passed(self, nodeid: str) -> bool:
        return self.outcomes.get(nodeid) == PASSING

    def failed(self, nodeid: str) -> bool:
        return self.outcomes.get(nodeid) not in (None, PASSING, "missing", "skipped")


class Screener(Protocol):
    """`unchanged`: failing tests and the message each fails with before any change. When all of
    them run first and still fail with exactly those messages, a screener may leave the tests
    after them unrun (absent from the outcomes): the candidate did not touch the failure."""

    name: str

    def screen(
        self,
        changes: dict[str, str],
        tests: list[str],
        timeout: float,
        test_timeout: float | None = None,
        unchanged: dict[str, str] | None = None,
    ) -> ScreenResult: ...

    def close(self) -> None: ...


class ForkScreener:
    name = "fork-worker"

    def __init__(
        self, channel: Channel, base_texts: dict[str, str], collected: list[str], runner: TestRunner
    ) -> None:
        self._channel = channel
        self._runner = runner
        self._base = base_texts
        self.collected = set(collected)
        self._next_id = 0
        self.alive = True
        self.stderr_tail = ""

    @classmethod
    def start(
        cls,
        session: Session,
        runner: TestRunner,
        nodeids: list[str],
        base_texts: dict[str, str],
        *,
        startup_timeout: float,
    ) -> tuple[ForkScreener | None, str]:
        """A ready worker, or None and why it could not start."""
        config = {
            "root": str(session.root),
            # the same plugins as the runs it stands in for
            "pytest_args": [*runner.command.pytest_options, *runner.plugin_options],
            "nodeids": nodeids,
            "cache_dir": str(session.root / RUNS_DIR / "worker-cache"),
        }
        config_rel = f"{RUNS_DIR}/worker.json"
        session.write_file(config_rel, json.dumps(config), force=True)
        argv = [
            runner.python,
            str(session.root / RUNTIME_DIR / "selfheal_screen_worker.py"),
            str(session.root / config_rel),
        ]
        channel = session.open_channel(argv, env=runner.base_env())
        line = _next_message(channel, startup_timeout)
        if line is None or line.get("event") != "ready":
            stderr = channel.close()
            detail = (line or {}).get("message") or stderr.strip().splitlines()[-3:]
            return None, f"screening worker did not start: {detail}"
        if not line.get("collected"):
            channel.close()
            return None, "screening worker collected none of the tests"
        return cls(channel, base_texts, line["collected"], runner), "ready"

    def screen(
        self,
        changes: dict[str, str],
        tests: list[str],
        timeout: float,
        test_timeout: float | None = None,
        unchanged: dict[str, str] | None = None,
    ) -> ScreenResult:
        if not self.alive:
            return ScreenResult(error="screening worker is not running")
        limits, clock = self._runner.limits, self._runner.clock
        per_test: dict[str, float] = {}
        if limits is not None:
            load = load_factor()
            per_test = limits.screen_limits(tests, load)
            timeout = FORK_MARGIN_S * load + sum(per_test.values())
        if clock is not None:
            timeout = clock.bound(timeout, "screening")
        self._next_id += 1
        request = {
            "id": self._next_id,
            "files": {path: {"old": self._base[path], "new": text} for path, text in changes.items()},
            "tests": tests,
            "timeout": timeout,
            "test_timeout": test_timeout,
            "test_limits": per_test,
            "hung": sorted(limits.hung.intersection(tests)) if limits is not None else [],
        }
        if unchanged and list(unchanged) == tests[: len(unchanged)]:
            request["stop_if_unchanged"] = unchanged
        self._channel.send(json.dumps(request))
        reply = _next_message(self._channel, timeout + 15)
        if reply is None or reply.get("id") != self._next_id:
            self.alive = False
            self.stderr_tail = self._channel.close()
            return ScreenResult(error="screening worker stopped answering")
        outcomes = {n: o["outcome"] for n, o in reply.get("outcomes", {}).items()}
        messages = {n: o.get("message", "") for n, o in reply.get("outcomes", {}).items()}
        return ScreenResult(outcomes, messages, reply.get("patch_error"), reply.get("duration", 0.0))

    def close(self) -> None:
        if self.alive:
            self._channel.send(json.dumps({"cmd": "quit"}))
            self.alive = False
            self.stderr_tail = self._channel.close()


def _next_message(channel: Channel, timeout: float) -> dict | None:
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        line = channel.receive(remaining)
        if line is None:
            return None
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            return message


class SubprocessScreener:
    """One fresh pytest process per candidate: slow, simple, and exact."""

    name = "subprocess"

    def __init__(self, session: Session, runner: TestRunner, base_texts: dict[str, str]) -> None:
        self._session = session
        self._runner = runner
        self._base = base_texts

    def screen(
        self,
        changes: dict[str, str],
        tests: list[str],
        timeout: float,
        test_timeout: float | None = None,
        unchanged: dict[str, str] | None = None,  # one process runs them all: nothing to save
    ) -> ScreenResult:
        per_test: dict[str, float] | None = None
        limits = self._runner.limits
        if limits is not None:
            load = load_factor()
            per_test = limits.screen_limits(tests, load)
            timeout = limits.startup_allowance(load) + sum(per_test.values())
        try:
            for path, text in changes.items():
                self._session.write_file(path, text)
            report, _ = self._runner.run(
                tests, timeout=timeout, test_timeout=test_timeout, test_limits=per_test
            )
        except WorkspaceTrap as exc:
            return ScreenResult(error=str(exc))
        finally:
            for path in changes:
                self._session.write_file(path, self._base[path], force=True)
        if not report.outcomes:
            return ScreenResult(error=report.message or report.status, duration_s=report.duration_s)
        return ScreenResult(
            {n: o.outcome for n, o in report.outcomes.items()},
            {n: o.message for n, o in report.outcomes.items()},
            None,
            report.duration_s,
        )

    def close(self) -> None:
        pass


class OrderedScreener:
    """Screening that agrees with the real run on tests whose outcome depends on what earlier
    tests left behind (a registry filled by another test, a module-level cache, an order).

    The fast screener runs the other tests as usual. Each of `prefixes`' tests runs in a fresh
    pytest process after the tests that ran before it in the real run (its prefix, found by the
    caller to reproduce the real outcome), in the real order. Slower, but a candidate the fast
    screener would reject while the real run accepts it is a lost heal.
    """

    def __init__(
        self,
        fast: Screener,
        fresh: Screener,
        prefixes: dict[str, tuple[str, ...]],
        order: list[str],
        durations: dict[str, float],
        min_timeout: float = 0.0,
    ) -> None:
        self.name = f"{fast.name}+ordered"
        self._fast, self._fresh = fast, fresh
        self.prefixes = prefixes
        self._rank = {nodeid: index for index, nodeid in enumerate(order)}
        self._durations = durations
        self._min_timeout = min_timeout

    def screen(
        self,
        changes: dict[str, str],
        tests: list[str],
        timeout: float,
        test_timeout: float | None = None,
        unchanged: dict[str, str] | None = None,
    ) -> ScreenResult:
        plain = [t for t in tests if t not in self.prefixes]
        ordered = [t for t in tests if t in self.prefixes]
        # the fast screener may stop early only when it alone runs every failing test
        fast_unchanged = unchanged if unchanged and not any(t in self.prefixes for t in unchanged) else None
        fast = ScreenResult()
        if plain:
            fast = self._fast.screen(changes, plain, timeout, test_timeout, fast_unchanged)
        if not ordered or fast.error:
            return fast
        run = sorted(
            {nodeid for t in ordered for nodeid in (*self.prefixes[t], t)},
            key=lambda n: self._rank.get(n, len(self._rank)),
        )
        # the prefix's tests take their time too; a hang is still cut by the per-test limit
        extra = 3 * sum(self._durations.get(n, 0.0) for n in run if n not in ordered)
        fresh = self._fresh.screen(changes, run, max(timeout + extra, self._min_timeout), test_timeout)
        outcomes = {**fast.outcomes, **{t: fresh.outcomes[t] for t in ordered if t in fresh.outcomes}}
        messages = {**fast.messages, **{t: fresh.messages[t] for t in ordered if t in fresh.messages}}
        return ScreenResult(outcomes, messages, fresh.error, fast.duration_s + fresh.duration_s)

    def close(self) -> None:
        self._fast.close()
        self._fresh.close()
