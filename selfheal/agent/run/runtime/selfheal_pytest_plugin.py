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
  ``SELFHEAL_TEST_LIMITS`` names a JSON file of node id -> seconds that overrides it per test;
  ``SELFHEAL_SIBLING_PROBE``: once a case of a test function was stopped by its limit, its later
  cases (the same function, other parameters) get this many seconds, or five times the longest
  of its cases that finished: they hang for the same reason, and waiting out each would cost the
  full limit again (``SELFHEAL_SIBLING_SCOPE=file``: the later tests of the same file, as for a
  file of new tests of one function);
- ``SELFHEAL_COVERAGE_OUT``: per-test line coverage of the files listed in
  ``SELFHEAL_COVERAGE_FILES``, written as JSON ``{"tests": {nodeid: {file: [lines]}}}``; what a
  failing assert's explanation runs (``__repr__``, ``__eq__`` of items) counts for no test;
- ``SELFHEAL_RECORDS`` and ``SELFHEAL_RECORDS_SEAL``: the run's own account of itself, which the
  verdict reads beside the JUnit XML. The key file is read and deleted when this plugin is
  imported, before pytest imports any conftest or test (so before the code under test runs); every
  record is a JSON line chained to the one before by an HMAC under that key, so a record the
  tests add, change, drop or reorder, and a run that never reached its end, show. Records: one per
  test phase, then ``finished`` with pytest's exit status and the names of the test machinery
  (pytest, pluggy, unittest, builtins, sys, os, atexit, faulthandler) rebound since the import.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import os
import signal
import sys
import threading
import time
import types

import pytest

NODEID_PROPERTY = "selfheal_nodeid"
WATCHED = (
    "_pytest", "pytest", "pluggy", "unittest", "builtins", "sys", "os", "atexit", "faulthandler",
    "hmac", "hashlib", "json", "selfheal_pytest_plugin",
)  # fmt: skip


class SelfhealTimeout(BaseException):
    """Raised inside a test that ran past the per-test time limit. A BaseException, and raised
    again every half second until the test ends, so that a retry loop's `except Exception` (or
    one that swallows even this) cannot keep the test hanging."""


def _timeout_seconds(nodeid: str = "") -> float:
    """The test's own limit when SELFHEAL_TEST_LIMITS names it, else SELFHEAL_TEST_TIMEOUT."""
    own = _test_limits().get(nodeid)
    if isinstance(own, (int, float)) and own > 0:
        return float(own)
    try:
        return float(os.environ.get("SELFHEAL_TEST_TIMEOUT", "0"))
    except ValueError:
        return 0.0


_LIMITS: dict = {}
_HUNG_GROUPS: set = set()  # test functions one of whose cases was stopped by its limit
_FINISHED: dict = {}  # test function -> the longest of its cases that finished, in seconds


def _group(nodeid: str) -> str:
    if os.environ.get("SELFHEAL_SIBLING_SCOPE") == "file":
        return nodeid.split("::", 1)[0]
    return nodeid.split("[", 1)[0]


def _sibling_limit(nodeid: str, limit: float) -> float:
    group = _group(nodeid)
    if group not in _HUNG_GROUPS:
        return limit
    try:
        probe = float(os.environ.get("SELFHEAL_SIBLING_PROBE", "0"))
    except ValueError:
        return limit
    if probe <= 0:
        return limit
    return min(limit, max(probe, 5 * _FINISHED.get(group, 0.0))) if limit > 0 else limit


def _test_limits() -> dict:
    """SELFHEAL_TEST_LIMITS: a JSON file of node id -> seconds, read once per file name."""
    path = os.environ.get("SELFHEAL_TEST_LIMITS", "")
    if not path:
        return {}
    if path not in _LIMITS:
        try:
            with open(path, encoding="utf-8") as handle:
                found = json.load(handle)
        except (OSError, ValueError):
            found = {}
        _LIMITS[path] = found if isinstance(found, dict) else {}
    return _LIMITS[path]


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
    nodeid = canonical_id(item)
    limit = _sibling_limit(nodeid, _timeout_seconds(nodeid))
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
    signal.setitimer(signal.ITIMER_REAL, limit, 0.5)
    started = time.monotonic()
    try:
        outcome = yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
    excinfo = outcome.excinfo if outcome is not None else None
    group = _group(nodeid)
    if excinfo is not None and issubclass(excinfo[0], SelfhealTimeout):
        _HUNG_GROUPS.add(group)
    else:
        _FINISHED[group] = max(_FINISHED.get(group, 0.0), time.monotonic() - started)


class _LineRecorder:
    """Per-test executed lines of a fixed set of files."""

    def __init__(self, files: set[str]) -> None:
        self.files = files
        self.tests: dict[str, dict[str, set[int]]] = {}
        self._current: dict[str, set[int]] | None = None
        self._nodeid: str | None = None
        self._paused = 0
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
        self._nodeid = nodeid
        self._record_into(nodeid)

    def end(self) -> None:
        self._nodeid = None
        self._record_into(None)

    @contextlib.contextmanager
    def paused(self):
        """Lines run inside count for no test (nested pauses end with the outermost)."""
        self._paused += 1
        if self._paused == 1:
            self._record_into(None)
        try:
            yield
        finally:
            self._paused -= 1
            if self._paused == 0:
                self._record_into(self._nodeid)

    def _record_into(self, nodeid: str | None) -> None:
        if self._coverage is not None:
            self._coverage.switch_context(nodeid or "")  # lines of the context "" are dropped
        else:
            self._current = self.tests.setdefault(nodeid, {}) if nodeid else None

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


# -- the run's signed account of itself -------------------------------------------------------------
def _watched(name: str) -> bool:
    return any(name == w or name.startswith(w + ".") for w in WATCHED)


def _fingerprint(value: object) -> tuple[int, ...]:
    """The identity of a name's value, and of a function's code (which can be swapped in place)."""
    code = getattr(value, "__code__", None)
    return (id(value), id(code)) if isinstance(value, types.FunctionType) else (id(value),)


def _machinery() -> dict[str, tuple[object, tuple[int, ...]]]:
    """Every callable or class bound in the test machinery's modules and on their classes, the
    modules themselves in sys.modules, and the import system's hooks: name -> (value, identity)."""
    names: dict[str, tuple[object, tuple[int, ...]]] = {}
    for module_name, module in list(sys.modules.items()):
        if not _watched(module_name) or not isinstance(module, types.ModuleType):
            continue
        names[f"sys.modules[{module_name!r}]"] = (module, (id(module),))
        for attr, value in list(vars(module).items()):
            if not callable(value):
                continue
            names[f"{module_name}.{attr}"] = (value, _fingerprint(value))
            if isinstance(value, type) and getattr(value, "__module__", "") == module_name:
                for inner, member in list(vars(value).items()):
                    if callable(member) or isinstance(member, (staticmethod, classmethod, property)):
                        names[f"{module_name}.{attr}.{inner}"] = (member, _fingerprint(member))
    for hooks in ("meta_path", "path_hooks"):
        listed = tuple(getattr(sys, hooks, ()))
        names[f"sys.{hooks}"] = (listed, tuple(id(h) for h in listed))
    return names


class _Records:
    def __init__(self, path: str, key: bytes) -> None:
        self.key = key
        self.mac = b""
        self.handle = open(path, "w", encoding="utf-8")  # noqa: SIM115 - kept open for the run
        self.machinery = _machinery()
        self.finished = False

    def write(self, record: dict) -> None:
        body = json.dumps(record, sort_keys=True)
        self.mac = hmac.new(self.key, self.mac + body.encode(), hashlib.sha256).digest()
        self.handle.write(json.dumps({"record": body, "mac": self.mac.hex()}) + "\n")
        self.handle.flush()

    def rebound(self) -> list[str]:
        now = _machinery()
        changed = [
            name for name, (_, ident) in self.machinery.items() if now.get(name, (None, ()))[1] != ident
        ]
        return sorted(changed)


def _open_records() -> _Records | None:
    path, key_file = os.environ.get("SELFHEAL_RECORDS"), os.environ.get("SELFHEAL_RECORDS_SEAL")
    if not path or not key_file:
        return None
    try:
        with open(key_file, "rb") as handle:
            key = handle.read()
        os.unlink(key_file)
        return _Records(path, key) if key else None
    except OSError:
        return None  # an xdist worker, or a second pytest in the same run: the first one records


# A failing assert's explanation (pytest's rewritten assert) calls the operands' __repr__, for
# containers their items' __eq__, and the repository's pytest_assertrepr_compare hooks: code that
# runs only because the test failed. Counted as the test's coverage, a project's __repr__ would be
# a line "only the failing tests run" and rank above the bug. The helpers the rewritten asserts call
# are wrapped here, before the machinery is fingerprinted below, and only in a run that records
# coverage: the wrapped helpers are what the run's account compares later.
EXPLANATION_HELPERS = ("_saferepr", "_call_reprcompare", "_format_assertmsg", "_should_repr_global_name")


def _outside_coverage(helper):
    @functools.wraps(helper)
    def explaining(*args, **kwargs):
        recorder = _recorder
        if recorder is None:
            return helper(*args, **kwargs)
        with recorder.paused():
            return helper(*args, **kwargs)

    return explaining


def _keep_explanations_out_of_coverage() -> None:
    rewrite = sys.modules.get("_pytest.assertion.rewrite")
    for name in EXPLANATION_HELPERS:
        helper = getattr(rewrite, name, None)
        if callable(helper):
            setattr(rewrite, name, _outside_coverage(helper))


if os.environ.get("SELFHEAL_COVERAGE_OUT"):
    _keep_explanations_out_of_coverage()
_records = _open_records()


def report_id(config, report) -> str:
    """A report's node id made relative to SELFHEAL_ROOT, as canonical_id does for an item."""
    root = os.environ.get("SELFHEAL_ROOT")
    first, separator, rest = report.nodeid.partition("::")
    rootpath = getattr(config, "rootpath", None)
    if not root or rootpath is None or not first:
        return report.nodeid
    relative = os.path.relpath(os.path.join(str(rootpath), first), root).replace(os.sep, "/")
    if relative.startswith(".."):
        return report.nodeid
    return f"{relative}{separator}{rest}"


_config = None


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    global _config
    _config = session.config


def pytest_runtest_logreport(report):
    if _records is None or _config is None or hasattr(_config, "workerinput"):
        return
    try:
        _records.write({
            "kind": "test",
            "nodeid": report_id(_config, report),
            "when": report.when,
            "outcome": report.outcome,
            "xfail": bool(getattr(report, "wasxfail", "")),
        })  # fmt: skip
    except Exception as exc:
        sys.stderr.write(f"selfheal: could not record a test report: {exc!r}\n")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    if _records is None or hasattr(session.config, "workerinput") or _records.finished:
        return
    _records.finished = True
    try:
        _records.write({
            "kind": "finished",
            "exitstatus": int(exitstatus),
            "collected": int(getattr(session, "testscollected", 0)),
            "rebound": _records.rebound(),
        })  # fmt: skip
        _records.handle.close()
    except Exception as exc:
        sys.stderr.write(f"selfheal: could not record the end of the run: {exc!r}\n")
