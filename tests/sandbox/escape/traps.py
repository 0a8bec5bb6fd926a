"""Family `traps`: symlinks, hard links and FIFOs planted where selfheal (on the host) writes or reads.

Where selfheal writes: the generated test file (`tests/test_selfheal_<function>.py`, named in
agent/newtests/proof.py's new_test_path), the files of its state folder `.selfheal-sandbox/` (JUnit XML,
coverage JSON and its file list, the runtime helpers), a source file it patches. Where it reads:
the JUnit XML and the coverage JSON of every run. The targets are the harness's decoys (outside
the workspace, content known), the 0600 canary file (shaped as JUnit XML whose failure message is
a canary secret) and /etc/shadow. Traps are planted after the baseline run, whose JUnit XML carries
the case's report. Copied into the case's repository as escape_attacks.py; runs inside the sandbox.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shlex

import escape_kit as kit

FAMILY = "traps"
GENERATED = [f"tests/test_selfheal_inc{suffix}.py" for suffix in ("", "_2", "_3", "_4")]
CASES = [
    {
        "id": "trap-generated-test",
        "title": "symlinks at the generated test's path (tests/test_selfheal_inc.py) to a decoy outside",
        "attack": "generated_test",
        # the planted links are not the repository's tests; only selfheal's proof run names them
        "conftest": "collect_ignore_glob = ['tests/test_selfheal_*.py']\n",
        "package": "inc",  # a function with an argument gets edge-case tests, so a proof run
    },
    {
        "id": "trap-state-files",
        "title": "symlinks to decoys at the coming runs' JUnit XML, coverage files and runtime helpers",
        "attack": "state_files",
    },
    {
        "id": "trap-read-redirect",
        "title": "each run's JUnit XML made a symlink to the canary file, its coverage JSON to /etc/shadow",
        "attack": "note_planted",
        "each_run": "redirect_reads",
    },
    {
        "id": "trap-hardlinks",
        "title": "a source file replaced by a hard link to a decoy, each JUnit XML by one to the canary file",
        "attack": "hardlink_source",
        "each_run": "hardlink_reads",
    },
    {
        "id": "trap-source-symlink",
        "title": "the source file selfheal patches replaced by a symlink to a decoy outside",
        "attack": "symlink_source",
    },
    {
        "id": "trap-fifo",
        "title": "each run's JUnit XML and coverage JSON replaced by a FIFO (a read that never ends)",
        "attack": "note_planted",
        "each_run": "fifo_reads",
    },
]

SOURCE = "calc/__init__.py"


def _plant_symlink(findings: kit.Findings, target: str, relpath: str) -> None:
    path = kit.HERE / relpath
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".escape-tmp")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        os.symlink(target, tmp)
        os.replace(tmp, path)
    except OSError as exc:
        findings.stopped(f"symlink {relpath}", exc)


def _after_this_run(action) -> None:
    """Plant once this test process is done: its JUnit XML (the report) is written by then."""
    atexit.register(action)


def generated_test(findings: kit.Findings) -> None:
    for relpath in GENERATED:
        _plant_symlink(findings, kit.CONFIG["decoys"]["generated"], relpath)
    findings.stopped("planted symlinks at " + ", ".join(GENERATED[:2]) + ", ...")


def state_files(findings: kit.Findings) -> None:
    decoys = kit.CONFIG["decoys"]

    def plant() -> None:
        for number in range(2, 80):
            for name, decoy in (
                (f"junit-{number}.xml", "junit"),
                (f"coverage-{number}.json", "coverage"),
                (f"coverage-{number}.files", "listing"),
            ):
                _plant_symlink(findings, decoys[decoy], f".selfheal-sandbox/runs/{name}")
        for name in ("selfheal_pytest_plugin.py", "selfheal_screen_worker.py"):
            _plant_symlink(findings, decoys["runtime"], f".selfheal-sandbox/runtime/{name}")

    _after_this_run(plant)
    findings.stopped("symlinks planted at .selfheal-sandbox/runs/{junit,coverage}-2..79 and runtime/*")


def note_planted(findings: kit.Findings) -> None:
    findings.stopped("traps are planted at the end of every later run")


def _run_outputs() -> tuple[str | None, str | None]:
    """This run's JUnit XML and coverage JSON, as selfheal told pytest."""
    junit = None
    for arg in shlex.split(os.environ.get("PYTEST_ADDOPTS", "")):
        if arg.startswith("--junitxml="):
            junit = arg.split("=", 1)[1]
    return junit, os.environ.get("SELFHEAL_COVERAGE_OUT")


def _replace(path: str | None, make) -> None:
    if not path:
        return
    tmp = path + ".escape-tmp"
    with contextlib.suppress(OSError):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        make(tmp)
        os.replace(tmp, path)


def redirect_reads() -> None:
    junit, coverage = _run_outputs()
    _after_this_run(lambda: _replace(junit, lambda tmp: os.symlink(kit.CONFIG["canary_file"], tmp)))
    _after_this_run(lambda: _replace(coverage, lambda tmp: os.symlink("/etc/shadow", tmp)))


def hardlink_source(findings: kit.Findings) -> None:
    decoy = kit.CONFIG["decoys"]["source-hardlink"]

    def plant() -> None:
        _replace(str(kit.HERE / SOURCE), lambda tmp: os.link(decoy, tmp))

    try:  # the same check the plant makes later, so the report says whether it can work
        os.link(decoy, kit.HERE / ".escape-link-probe")
        os.unlink(kit.HERE / ".escape-link-probe")
    except OSError as exc:
        findings.stopped("hard link to the source decoy", exc)
        return
    findings.got(f"hard-linked a decoy outside the workspace ({decoy}) into it")
    _after_this_run(plant)


def hardlink_reads() -> None:
    junit, _ = _run_outputs()
    _after_this_run(lambda: _replace(junit, lambda tmp: os.link(kit.CONFIG["canary_file"], tmp)))


def symlink_source(findings: kit.Findings) -> None:
    decoy = kit.CONFIG["decoys"]["source-symlink"]
    _after_this_run(lambda: _plant_symlink(findings, decoy, SOURCE))
    findings.stopped(f"{SOURCE} becomes a symlink to {decoy} after the baseline")


def fifo_reads() -> None:
    junit, coverage = _run_outputs()
    for path in (junit, coverage):
        _after_this_run(lambda path=path: _replace(path, os.mkfifo))
