"""The debugger's tools for a ReAct loop (think, call a tool, read what it observed), assembled.

    run_snippet  run_tests  inspect_function  read_file  search_code  diff_iterations  localization

Every tool works on the heal's own state: its sandbox session (code runs there, never on the
host), its test runner, the project's source texts, the SBFL ranking and the repair attempts so
far. Arguments come from a model, so they are data: the `Toolbox` (toolbox.py) checks them against
each tool's JSON Schema first; nothing is ever handed to a shell (argv lists only), test ids may
not look like options, paths are normalised and confined to the workspace. A failed command, a
missing file or a timeout is an `Observation` with `ok=False`, never an exception.

Tools whose output can be long say how to shorten it for a small model's context (the
`Observation.shorten` the Toolbox calls with a token budget): run_snippet keeps a traceback's
frames that matter, run_tests the failures before the passes, read_file the file's outline and
the line numbers of what it left out.

run_snippet and run_tests run code in the sandbox session (runtools.py); the others read the
project, the ranking and the attempts (readtools.py).
"""

from __future__ import annotations

from selfheal.agent.localize.codeindex import CodeBase, CodeIndex
from selfheal.agent.localize.spectrum import Localization
from selfheal.agent.model.history import History
from selfheal.agent.model.readtools import (
    DiffIterations,
    InspectFunction,
    ReadFile,
    SearchCode,
    ShowLocalization,
)
from selfheal.agent.model.runtools import RunSnippet, RunTests
from selfheal.agent.model.toolbox import OUTPUT_LIMIT, Toolbox
from selfheal.agent.run.testrun import TestRunner
from selfheal.sandbox import Session


def debugger_toolbox(
    *,
    session: Session,
    runner: TestRunner,
    codebase: CodeBase,
    localization: Localization,
    history: History,
    python: str | None = None,
    output_limit: int = OUTPUT_LIMIT,
) -> Toolbox:
    """The seven tools on one heal's state; `python` defaults to the test runner's interpreter."""
    files = codebase.files
    return Toolbox(
        [
            RunSnippet(session, python or runner.python, source_dirs=runner.source_dirs),
            RunTests(runner, known_files=files),
            InspectFunction(CodeIndex(codebase)),
            ReadFile(session, codebase),
            SearchCode(codebase),
            DiffIterations(history),
            ShowLocalization(localization, files),
        ],
        output_limit=output_limit,
    )
