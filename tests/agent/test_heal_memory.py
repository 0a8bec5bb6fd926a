"""Recall in model mode: the earlier heal's lesson reaches the debugger's and the generator's
prompts, and the report says it was recalled and whether it helped."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace
from selfheal.agent.loop import heal
from selfheal.agent.model.llm import Reply, ScriptedModel, Usage
from selfheal.agent.model.strategy import ModelSetup
from selfheal.agent.report.memory import LocalMemory
from selfheal.agent.report.recall import lesson_of
from selfheal.agent.report.reportjson import build_report
from selfheal.sandbox import LocalSandbox
from tests.agent.report.test_memory import record
from tests.agent.test_heal_model import BUGGY, CONCLUSION, FIXED, intervals_repo


def prompt_text(model: ScriptedModel, call: int = 0) -> str:
    return "\n".join(str(message.content) for message in model.calls[call]["messages"])


def test_a_recalled_lesson_reaches_the_model_and_the_report(tmp_path: Path) -> None:
    earlier = record(
        "e4r1i3r0", error_types=("AssertionError",), messages=("assert 2 == 1",),
        functions=("merge", "total_length"), paths=("intervals/core.py",),
        tests=("tests/test_merge.py::test_touching_intervals_merge",), families=("comparison-operator",),
        fix_sites=(("intervals/core.py", "merge"),),
        changed_lines=("-        if a.end < b.start:", "+        if a.end <= b.start:"),
    )  # fmt: skip
    unrelated = record(
        "0ther", error_types=("KeyError",), messages=("KeyError: 'port'",), functions=("read_config",),
        paths=("cfg/read.py",), tests=("tests/test_read.py::test_port",), families=("literal",),
        fix_sites=(("cfg/read.py", "read_config"),),
    )  # fmt: skip
    store = LocalMemory(tmp_path / "memory.jsonl")
    store.append(unrelated)
    store.append(earlier)
    debugger = ScriptedModel([Reply(json.dumps(CONCLUSION), usage=Usage(1400, 120))])
    generator = ScriptedModel([
        Reply("Merge touching intervals: compare with <=.\n\nintervals/core.py\n<<<<<<< SEARCH\n"
              + BUGGY + "=======\n" + FIXED + ">>>>>>> REPLACE\n", usage=Usage(1100, 70)),
    ])  # fmt: skip
    setup = ModelSetup(
        debugger=debugger, generator=generator, search_share=0.0, spec_tests=None, qa_adversarial=None,
        critic=None, judge=None, memory=None,
    )  # fmt: skip
    repo = intervals_repo(tmp_path)
    config = build_config(repo, {"python": sys.executable, "memory_path": store.path})
    result = heal(config, LocalSandbox(), Trace(), model=setup)

    assert result.status == "healed", result.error
    lesson = lesson_of(earlier)
    assert lesson.startswith(
        "A similar AssertionError in merge (intervals/core.py) was fixed by a comparison"
    )
    assert lesson in prompt_text(debugger)
    assert lesson in prompt_text(generator)
    memory = build_report(result)["memory"]
    assert [(r["id"], r["helped"]) for r in memory["recalled"]] == [("e4r1i3r0", True)]
    assert memory["store"] == "local"


def test_memory_off_recalls_nothing(tmp_path: Path) -> None:
    store = LocalMemory(tmp_path / "memory.jsonl")
    store.append(record("e4r1i3r0", functions=("merge",), paths=("intervals/core.py",)))
    debugger = ScriptedModel([Reply(json.dumps(CONCLUSION), usage=Usage(10, 10))])
    generator = ScriptedModel([
        Reply("intervals/core.py\n<<<<<<< SEARCH\n" + BUGGY + "=======\n" + FIXED + ">>>>>>> REPLACE\n"),
    ])  # fmt: skip
    setup = ModelSetup(
        debugger=debugger, generator=generator, search_share=0.0, spec_tests=None, qa_adversarial=None,
        critic=None, judge=None, memory=None,
    )  # fmt: skip
    repo = intervals_repo(tmp_path)
    (repo / "pyproject.toml").write_text("[tool.selfheal]\nmemory = false\n", encoding="utf-8")
    config = build_config(repo, {"python": sys.executable, "memory_path": store.path})
    assert config.memory is False
    result = heal(config, LocalSandbox(), Trace(), model=setup)
    assert result.status == "healed", result.error
    assert "A similar" not in prompt_text(debugger)
    assert build_report(result)["memory"] == {"version": 1, "store": "off", "recalled": []}
