"""The debugger's tools, on a real repo in a real local sandbox session."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from selfheal.agent.config import DEFAULT_PROTECTED
from selfheal.agent.localize.codeindex import CodeBase, CodeIndex
from selfheal.agent.localize.spectrum import Localization, SuspiciousLine, Target, localize, source_files
from selfheal.agent.model.history import Attempt, History
from selfheal.agent.model.llm.base import ToolCall, ToolSpec
from selfheal.agent.model.readtools import (
    DiffIterations,
    InspectFunction,
    ReadFile,
    SearchCode,
    ShowLocalization,
    confine_path,
)
from selfheal.agent.model.runtools import RunSnippet, RunTests, check_test_id
from selfheal.agent.model.toolbox import Observation, Toolbox, cap_text
from selfheal.agent.model.tools import debugger_toolbox
from selfheal.agent.run.testcommand import TestCommand
from selfheal.agent.run.testrun import TestRunner
from selfheal.agent.run.workspace import Origin, Workspace
from selfheal.sandbox import LocalSandbox, Session

REPO = {
    "shop/__init__.py": "",
    "shop/cart.py": '''
        """Carts and prices."""


        class Cart:
            """A shopping cart."""

            def __init__(self):
                self.items = []

            def add(self, price):
                self.items.append(price)
                return self

            def total(self) -> int:
                """Sum of the prices in the cart."""
                return sum(self.items) - 1


        def clamp(value, low, high):
            if value < low:
                return low
            if value > high:
                return high
            return value
        ''',
    "shop/checkout.py": """
        from shop.cart import Cart


        def checkout(prices):
            cart = Cart()
            for price in prices:
                cart.add(price)
            return cart.total() + 2
        """,
    "tests/test_cart.py": """
        from shop.cart import Cart, clamp


        def test_total():
            assert Cart().add(2).add(3).total() == 5


        def test_clamp():
            assert clamp(5, 0, 10) == 5


        def test_count():
            assert len(Cart().add(1).items) == 1
        """,
    "tests/test_checkout.py": """
        from shop.checkout import checkout


        def test_checkout():
            assert checkout([1, 2]) == 5
        """,
}
TOTAL_LINE = 16  # `return sum(self.items) - 1` in shop/cart.py


@dataclass
class Heal:
    workspace: Workspace
    session: Session
    runner: TestRunner
    codebase: CodeBase

    def toolbox(self, localization: Localization | None = None, history: History | None = None) -> Toolbox:
        return debugger_toolbox(
            session=self.session,
            runner=self.runner,
            codebase=self.codebase,
            localization=localization or Localization((), (), False),
            history=history or History(),
        )


@pytest.fixture
def heal(make_repo) -> Iterator[Heal]:
    workspace = Workspace.create(Origin.inspect(make_repo(REPO)))
    session = LocalSandbox().start(workspace.root)
    try:
        runner = TestRunner(
            session,
            TestCommand.parse("python -m pytest", sys.executable, workspace.root),
            sys.executable,
            timeout=60,
            test_timeout=10,
        )
        sources = workspace.base_texts(source_files(workspace.files, DEFAULT_PROTECTED))
        yield Heal(workspace, session, runner, CodeBase.from_workspace(workspace, sources))
    finally:
        session.close()
        workspace.cleanup()


def call(toolbox: Toolbox, name: str, **arguments) -> Observation:
    return toolbox.call(ToolCall(f"call-{len(toolbox.log)}", name, arguments))


def test_the_codebase_splits_sources_from_read_only_tests(heal):
    assert sorted(heal.codebase.sources) == ["shop/__init__.py", "shop/cart.py", "shop/checkout.py"]
    assert sorted(heal.codebase.readonly) == ["tests/test_cart.py", "tests/test_checkout.py"]
    assert heal.codebase.sources["shop/cart.py"].splitlines()[TOTAL_LINE - 1].strip() == (
        "return sum(self.items) - 1"
    )


# -- run_snippet --------------------------------------------------------------------------------
def test_run_snippet_imports_the_project_and_prints(heal):
    tool = RunSnippet(heal.session, sys.executable)
    seen = tool.run({"code": "from shop.cart import Cart\nprint('total:', Cart().add(2).add(3).total())"})
    assert seen.ok
    assert seen.text.startswith("exit code 0 in ")
    assert "stdout:\ntotal: 4" in seen.text
    assert seen.data["exit_code"] == 0
    assert seen.data["stdout"] == "total: 4\n"
    assert seen.data["timed_out"] is False


def test_run_snippet_exception_is_an_observation_with_the_traceback(heal):
    tool = RunSnippet(heal.session, sys.executable)
    seen = tool.run({"code": "from shop.cart import clamp\nclamp(None, 0, 1)"})
    assert not seen.ok
    assert seen.text.startswith("exit code 1 in ")
    assert "Traceback (most recent call last):" in seen.text
    # workspace paths come back relative to the project root
    assert 'File "shop/cart.py", line 20, in clamp' in seen.text
    assert "TypeError: '<' not supported between instances of 'NoneType' and 'int'" in seen.text
    assert str(heal.session.root) not in seen.text


def test_run_snippet_timeout_kills_the_snippet(heal):
    tool = RunSnippet(heal.session, sys.executable)
    seen = tool.run(
        {"code": "import time\nprint('start', flush=True)\nwhile True:\n    time.sleep(0.05)", "timeout_s": 1}
    )
    assert not seen.ok
    assert seen.data["timed_out"] is True
    assert seen.data["duration_s"] < 10
    assert seen.text.startswith("timed out after 1s: the snippet was killed (exit code -9)")
    assert "stdout:\nstart" in seen.text


def test_run_snippet_missing_interpreter_is_an_observation(heal):
    seen = RunSnippet(heal.session, "/nonexistent/python3").run({"code": "print(1)"})
    assert not seen.ok
    assert seen.text == "could not start the interpreter: selfheal: command not found: /nonexistent/python3"


# -- run_tests ----------------------------------------------------------------------------------
def test_run_tests_reports_each_outcome_and_the_failure(heal):
    tool = RunTests(heal.runner, known_files=heal.codebase.files)
    seen = tool.run({"test_ids": ["tests/test_cart.py::test_total", "tests/test_cart.py::test_clamp"]})
    assert seen.ok  # the tests ran; that one fails is what the model wanted to know
    lines = seen.text.splitlines()
    assert lines[0].startswith("2 tests: 1 failed, 1 passed (")
    assert lines[1].startswith("FAILED tests/test_cart.py::test_total (")
    assert lines[2:4] == ["    assert 4 == 5", "     +  where 4 = total()"]
    assert "    at tests/test_cart.py:5 in test_total" in lines
    assert any(line.startswith("PASSED tests/test_cart.py::test_clamp (") for line in lines)
    assert seen.data["outcomes"] == {
        "tests/test_cart.py::test_total": "failed",
        "tests/test_cart.py::test_clamp": "passed",
    }


def test_run_tests_a_file_id_runs_its_tests(heal):
    seen = RunTests(heal.runner).run({"test_ids": ["tests/test_checkout.py"]})
    assert seen.data["outcomes"] == {"tests/test_checkout.py::test_checkout": "failed"}
    lines = seen.text.splitlines()
    assert lines[0].startswith("1 tests: 1 failed (")
    assert lines[1].startswith("FAILED tests/test_checkout.py::test_checkout (")
    assert lines[2:] == [
        "    assert 4 == 5",
        "     +  where 4 = checkout([1, 2])",
        "    at tests/test_checkout.py:5 in test_checkout",
    ]


def test_run_tests_refuses_ids_that_are_not_test_ids(heal):
    tool = RunTests(heal.runner, known_files=heal.codebase.files)
    seen = tool.run({"test_ids": ["-x", "../elsewhere/test_a.py::t", "tests/test_nope.py::t", "/etc/passwd"]})
    assert not seen.ok
    assert seen.text.splitlines() == [
        "not run:",
        "  '-x': a test id may not start with '-' (options are not accepted)",
        "  '../elsewhere/test_a.py::t': refused: '../elsewhere/test_a.py' is outside the project; "
        "give a path inside it, e.g. pkg/core.py",
        "  'tests/test_nope.py::t': no such test file or folder in the project",
        "  '/etc/passwd': refused: '/etc/passwd' is absolute; give a path relative to the project root",
    ]
    assert heal.runner.runs == 0


def test_test_ids_are_normalised_and_checked():
    files = {"tests/test_a.py"}
    assert check_test_id("./tests/test_a.py::test_x[1-2]", files) == ("tests/test_a.py::test_x[1-2]", "")
    assert check_test_id("tests", files) == ("tests", "")
    assert check_test_id("tests/test_a.py::t\0", files)[0] is None
    assert check_test_id("--pdb", files)[0] is None
    assert check_test_id("tests/../../x.py::t", files)[0] is None


def test_run_tests_a_test_that_does_not_exist_is_reported(heal):
    seen = RunTests(heal.runner).run({"test_ids": ["tests/test_cart.py::test_nothing"]})
    assert not seen.ok
    assert seen.text.startswith("the tests could not be run (usage_error): pytest rejected its arguments:")
    assert "not found" in seen.text


# -- inspect_function ---------------------------------------------------------------------------
def test_inspect_function_shows_a_method_and_its_callers_across_files(heal):
    seen = InspectFunction(CodeIndex(heal.codebase)).run({"name": "Cart.total"})
    assert seen.ok
    lines = seen.text.splitlines()
    assert lines[:5] == [
        "method Cart.total in shop/cart.py:14-16",
        "def total(self) -> int",
        "docstring:",
        "    Sum of the prices in the cart.",
        "source:",
    ]
    assert "16 |         return sum(self.items) - 1" in lines
    assert lines[lines.index("callers (2, matched by name `total`):") + 1 :] == [
        "  shop/checkout.py:8 in checkout: return cart.total() + 2",
        "  tests/test_cart.py:5 in test_total [test]: assert Cart().add(2).add(3).total() == 5",
    ]
    assert seen.data == {"matches": [{"file": "shop/cart.py", "qualname": "Cart.total", "line": 14}]}


def test_inspect_function_finds_functions_classes_and_suggests_names(heal):
    tool = InspectFunction(CodeIndex(heal.codebase))
    clamp = tool.run({"name": "clamp", "file": "shop/cart.py"})
    assert clamp.text.splitlines()[:2] == [
        "function clamp in shop/cart.py:19-24",
        "def clamp(value, low, high)",
    ]
    assert "  tests/test_cart.py:9 in test_clamp [test]: assert clamp(5, 0, 10) == 5" in clamp.text

    cart = tool.run({"name": "shop.cart.Cart"})
    assert cart.text.splitlines()[0] == "class Cart in shop/cart.py:4-16"
    assert "methods: __init__ (line 7), add (line 10), total (line 14)" in cart.text
    assert "  shop/checkout.py:5 in checkout: cart = Cart()" in cart.text

    missing = tool.run({"name": "Cart.totl"})
    assert not missing.ok
    assert missing.text == "no function, method or class named `Cart.totl`; similar names: Cart.total"

    outside = tool.run({"name": "clamp", "file": "../shop/cart.py"})
    assert not outside.ok
    assert "outside the project" in outside.text


# -- read_file ----------------------------------------------------------------------------------
def test_read_file_ranges_with_line_numbers(heal):
    tool = ReadFile(heal.session, heal.codebase)
    seen = tool.run({"path": "shop/cart.py", "start_line": 14, "end_line": 16})
    assert seen.ok
    assert seen.text.splitlines() == [
        "shop/cart.py (24 lines), lines 14-16",
        "14 |     def total(self) -> int:",
        '15 |         """Sum of the prices in the cart."""',
        "16 |         return sum(self.items) - 1",
    ]
    whole = tool.run({"path": "./tests/test_checkout.py"})
    assert whole.text.splitlines()[0] == (
        "tests/test_checkout.py (5 lines), lines 1-5 [read-only: repairs may not change it]"
    )
    past = tool.run({"path": "shop/cart.py", "start_line": 40})
    assert not past.ok
    assert past.text == "shop/cart.py has only 24 lines; start_line 40 is past its end"


def test_read_file_refuses_paths_outside_the_workspace(heal):
    tool = ReadFile(heal.session, heal.codebase)
    for path in ("../repo/shop/cart.py", "shop/../../x.py", "/etc/passwd", "~/.ssh/id_rsa"):
        seen = tool.run({"path": path})
        assert not seen.ok, path
        assert seen.text.startswith("refused: "), seen.text
    os.symlink("/etc/hostname", heal.workspace.root / "leak.txt")
    seen = tool.run({"path": "leak.txt"})
    assert not seen.ok
    # the session reads only regular files and follows no link: to the tool it is not there
    assert seen.text == "no such file: leak.txt"


def test_read_file_missing_files_and_folders(heal):
    tool = ReadFile(heal.session, heal.codebase)
    assert (
        tool.run({"path": "shop/carts.py"}).text == "no such file: shop/carts.py; did you mean: shop/cart.py"
    )
    assert tool.run({"path": "tests"}).text == (
        "tests is a folder; its Python files: tests/test_cart.py, tests/test_checkout.py"
    )


def test_paths_are_normalised_and_confined():
    assert confine_path("shop//./cart.py") == ("shop/cart.py", "")
    assert confine_path("shop/../shop/cart.py") == ("shop/cart.py", "")
    assert confine_path(".")[0] is None
    assert confine_path("C:\\Windows\\x")[0] is None
    assert confine_path("a\0b")[0] is None


# -- search_code --------------------------------------------------------------------------------
def test_search_code_literal_and_regex(heal):
    tool = SearchCode(heal.codebase)
    literal = tool.run({"pattern": "cart.total()"})
    assert literal.text.splitlines() == [
        "1 matching lines for string 'cart.total()' (all shown; [test] = read-only)",
        "shop/checkout.py:8: return cart.total() + 2",
    ]
    regex = tool.run({"pattern": r"def \w+\(self", "regex": True})
    assert regex.text.splitlines()[1:] == [
        "shop/cart.py:7: def __init__(self):",
        "shop/cart.py:10: def add(self, price):",
        "shop/cart.py:14: def total(self) -> int:",
    ]
    tests = tool.run({"pattern": r"^def test_", "regex": True, "max_results": 2})
    assert tests.text.splitlines() == [
        "4 matching lines for regex '^def test_' (showing the first 2; [test] = read-only)",
        "tests/test_cart.py:4 [test]: def test_total():",
        "tests/test_cart.py:8 [test]: def test_clamp():",
    ]
    assert tests.data["total"] == 4
    nocase = tool.run({"pattern": "CART()", "ignore_case": True})
    assert "shop/checkout.py:5: cart = Cart()" in nocase.text


def test_search_code_bad_and_runaway_regexes_are_observations(heal):
    tool = SearchCode(CodeBase({"a.py": "x = '" + "a" * 40 + "b'\n"}), regex_timeout=1)
    bad = tool.run({"pattern": "(unclosed", "regex": True})
    assert not bad.ok
    assert bad.text.startswith("invalid regular expression: missing ), unterminated subpattern")
    runaway = tool.run({"pattern": "(a+)+$", "regex": True})
    assert not runaway.ok
    assert runaway.text == (
        "the regex ran longer than 1s and was stopped (nested repetition?); "
        "simplify it or search for a literal string"
    )
    nothing = tool.run({"pattern": "zzz"})
    assert nothing.ok
    assert nothing.text == "no match for string 'zzz' in 1 files"


# -- diff_iterations ----------------------------------------------------------------------------
def test_diff_iterations_renders_what_moved_between_attempts(heal):
    base = heal.codebase.sources["shop/cart.py"]

    def diff(*replacements: tuple[str, str]) -> str:
        text = base
        for old, new in replacements:
            text = text.replace(old, new, 1)
        return heal.workspace.diff({"shop/cart.py": text})

    targets = ("tests/test_cart.py::test_total", "tests/test_checkout.py::test_checkout")
    history = History(
        [
            Attempt("clamp: `<` -> `<=`", diff(("value < low", "value <= low")), (), targets),
            Attempt(
                "total: drop `- 1`",
                diff(("sum(self.items) - 1", "sum(self.items)")),
                targets[:1],
                targets[1:],
            ),
            Attempt(
                "total: drop `- 1`, clamp high",
                diff(("sum(self.items) - 1", "sum(self.items)"), ("value > high", "value >= high")),
                targets,
                (),
                ("tests/test_cart.py::test_clamp",),
                verdict="rejected: breaks test_clamp",
            ),
        ]
    )
    seen = DiffIterations(history).run({})
    assert seen.text.splitlines() == [
        "attempt 1 (clamp: `<` -> `<=`): shop/cart.py:20 `<`→`<=` | fixed 0, still failing 2, broken 0",
        "attempt 1 → 2 (total: drop `- 1`): shop/cart.py:16 `) - 1`→`)`; shop/cart.py:20 back to base"
        " | fixed 0→1, still failing 2→1, broken 0→0",
        "    newly fixed: test_total",
        "attempt 2 → 3 (total: drop `- 1`, clamp high): shop/cart.py:22 `>`→`>=`"
        " | fixed 1→2, still failing 1→0, broken 0→1 | verdict: rejected: breaks test_clamp",
        "    newly fixed: test_checkout",
        "    newly broken: test_clamp",
    ]
    assert (
        DiffIterations(history).run({"last": 1}).text.splitlines()[0] == "3 attempts; the first 2 not shown"
    )
    assert DiffIterations(History()).run({}).text == "no repair attempts yet"


def test_diff_iterations_insertions_deletions_and_rewrites(heal):
    cart, checkout = (heal.codebase.sources[p] for p in ("shop/cart.py", "shop/checkout.py"))
    guard = "    if value is None:\n        raise TypeError('value')\n    if value < low:\n"
    loop = "".join(
        f"        {line}\n"
        for line in ("total = 0", "for item in self.items:", "    total += item", "return total")
    )
    history = History(
        [
            Attempt(
                "guard", heal.workspace.diff({"shop/cart.py": cart.replace("    if value < low:\n", guard)})
            ),
            Attempt(
                "loop",
                heal.workspace.diff(
                    {
                        "shop/cart.py": cart.replace("        return sum(self.items) - 1\n", loop),
                        "shop/checkout.py": checkout.replace("+ 2", "+ 3"),
                    }
                ),
            ),
            Attempt(
                "drop",
                heal.workspace.diff({"shop/cart.py": cart.replace("        self.items.append(price)\n", "")}),
            ),
            Attempt(
                "again",
                heal.workspace.diff({"shop/cart.py": cart.replace("        self.items.append(price)\n", "")}),
            ),
        ]
    )
    assert [line.split(" | ")[0] for line in history.render().splitlines()] == [
        "attempt 1 (guard): shop/cart.py:20 added 2 lines: `if value is None:`…",
        "attempt 1 → 2 (loop): shop/cart.py:16 1 line → 4 lines: `total = 0`…; shop/cart.py:20 back to base; "
        "shop/checkout.py:8 `2`→`3`",
        "attempt 2 → 3 (drop): shop/cart.py:11 removed `self.items.append(price)`; "
        "shop/cart.py:16 back to base; shop/checkout.py:8 back to base",
        "attempt 3 → 4 (again): same change as before",
    ]


# -- localization -------------------------------------------------------------------------------
def test_localization_from_a_real_ranking(heal):
    sources = heal.codebase.sources
    baseline, coverage = heal.runner.run(coverage_files=sorted(sources))
    found = localize(
        failing=baseline.failing,
        passing=baseline.passing,
        outcomes=baseline.outcomes,
        coverage=coverage,
        sources=dict(sources),
        root=str(heal.session.root),
    )
    seen = ShowLocalization(found, sources).run({"limit": 3})
    lines = seen.text.splitlines()
    assert re.fullmatch(r"\d+ suspicious lines, ranked by coverage and tracebacks; the top 3:", lines[0])
    assert lines[1].startswith(f" 1. shop/cart.py:{TOTAL_LINE} score ")
    assert lines[1].endswith("in Cart.total: return sum(self.items) - 1")
    assert len([ln for ln in lines if ln[:3].strip().rstrip(".").isdigit()]) == 3
    assert lines[-1].startswith("suspicious functions: Cart.total (shop/cart.py:16, ")


def test_localization_hand_built_and_empty():
    found = Localization(
        (SuspiciousLine("m.py", 2, 0.9, 1.0, 0.67, "area"),),
        (Target("m.py", "area", 2, 0.9),),
        True,
    )
    seen = ShowLocalization(found, {"m.py": "def area(w, h):\n    return w + h\n"}).run({})
    assert seen.text.splitlines() == [
        "1 suspicious lines, ranked by coverage and tracebacks; the top 1:",
        " 1. m.py:2 score 0.90 (sbfl 1.00, traceback 0.67) in area: return w + h",
        "suspicious functions: area (m.py:2, 0.90)",
    ]
    empty = ShowLocalization(Localization((), (), False), {}).run({})
    assert not empty.ok


# -- the toolbox --------------------------------------------------------------------------------
def test_toolbox_offers_the_seven_tools(heal):
    toolbox = heal.toolbox()
    assert [s.name for s in toolbox.specs] == [
        "run_snippet",
        "run_tests",
        "inspect_function",
        "read_file",
        "search_code",
        "diff_iterations",
        "localization",
    ]
    assert all(s.parameters["type"] == "object" and s.description for s in toolbox.specs)


def test_toolbox_answers_bad_calls_with_observations(heal):
    toolbox = heal.toolbox()
    unknown = call(toolbox, "run_shell", command="rm -rf /")
    assert not unknown.ok
    assert unknown.text == (
        "unknown tool `run_shell`; the tools are: run_snippet, run_tests, inspect_function, "
        "read_file, search_code, diff_iterations, localization"
    )
    missing = call(toolbox, "run_snippet", timeout_s=3)
    assert missing.text.splitlines()[:2] == [
        "bad arguments for run_snippet: missing required argument `code`",
        "expected run_snippet(code: string, timeout_s?: number 0..30)",
    ]
    wrong = call(toolbox, "run_snippet", code="print(1)", timeout_s="soon")
    assert wrong.text.splitlines()[0] == (
        "bad arguments for run_snippet: argument `timeout_s`: 'soon' is not of type 'number'"
    )
    too_long = call(toolbox, "run_snippet", code="print(1)", timeout_s=31)
    assert too_long.text.splitlines()[0] == (
        "bad arguments for run_snippet: argument `timeout_s`: 31 is greater than the maximum of 30"
    )
    item = call(toolbox, "run_tests", test_ids=["tests/test_cart.py", 7])
    assert item.text.splitlines()[:2] == [
        "bad arguments for run_tests: argument `test_ids[1]`: 7 is not of type 'string'",
        "expected run_tests(test_ids: list[string] (1..20 items))",
    ]
    extra = call(toolbox, "read_file", path="shop/cart.py", encoding="latin-1")
    assert extra.text.splitlines()[0] == "bad arguments for read_file: unknown argument `encoding`"
    assert not any(r.ok for r in toolbox.log)
    assert heal.runner.runs == 0


def test_toolbox_caps_output_and_logs_every_call(heal):
    heal.session.write_file("big.txt", "".join(f"line {n}\n" for n in range(1, 2001)))
    toolbox = Toolbox([ReadFile(heal.session)], output_limit=1024)
    seen = call(toolbox, "read_file", path="big.txt", start_line=1, end_line=400)
    assert len(seen.text.encode()) <= 1024
    assert seen.text.startswith("big.txt (2000 lines), lines 1-400\n  1 | line 1\n")
    assert seen.text.endswith("398 | line 398\n399 | line 399\n400 | line 400")
    assert "bytes cut …" in seen.text
    small = call(toolbox, "read_file", path="big.txt", start_line=3.0, end_line=3)  # 3.0 is an integer
    missing = call(toolbox, "read_file", path="nope.txt")
    assert [(r.tool, r.arguments, r.ok, r.truncated) for r in toolbox.log] == [
        ("read_file", {"path": "big.txt", "start_line": 1, "end_line": 400}, True, True),
        ("read_file", {"path": "big.txt", "start_line": 3, "end_line": 3}, True, False),
        ("read_file", {"path": "nope.txt"}, False, False),
    ]
    assert all(r.duration_s >= 0 for r in toolbox.log)
    assert small.text.splitlines()[1] == "3 | line 3"
    assert missing.text == "no such file: nope.txt"


def test_toolbox_turns_a_crashing_tool_into_an_observation():
    class Exploding:
        spec = ToolSpec("explode", "Always raises.", {"type": "object", "properties": {}})

        def run(self, arguments):
            raise RuntimeError("kaboom")

    toolbox = Toolbox([Exploding()])
    seen = toolbox.call(ToolCall("1", "explode", {}))
    assert not seen.ok
    assert seen.text == "explode failed inside selfheal (RuntimeError: kaboom); try another tool"
    assert toolbox.log[0].ok is False


def test_cap_text_keeps_head_and_tail():
    text = "".join(f"{n:04d}\n" for n in range(2000))  # 10 000 bytes
    capped, cut = cap_text(text, 200)
    assert len(capped.encode()) <= 200
    assert capped.startswith("0000\n0001\n")
    assert capped.endswith("1998\n1999\n")
    assert f"… {cut} bytes cut …\n" in capped
    assert cut == len(text) - len(capped.replace(f"… {cut} bytes cut …\n", ""))
    assert cap_text("short", 200) == ("short", 0)


def test_confine_path_refuses_what_is_no_project_path_and_says_what_to_give() -> None:
    from selfheal.agent.model.readtools import confine_path

    assert confine_path("./pkg/../pkg/core.py") == ("pkg/core.py", "")
    assert confine_path(".git/config")[1].startswith("refused: '.git/config' is inside .git/")
    assert confine_path("pkg/.git/HEAD")[0] is None
    assert "NUL byte or a line break" in confine_path("pkg/core.py\0/../../etc/passwd")[1]
    refused = confine_path("a/" * 50_000)[1]
    assert refused.startswith("refused: the path is too long (100000 characters") and len(refused) < 400
    assert "too long" in confine_path("x" * 300)[1]  # one name longer than a filesystem allows
    assert confine_path("")[1].startswith("a path must not be empty")
