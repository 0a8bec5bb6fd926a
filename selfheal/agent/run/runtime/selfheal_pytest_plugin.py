"""pytest plugin loaded into the target repo's own test runs (``-p selfheal_pytest_plugin``).

This file runs inside the sandbox, under the repo's interpreter, next to the repo's own conftest
files and plugins; it imports nothing but the standard library (and coverage.py when asked for
coverage), and it must never make a run fail that would pass without it. It does three things,
each switched on by an environment variable:

- always: records each test's id as a JUnit property, so outcomes map back to ids. The id is the
  node id made relative to ``SELFHEAL_ROOT`` (the repo) instead of pytest's rootdir, so runs
  started from different folders (``cd tests && pytest``) name a test the same way, and the id
  works as a command-line argument from the repo's top;
- ``SELFHEAL_TEST_TIMEOUT``: a per-test time limit (SIGALRM) so a hanging test becomes a failing
  test with a traceback that shows where it hung, instead of killing the whole run;
- ``SELFHEAL_COVERAGE_OUT``: per-test line coverage of the files listed in
  ``SELFHEAL_COVERAGE_FILES``, written as JSON ``{"tests": {nodeid: {file: [lines]}}}``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading

import pytest

NODEID_PROPERTY = "selfheal_nodeid"


class SelfhealTimeout(Exception):
    """Raised inside a test that ran past the per-test time limit."""


def _timeout_seconds() -> float:
    try:
        return float(os.environ.get("SELFHEAL_TEST_TIMEOUT", "0"))
    except ValueError:
        return 0.0


def canonical_id(item) -> str:
    """The node id with its file part relative to SELFHEAL_ROOT (pytest's own id otherwise)."""
    root = os.environ.get("SELFHEAL_ROOT")
    path = getattr(item, "path", None) or getattr(item, "fspath", None)
    if not root or path is None:
        return item.nodeid
    relative = os.path.relpath(str(path), root).replace(os.sep, "/")
    if relative.startswith(".."):
        return item.nodeid
    _, separator, rest = item.nodeid.partition("::")
    return f"{relative}::{rest}" if separator else relative


def pytest_collection_modifyitems(items):
    for item in items:
        item.user_properties.append((NODEID_PROPERTY, canonical_id(item)))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    limit = _timeout_seconds()
    usable = (
        limit > 0
        and hasattr(signal, "SIGALRM")
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
    )
    if not usable:
        yield
        return

    def on_alarm(signum, frame):
        raise SelfhealTimeout(f"test ran longer than {limit:g}s (selfheal per-test timeout)")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


class _LineRecorder:
    """Per-test executed lines of a fixed set of files."""

    def __init__(self, files: set[str]) -> None:
        self.files = files
        self.tests: dict[str, dict[str, set[int]]] = {}
        self._current: dict[str, set[int]] | None = None
        self._coverage = None
        self._start()

    def _start(self) -> None:
        try:
            import coverage
        except ImportError:
            fallback = os.environ.get("SELFHEAL_COVERAGE_PATH")
            if fallback:
                sys.path.append(fallback)
            try:
                import coverage
            except ImportError:
                coverage = None
        if coverage is not None and sys.gettrace() is None:
            self._coverage = coverage.Coverage(
                data_file=None, include=sorted(self.files), config_file=False, branch=False
            )
            self._coverage.start()
        else:
            sys.settrace(self._global_trace)
            threading.settrace(self._global_trace)

    # Fallback tracer, used only when coverage.py is unavailable in the repo's interpreter.
    def _global_trace(self, frame, event, arg):
        if self._current is None or frame.f_code.co_filename not in self.files:
            return None
        lines = self._current.setdefault(frame.f_code.co_filename, set())
        lines.add(frame.f_lineno)

        def local_trace(frame, event, arg):
            if event == "line":
                lines.add(frame.f_lineno)
            return local_trace

        return local_trace

    def begin(self, nodeid: str) -> None:
        if self._coverage is not None:
            self._coverage.switch_context(nodeid)
        else:
            self._current = self.tests.setdefault(nodeid, {})

    def end(self) -> None:
        if self._coverage is not None:
            self._coverage.switch_context("")
        self._current = None

    def finish(self) -> dict[str, dict[str, list[int]]]:
        if self._coverage is not None:
            self._coverage.stop()
            data = self._coverage.get_data()
            for filename in data.measured_files():
                for line, contexts in data.contexts_by_lineno(filename).items():
                    for context in contexts:
                        if context:
                            self.tests.setdefault(context, {}).setdefault(filename, set()).add(line)
        else:
            sys.settrace(None)
            threading.settrace(None)
        return {
            test: {name: sorted(lines) for name, lines in files.items()} for test, files in self.tests.items()
        }


_recorder: _LineRecorder | None = None


def pytest_configure(config):
    global _recorder
    out = os.environ.get("SELFHEAL_COVERAGE_OUT")
    listing = os.environ.get("SELFHEAL_COVERAGE_FILES")
    if not out or not listing or _recorder is not None:
        return
    try:
        with open(listing, encoding="utf-8") as handle:
            files = {line.strip() for line in handle if line.strip()}
        _recorder = _LineRecorder(files)
    except Exception as exc:  # coverage is an aid; the run must go on without it
        sys.stderr.write(f"selfheal: per-test coverage disabled: {exc!r}\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if _recorder is not None:
        _recorder.begin(canonical_id(item))
    try:
        yield
    finally:
        if _recorder is not None:
            _recorder.end()


def pytest_unconfigure(config):
    global _recorder
    if _recorder is None:
        return
    recorder, _recorder = _recorder, None
    out = os.environ["SELFHEAL_COVERAGE_OUT"]
    try:
        tests = recorder.finish()
        if hasattr(config, "workerinput"):  # an xdist worker: the controller merges
            with open(f"{out}.{os.getpid()}.part", "w", encoding="utf-8") as handle:
                json.dump({"tests": tests}, handle)
            return
        folder, prefix = os.path.split(out)
        for name in sorted(os.listdir(folder or ".")):
            if name.startswith(os.path.basename(prefix) + ".") and name.endswith(".part"):
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    tests.update(json.load(handle)["tests"])
        with open(out, "w", encoding="utf-8") as handle:
            json.dump({"tests": tests}, handle)
    except Exception as exc:
        sys.stderr.write(f"selfheal: could not write per-test coverage: {exc!r}\n")
