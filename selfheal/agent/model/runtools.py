"""The debugger's tools that run code in the heal's sandbox session: run_snippet and run_tests.

The code runs there, never on the host, and never through a shell (argv lists only); a test id
may not look like an option and its path is confined to the workspace (`check_test_id`). A failed
command or a timeout is an `Observation` with `ok=False`, never an exception. When an answer must
be shortened for a small model's context, run_snippet keeps a traceback's frames that matter and
run_tests the failures before the passes.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Collection, Mapping
from typing import Any

from selfheal.agent.model.llm.base import ToolSpec
from selfheal.agent.model.readtools import confine_path
from selfheal.agent.model.textfit import fit_lines, fit_text, fit_traceback
from selfheal.agent.model.tokencount import CountFn
from selfheal.agent.model.toolbox import Observation, cap_text
from selfheal.agent.run.testrun import TestRunner
from selfheal.agent.run.tracebacks import parse_frames
from selfheal.sandbox import Session
from selfheal.sandbox.env import PATH_TOKEN

STREAM_LIMIT = 3 * 1024  # bytes of each of a snippet's stdout and stderr
MAX_SNIPPET_TIMEOUT = 30
MAX_SNIPPET_CHARS = 20_000
MAX_TEST_IDS = 20


def check_test_id(nodeid: str, known_files: Collection[str] | None = None) -> tuple[str | None, str]:
    """(the node id, normalised, "") or (None, why it is not a test id we will pass to pytest)."""
    if not nodeid or any(c in nodeid for c in "\0\n\r"):
        return None, f"{nodeid!r}: a test id is a non-empty single line"
    if nodeid.startswith("-"):
        return None, f"{nodeid!r}: a test id may not start with '-' (options are not accepted)"
    path, sep, rest = nodeid.partition("::")
    normal, why = confine_path(path)
    if normal is None:
        return None, f"{nodeid!r}: {why}"
    if known_files is not None and normal not in known_files:
        folder = normal.rstrip("/") + "/"
        if not any(f.startswith(folder) for f in known_files):
            return None, f"{nodeid!r}: no such test file or folder in the project"
    return f"{normal}{sep}{rest}", ""


def _relative(text: str, root: str) -> str:
    """Absolute workspace paths in output -> repo-relative ones (shorter, and what tools take)."""
    return text.replace(root.rstrip("/") + "/", "")


# -- run_snippet ------------------------------------------------------------------------------
class RunSnippet:
    def __init__(
        self,
        session: Session,
        python: str,
        *,
        source_dirs: tuple[str, ...] = (),
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.session = session
        self.python = python
        self.source_dirs = source_dirs
        self.env = dict(env or {})
        self.spec = ToolSpec(
            name="run_snippet",
            description=(
                "Run a short Python program in the sandbox, with the project importable (the working "
                "directory is the project root). Use it to call the suspicious code with concrete "
                "inputs and print what it returns. Returns the exit code, stdout and stderr (a "
                "traceback if it raised). Do not edit files with it: changes are not part of a repair."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "code": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": MAX_SNIPPET_CHARS,
                        "description": "Python source, e.g. 'from pkg.core import f\\nprint(f(3))'",
                    },
                    "timeout_s": {
                        "type": "number",
                        "exclusiveMinimum": 0,
                        "maximum": MAX_SNIPPET_TIMEOUT,
                        "default": 10,
                        "description": f"seconds before it is killed (at most {MAX_SNIPPET_TIMEOUT})",
                    },
                },
                "required": ["code"],
                "additionalProperties": False,
            },
        )

    def run(self, arguments: dict[str, Any]) -> Observation:
        code = arguments["code"]
        timeout = float(arguments.get("timeout_s", 10))
        if "\0" in code:
            return Observation("the code contains a NUL character; remove it", ok=False)
        root = str(self.session.root)
        paths = [root, *(posixpath.join(root, d) for d in self.source_dirs)]
        env = {
            **self.env,
            "PYTHONPATH": os.pathsep.join(paths),
            "PATH": os.pathsep.join(p for p in (os.path.dirname(self.python), PATH_TOKEN) if p),
        }
        result = self.session.run([self.python, "-c", code], timeout=timeout, env=env)
        stdout, _ = cap_text(_relative(result.stdout, root), STREAM_LIMIT)
        stderr, _ = cap_text(_relative(result.stderr, root), STREAM_LIMIT)
        data = {
            "exit_code": result.returncode,
            "timed_out": result.timed_out,
            "duration_s": round(result.duration_s, 3),
            "stdout": stdout,
            "stderr": stderr,
        }
        if result.timed_out:
            head = f"timed out after {timeout:g}s: the snippet was killed (exit code {result.returncode})"
        elif result.returncode == 127 and result.stderr.startswith("selfheal:"):  # the sandbox said
            return Observation(
                f"could not start the interpreter: {result.stderr.strip()}", ok=False, data=data
            )
        elif result.returncode < 0:
            head = f"killed by signal {-result.returncode} after {result.duration_s:.2f}s (a resource limit?)"
        else:
            head = f"exit code {result.returncode} in {result.duration_s:.2f}s"

        def shorten(max_tokens: int, count: CountFn) -> str:
            room = max_tokens - count(head) - 12  # the stdout:/stderr: labels
            err = stderr
            if stderr.strip():
                err = fit_traceback(stderr, room // 2 if stdout.strip() else room, count=count)
                room -= count(err)
            text = _snippet_text(head, fit_text(stdout, max(room, 0), count=count), err)
            return text if count(text) <= max_tokens else fit_text(text, max_tokens, count=count)

        return Observation(_snippet_text(head, stdout, stderr), ok=result.ok, data=data, shorten=shorten)


def _snippet_text(head: str, stdout: str, stderr: str) -> str:
    parts = [head]
    parts += ["stdout:", stdout.rstrip("\n")] if stdout.strip() else ["stdout: (empty)"]
    if stderr.strip():
        parts += ["stderr:", stderr.rstrip("\n")]
    return "\n".join(parts)


# -- run_tests --------------------------------------------------------------------------------
class RunTests:
    def __init__(self, runner: TestRunner, *, known_files: Collection[str] | None = None) -> None:
        self.runner = runner
        self.known_files = known_files
        self.spec = ToolSpec(
            name="run_tests",
            description=(
                "Run some of the project's tests (pytest node ids such as "
                "'tests/test_core.py::test_clamp', a file, or a folder) on the code as it is now. "
                "Returns each test's outcome and the first lines of each failure."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "test_ids": {
                        "type": "array",
                        "items": {"type": "string", "minLength": 1},
                        "minItems": 1,
                        "maxItems": MAX_TEST_IDS,
                        "description": f"pytest node ids, at most {MAX_TEST_IDS}",
                    },
                },
                "required": ["test_ids"],
                "additionalProperties": False,
            },
        )

    def run(self, arguments: dict[str, Any]) -> Observation:
        nodeids, refused = [], []
        for raw in arguments["test_ids"]:
            nodeid, why = check_test_id(raw, self.known_files)
            if nodeid is None:
                refused.append(why)
            elif nodeid not in nodeids:
                nodeids.append(nodeid)
        if refused:
            return Observation("not run:\n" + "\n".join(f"  {w}" for w in refused), ok=False)
        report, _ = self.runner.run(nodeids)
        root = str(self.runner.session.root)
        outcomes = {n: o.outcome for n, o in report.outcomes.items()}
        if not report.ran:
            text = f"the tests could not be run ({report.status}): {_relative(report.message, root)}"
            return Observation(text, ok=False, data={"status": report.status, "outcomes": outcomes})
        counts: dict[str, int] = {}
        for outcome in report.outcomes.values():
            counts[outcome.outcome] = counts.get(outcome.outcome, 0) + 1
        summary = ", ".join(f"{n} {o}" for o, n in sorted(counts.items()))
        lines = [f"{len(report.outcomes)} tests: {summary} ({report.duration_s:.2f}s)"]
        # what a shortened answer keeps first: the summary, every failing test's name, what did
        # not run, each failure's message and where it failed, the rest of the messages, passes
        priorities: list[float] = [0]
        detailed = 0
        for nodeid, outcome in sorted(report.outcomes.items(), key=lambda i: (not i[1].failing, i[0])):
            lines.append(f"{outcome.outcome.upper()} {nodeid} ({outcome.duration:.3f}s)")
            rank = len(lines) / 10_000
            priorities.append(1 + rank if outcome.failing else 1000 + rank)
            if outcome.failing and detailed < 8:
                detailed += 1
                details = _failure_lines(outcome.message, outcome.details, root)
                lines += [f"    {ln}" for ln in details]
                first_or_where = [i == 0 or line.startswith("at ") for i, line in enumerate(details)]
                priorities += [(3 if kept else 4) + rank for kept in first_or_where]
        missing = [n for n in nodeids if not _has_outcome(n, report.outcomes)]
        for nodeid in missing:
            lines.append(f"NOT RUN {nodeid} (pytest reported no outcome for it)")
            priorities.append(2)

        def shorten(max_tokens: int, count: CountFn) -> str:
            return fit_lines(lines, priorities, max_tokens, count=count)

        return Observation(
            "\n".join(lines),
            ok=not missing,
            data={"status": report.status, "outcomes": outcomes},
            shorten=shorten,
        )


def _has_outcome(nodeid: str, outcomes: Mapping[str, Any]) -> bool:
    prefixes = (f"{nodeid}::", f"{nodeid}[", f"{nodeid.rstrip('/')}/")
    return nodeid in outcomes or any(n.startswith(prefixes) for n in outcomes)


def _failure_lines(message: str, details: str, root: str, count: int = 5) -> list[str]:
    text = _relative(message.strip() or "\n".join(details.strip().splitlines()[-count:]), root)
    lines = [ln for ln in text.splitlines() if ln.strip()][:count]
    prefix = root.rstrip("/") + "/"
    frames = [f for f in parse_frames(details) if f.file.startswith(prefix)]
    if frames:
        last = frames[-1]
        lines.append(f"at {last.file.removeprefix(prefix)}:{last.line} in {last.function}")
    return lines
