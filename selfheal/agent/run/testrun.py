"""Running the repo's tests inside the sandbox and reading what happened, per test node id.

Every run is the repo's real pytest with its own conftest files, plugins and configuration;
selfheal adds only `PYTEST_ADDOPTS` (JUnit XML, native tracebacks, its small plugin, and on its own
interpreter `-p no:` for the plugins its own requirements brought: run/ownplugins.py) and a few
environment variables. A run whose tests could not be run at all (syntax or collection error, no
tests, a hang, a crash) comes back as a `TestReport` with a status and a message, never as an
exception.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib import resources

from selfheal.agent.run.clock import HealClock
from selfheal.agent.run.freshtree import fingerprint
from selfheal.agent.run.interpreter import coverage_package
from selfheal.agent.run.junit import ParsedJUnit, TestOutcome, parse_junit
from selfheal.agent.run.ownplugins import unasked_plugins
from selfheal.agent.run.records import RunRecords, new_key, read_records
from selfheal.agent.run.testcommand import TestCommand
from selfheal.agent.run.timelimits import TimeLimits
from selfheal.sandbox import STATE_DIR, ExecResult, Session
from selfheal.sandbox.env import PATH_TOKEN

RUNTIME_DIR = f"{STATE_DIR}/runtime"
RUNS_DIR = f"{STATE_DIR}/runs"
RUNTIME_FILES = ("selfheal_pytest_plugin.py", "selfheal_screen_worker.py")

OK, NO_TESTS, COLLECTION_ERROR, TIMEOUT, CRASHED, USAGE_ERROR, NOT_FOUND = (
    "ok",
    "no_tests",
    "collection_error",
    "timeout",
    "crashed",
    "usage_error",
    "command_not_found",
)


@dataclass(frozen=True)
class TestReport:
    __test__ = False

    status: str
    exit_code: int
    outcomes: dict[str, TestOutcome]
    duration_s: float
    message: str = ""
    output_tail: str = ""
    records: RunRecords | None = None  # the plugin's signed account of the run (None: not asked)

    @property
    def ran(self) -> bool:
        return self.status == OK

    @property
    def failing(self) -> list[str]:
        return sorted(n for n, o in self.outcomes.items() if o.failing)

    @property
    def passing(self) -> list[str]:
        return sorted(n for n, o in self.outcomes.items() if o.outcome == "passed")


@dataclass(frozen=True)
class CoverageMap:
    """Lines of project source each test executed: nodeid -> relpath -> lines."""

    tests: dict[str, dict[str, frozenset[int]]] = field(default_factory=dict)

    def tests_covering(self, relpath: str, line: int) -> list[str]:
        return sorted(t for t, files in self.tests.items() if line in files.get(relpath, ()))

    def tests_using(self, relpath: str) -> list[str]:
        """Tests that executed any line of the file."""
        return sorted(t for t, files in self.tests.items() if files.get(relpath))


def install_runtime(session: Session) -> None:
    """Copy the in-sandbox helpers into the session (works for any backend)."""
    package = resources.files("selfheal.agent.run.runtime")
    for name in RUNTIME_FILES:
        session.write_file(f"{RUNTIME_DIR}/{name}", package.joinpath(name).read_bytes(), force=True)


def coverage_fallback_dir(session: Session) -> str | None:
    """A folder holding only coverage.py, for interpreters that lack it (local backend only)."""
    package = coverage_package()
    if package is None:
        return None
    link = session.root / STATE_DIR / "pylib" / "coverage"
    if not link.parent.is_dir() or not link.exists():
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.exists():
            link.symlink_to(package, target_is_directory=True)
    return str(link.parent)


# Run inside the sandbox: what kind of entry a path is, without following it.
DESCRIBE_ENTRY = r"""
import os, stat, sys
try:
    mode = os.lstat(sys.argv[1]).st_mode
except FileNotFoundError:
    print("missing")
else:
    if stat.S_ISLNK(mode):
        print("a symbolic link (to %s)" % os.readlink(sys.argv[1]))
    else:
        kinds = ((stat.S_ISREG, "a file"), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                 (stat.S_ISSOCK, "a socket"))
        print(next((what for test, what in kinds if test(mode)), "a device"))
"""


class TestRunner:
    __test__ = False

    def __init__(
        self,
        session: Session,
        command: TestCommand,
        python: str,
        *,
        timeout: float,
        test_timeout: float,
        source_dirs: tuple[str, ...] = (),
    ) -> None:
        self.session = session
        self.source_dirs = source_dirs  # put on sys.path after the repo root, e.g. ("src",)
        self.command = command
        self.python = python
        self.timeout = timeout
        self.test_timeout = test_timeout
        self.runs = 0
        # learned from the baseline run (None before it): limits per test, for the tests that hung
        self.limits: TimeLimits | None = None
        self.clock: HealClock | None = None  # the heal's deadline: no run outlives it
        self._counter = itertools.count(1)
        install_runtime(session)
        self._coverage_lib = coverage_fallback_dir(session) if _is_local(session) else None
        # a container brings its own interpreter, whose plugins are the repository's choice
        self.unasked_plugins = unasked_plugins(python, session.root) if _is_local(session) else ()

    # -- environment ------------------------------------------------------------------------
    def base_env(self) -> dict[str, str]:
        root = str(self.session.root)
        command_env = dict(self.command.env)
        paths = [str(self.session.root / RUNTIME_DIR), root]
        paths += [os.path.join(root, folder) for folder in self.source_dirs]
        # `PYTHONPATH=lib pytest`: the command's entries join selfheal's, relative to the repo
        paths += [
            entry if os.path.isabs(entry) else os.path.join(root, entry)
            for entry in command_env.pop("PYTHONPATH", "").split(os.pathsep)
            if entry
        ]
        bin_dir = os.path.dirname(self.python)
        env = {
            **command_env,
            "PYTHONPATH": os.pathsep.join(paths),
            # the interpreter's folder first (its pytest, its scripts), then the sandbox's PATH
            "PATH": os.pathsep.join(p for p in (bin_dir, PATH_TOKEN) if p),
            "SELFHEAL_TEST_TIMEOUT": f"{self.test_timeout:g}",
            "SELFHEAL_ROOT": root,
        }
        if self._coverage_lib:
            env["SELFHEAL_COVERAGE_PATH"] = self._coverage_lib
        return env

    @property
    def plugin_options(self) -> tuple[str, ...]:
        """pytest options that keep out the plugins the repository never asked for."""
        return tuple(option for name in self.unasked_plugins for option in ("-p", f"no:{name}"))

    def pytest_addopts(self, junit_path: str) -> str:
        cache = self.session.root / STATE_DIR / "pytest-cache"
        return " ".join(
            shlex.quote(a)
            for a in (
                "-p", "selfheal_pytest_plugin",
                f"--junitxml={junit_path}",
                "-o", "junit_family=xunit1",
                "-o", f"cache_dir={cache}",
                "--tb=native",
                *self.plugin_options,
            )
        )  # fmt: skip

    # -- runs -------------------------------------------------------------------------------
    def run(
        self,
        nodeids: list[str] | None = None,
        *,
        coverage_files: list[str] | None = None,
        timeout: float | None = None,
        test_timeout: float | None = None,
        test_limits: Mapping[str, float] | None = None,
        sibling_probe: float | None = None,
        sibling_scope: str = "function",
    ) -> tuple[TestReport, CoverageMap | None]:
        """The whole suite (nodeids None) or only the given tests; optionally with coverage.
        `test_limits`: seconds per node id, over `test_timeout` for those tests; without them,
        the tests that hung at baseline get the baseline's hang probe. `sibling_probe`: the limit
        of a test function's later cases (`sibling_scope="file"`: the file's later tests) once one
        of them was stopped by its limit."""
        timeout = timeout or self.timeout
        if self.clock is not None:
            timeout = self.clock.bound(timeout, "a test run")
        number = next(self._counter)
        junit_rel = f"{RUNS_DIR}/junit-{number}.xml"
        junit_abs = str(self.session.root / junit_rel)
        # selfheal's own files: whatever the tests left at their names is replaced, never followed
        self.session.write_file(f"{RUNS_DIR}/.keep", b"", force=True)
        env = {**self.base_env(), "PYTEST_ADDOPTS": self.pytest_addopts(junit_abs)}
        key, records_rel, key_rel = (
            new_key(),
            f"{RUNS_DIR}/records-{number}.jsonl",
            f"{RUNS_DIR}/key-{number}",
        )
        self.session.write_file(key_rel, key, force=True)
        self.session.write_file(records_rel, b"", force=True)
        env["SELFHEAL_RECORDS"] = str(self.session.root / records_rel)
        env["SELFHEAL_RECORDS_SEAL"] = str(self.session.root / key_rel)
        if test_timeout:
            env["SELFHEAL_TEST_TIMEOUT"] = f"{test_timeout:g}"
        if sibling_probe:
            env["SELFHEAL_SIBLING_PROBE"] = f"{sibling_probe:g}"
            env["SELFHEAL_SIBLING_SCOPE"] = sibling_scope
        if test_limits is None and self.limits is not None:
            test_limits = self.limits.verdict_limits()
        if test_limits:
            limits_rel = f"{RUNS_DIR}/limits-{number}.json"
            self.session.write_file(limits_rel, json.dumps(dict(test_limits)), force=True)
            env["SELFHEAL_TEST_LIMITS"] = str(self.session.root / limits_rel)
        coverage_rel = None
        if coverage_files:
            coverage_rel = f"{RUNS_DIR}/coverage-{number}.json"
            listing_rel = f"{RUNS_DIR}/coverage-{number}.files"
            self.session.write_file(
                listing_rel,
                "\n".join(str(self.session.root / f) for f in coverage_files) + "\n",
                force=True,
            )
            env["SELFHEAL_COVERAGE_OUT"] = str(self.session.root / coverage_rel)
            env["SELFHEAL_COVERAGE_FILES"] = str(self.session.root / listing_rel)
        argv = list(self.command.argv) if nodeids is None else self.command.targeted(nodeids, self.python)
        result = self.session.run(argv, timeout=timeout, env=env)
        self.runs += 1
        if result.timed_out and self.clock is not None:
            self.clock.check("a test run")  # stopped by the heal's deadline, not by its own limit
        xml = self.session.read_file(junit_rel)
        report = self._report(result, xml, timeout)
        report = replace(report, records=read_records(self.session.read_file(records_rel), key))
        if xml is None and not report.ran and not result.timed_out:
            planted = self._planted_at(junit_rel)
            if planted:
                report = replace(report, message=(
                    f"pytest's report ({junit_rel}) is {planted} after the run, not the file pytest "
                    "writes: the tests tampered with the results selfheal reads, so none of them is trusted"
                ))  # fmt: skip
        coverage = self._coverage(coverage_rel) if coverage_rel and report.ran else None
        return report, coverage

    def _report(self, result: ExecResult, xml: bytes | None, timeout: float) -> TestReport:
        tail = _tail(result)
        if result.timed_out:
            return TestReport(
                TIMEOUT, result.returncode, {}, result.duration_s,
                f"the test run took longer than {timeout:g}s and was stopped (raise --timeout "
                "if the suite is just slow); the last output was:\n" + _last_lines(tail, 15),
                tail,
            )  # fmt: skip
        if result.returncode == 127 and not xml:
            return TestReport(
                NOT_FOUND, 127, {}, result.duration_s, _last_lines(result.stderr or tail, 5), tail
            )
        parsed = _parse(xml)
        if parsed is None and 'importing plugin "selfheal_pytest_plugin"' in tail:
            return TestReport(
                CRASHED, result.returncode, {}, result.duration_s,
                "pytest could not load selfheal's plugin: the test command replaces PYTHONPATH "
                "inside a shell line. Drop PYTHONPATH from the command (selfheal puts the repo "
                "and src/ on the path itself) or set it as a leading VAR=value.",
                tail,
            )  # fmt: skip
        if parsed is None:
            return TestReport(
                CRASHED, result.returncode, {}, result.duration_s,
                f"the test command exited with {result.returncode} without a test report "
                "(is it a pytest command, and is pytest installed for this Python?):\n"
                + _last_lines(tail, 15),
                tail,
            )  # fmt: skip
        if parsed.collection_errors:
            return TestReport(
                COLLECTION_ERROR,
                result.returncode,
                parsed.outcomes,
                result.duration_s,
                _describe_collection(parsed, str(self.session.root)),
                tail,
            )
        if result.returncode == 4:
            return TestReport(
                USAGE_ERROR,
                4,
                parsed.outcomes,
                result.duration_s,
                "pytest rejected its arguments:\n" + _last_lines(tail, 8),
                tail,
            )
        if not parsed.outcomes:
            return TestReport(
                NO_TESTS,
                result.returncode,
                {},
                result.duration_s,
                "the test command collected no tests",
                tail,
            )
        return TestReport(OK, result.returncode, parsed.outcomes, result.duration_s, "", tail)

    def fingerprint(self) -> dict[str, str] | None:
        """Every file of the workspace -> its digest (None when it could not be taken); caches
        and selfheal's own folder left out (run/freshtree.py)."""
        return fingerprint(self.session, self.python)

    def _planted_at(self, relpath: str) -> str:
        """What stands at a path selfheal reads when it is not a regular file ("" when nothing
        does): asked inside the sandbox, which is where the tests could have put it."""
        done = self.session.run(
            [self.python, "-c", DESCRIBE_ENTRY, str(self.session.root / relpath)], timeout=30
        )
        said = done.stdout.strip()
        return "" if not done.ok or said in ("missing", "a file") else said

    def _coverage(self, coverage_rel: str) -> CoverageMap | None:
        raw = self.session.read_file(coverage_rel)
        if raw is None:
            return None
        try:
            tests = json.loads(raw)["tests"]
        except (ValueError, KeyError):
            return None
        prefix = str(self.session.root) + os.sep
        mapped: dict[str, dict[str, frozenset[int]]] = {}
        for nodeid, files in tests.items():
            mapped[nodeid] = {
                path[len(prefix) :] if path.startswith(prefix) else path: frozenset(lines)
                for path, lines in files.items()
            }
        return CoverageMap(mapped)


def _is_local(session: Session) -> bool:
    return session.info.backend == "local"


def _parse(xml: bytes | None) -> ParsedJUnit | None:
    if not xml:
        return None
    try:
        return parse_junit(xml)
    except Exception:
        return None


def _tail(result: ExecResult) -> str:
    return (result.stdout[-6000:] + "\n" + result.stderr[-4000:]).strip()


def _last_lines(text: str, count: int) -> str:
    return "\n".join(text.strip().splitlines()[-count:])


def _describe_collection(parsed: ParsedJUnit, root: str) -> str:
    """One line per broken module: the error, and where it is as a repo-relative path:line."""
    prefix = root.rstrip("/") + "/"
    parts = []
    for where, text in sorted(parsed.collection_errors.items())[:3]:
        lines = [ln for ln in text.strip().splitlines() if ln.strip()]
        error = next(
            (ln for ln in reversed(lines) if re.match(r"^E?\s*\w+(Error|Exception)\b", ln)),
            lines[-1] if lines else "",
        )
        frames = [m for ln in lines if (m := re.search(r'File "([^"]+)", line (\d+)', ln))]
        # the innermost frame in the repo is where the problem is
        inside = [m for m in frames if m.group(1).startswith(prefix)] or frames
        location = ""
        if inside:
            path, line = inside[-1].group(1), inside[-1].group(2)
            location = f"{path.removeprefix(prefix)}:{line}"
        error = re.sub(r"^E\s+", "", error.strip())
        parts.append(f"{where}: {error}" + (f" (at {location})" if location else ""))
    more = len(parsed.collection_errors) - 3
    suffix = f"\n(and {more} more)" if more > 0 else ""
    return "tests could not be collected:\n" + "\n".join(parts) + suffix
