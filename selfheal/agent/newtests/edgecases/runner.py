"""Running the probe script in the sandbox and reading what it found.

One `run_probes` is one version of the code (whatever text the changed file holds right now).
The script is passed with `-c` and the job as a JSON file in the session's scratch folder, which
the script deletes once read (and this module deletes when the script never got to it). A run
that ends early (a hang in C code, a crash of the interpreter) marks the input it was on and
starts again after it, until the inputs or the time run out.
"""

from __future__ import annotations

import itertools
import json
import os
import posixpath
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from selfheal.agent.newtests.proof import remove_file
from selfheal.sandbox import STATE_DIR, ExecResult, Session

VALUE, OPAQUE, RAISES, TIMEOUT, CRASHED, BAD_INPUT, UNSTABLE, EXAMPLE, NOT_RUN = (
    "value",
    "opaque",
    "raises",
    "timeout",
    "crashed",
    "bad_input",
    "unstable",
    "example",
    "not_run",
)
MARK = "@@selfheal-probe@@ "
MAX_RUNS = 8  # restarts after hangs and crashes, per version of the code
SCRIPT = (Path(__file__).with_name("probe_script.py")).read_text(encoding="utf-8")
_jobs = itertools.count(1)


@dataclass(frozen=True)
class Outcome:
    """What one input did on one version of the code."""

    kind: str
    text: str = ""  # the repr of a value; the repr of what an example gave
    imports: tuple[str, ...] | None = ()  # what a test of the call and value imports; None: cannot
    exception: str = ""  # the type name, for RAISES
    mro: tuple[str, ...] = ()
    exception_import: str | None = ""  # "" builtin, None not importable
    ok: bool = False  # for EXAMPLE: the docstring's expectation held
    wrap: str = ""  # "list" when the function returned a generator, drained

    @property
    def key(self) -> tuple[str, ...] | None:
        """Equal keys mean the same observable behaviour; None for an input that says nothing."""
        if self.kind == VALUE:
            return (VALUE, self.text, self.wrap)
        if self.kind in (OPAQUE, EXAMPLE):
            return (self.kind, self.text, str(self.ok))
        if self.kind == RAISES:
            return (RAISES, self.exception)
        if self.kind in (TIMEOUT, CRASHED):
            return (self.kind,)
        return None


@dataclass(frozen=True)
class ProbeJob:
    targets: tuple[str, ...]  # candidate import lines for the function or its class
    bind: str
    member: str | None  # the method's name, when the target is a method
    file: str  # the changed file, relative to the workspace
    known_names: Mapping[str, str]
    modules: tuple[str, ...]  # where else to look for an importable name
    probes: tuple[dict[str, object], ...]
    call_timeout: float = 1.0
    import_timeout: float = 10.0
    repr_limit: int = 1000

    def payload(self, root: str, start: int) -> dict[str, object]:
        return {
            "root": root,
            "targets": list(self.targets),
            "bind": self.bind,
            "member": self.member,
            "file": posixpath.join(root, self.file),
            "known_names": dict(sorted(self.known_names.items())),
            "modules": list(self.modules),
            "probes": list(self.probes),
            "call_timeout": self.call_timeout,
            "import_timeout": self.import_timeout,
            "repr_limit": self.repr_limit,
            "start": start,
        }


@dataclass(frozen=True)
class ProbeRun:
    outcomes: Mapping[int, Outcome] = field(default_factory=dict)
    target: str | None = None  # the import line that reached the changed file
    errors: tuple[str, ...] = ()
    runs: int = 0


def run_probes(
    session: Session,
    python: str,
    job: ProbeJob,
    *,
    timeout: float,
    hash_seed: int,
    source_dirs: tuple[str, ...] = (),
) -> ProbeRun:
    root = str(session.root)
    env = {
        "PYTHONPATH": os.pathsep.join([root, *(posixpath.join(root, d) for d in source_dirs)]),
        # the same seed on both versions: set and dict-of-str orders cannot differ by chance
        "PYTHONHASHSEED": str(hash_seed),
        # the workspace's own modules are compiled from their text (the script's
        # `_workspace_from_source`), so nothing compiled may be written either
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
    }
    ids = [int(p["id"]) for p in job.probes]  # type: ignore[call-overload]
    outcomes: dict[int, Outcome] = {}
    target: str | None = None
    errors: tuple[str, ...] = ()
    deadline = time.monotonic() + timeout
    start, runs = 0, 0
    while start < len(ids) and runs < MAX_RUNS:
        remaining = deadline - time.monotonic()
        if remaining < 1:
            break
        relpath = f"{STATE_DIR}/tmp/edgecase-probe-{os.getpid()}-{next(_jobs)}.json"
        session.write_file(relpath, json.dumps(job.payload(root, start)), force=True)
        try:
            result = session.run(
                [python, "-c", SCRIPT, posixpath.join(root, relpath)], timeout=remaining, env=env
            )
        finally:
            _remove(session, python, relpath)
        runs += 1
        records = _records(result)
        header = next((r for r in records if "target" in r), None)
        if header is None:
            errors = (_failure(result),)
            break
        target, errors = header["target"], tuple(header.get("errors", ()))
        if target is None:
            break
        for record in records:
            if "id" in record:
                outcomes[int(record["id"])] = _outcome(record)
        pending = [i for i in ids[start:] if i not in outcomes]
        if any(r.get("done") for r in records) or not pending:
            break
        # the process ended on `pending[0]`: a hang the alarm could not stop, or a hard crash
        hung = result.timed_out or "Timeout (" in result.stderr
        outcomes[pending[0]] = Outcome(TIMEOUT if hung else CRASHED)
        start = ids.index(pending[0]) + 1
    for probe_id in ids:
        outcomes.setdefault(probe_id, Outcome(NOT_RUN))
    return ProbeRun(outcomes, target, errors, runs)


def _records(result: ExecResult) -> list[dict]:
    found = []
    for line in result.stdout.splitlines():
        if line.startswith(MARK):
            try:
                record = json.loads(line[len(MARK) :])
            except ValueError:
                continue  # a line cut by the output cap
            if isinstance(record, dict) and ("id" not in record or isinstance(record["id"], int)):
                found.append(record)
    return found


def _outcome(record: dict) -> Outcome:
    """The probe's record as a value. The code under test shares the process that wrote it, so
    every field is checked for its type rather than trusted."""
    imports = record.get("imports", ())
    mro = record.get("mro", ())
    line = record.get("import", "")
    return Outcome(
        kind=_text(record.get("kind")) or CRASHED,
        text=_text(record.get("repr")),
        imports=tuple(_text(i) for i in imports) if isinstance(imports, list | tuple) else None,
        exception=_text(record.get("type")),
        mro=tuple(_text(m) for m in mro) if isinstance(mro, list) else (),
        exception_import=line if isinstance(line, str) else None,
        ok=record.get("ok") is True,
        wrap=_text(record.get("wrap")),
    )


def _text(item: object) -> str:
    return item if isinstance(item, str) else ""


def _failure(result: ExecResult) -> str:
    tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
    if result.timed_out:
        return "the probe did not start in time"
    return "the probe could not run: " + (" | ".join(tail) if tail else f"exit code {result.returncode}")


def _remove(session: Session, python: str, relpath: str) -> None:
    """The script deletes its job file once read; this covers a script that never started."""
    if session.read_file(relpath) is None:
        return
    remove_file(session, python, relpath)
