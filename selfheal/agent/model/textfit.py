"""Fitting texts and conversations into a model's context window, counted in tokens.

    estimate_tokens(text)                         a count that errs high, without a tokenizer
    token_counter(provider)                       the provider's exact count where it has one
    fit_text / fit_traceback / fit_source         one text within max_tokens; cuts are marked
    fit_messages(messages, context_tokens, reserve_for_answer)   a chat history within a context

A small local model (llama.cpp, 4096 tokens) refuses a request whose prompt is longer than its
context, and the ReAct debugger's conversation grows with every tool result. Everything here
keeps the parts a debugging model needs (the exception, the project frames, the lines around
the suspect, the most recent turns) and says what it left out, with line numbers, so the model
can ask for it again.

A provider may count exactly: `count_tokens(text) -> int | None` (None: it cannot) and a
`context_tokens` attribute are optional; providers without them are never fitted by context.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from selfheal.agent.model.llm.base import Message, TokenCounting, ToolSpec
from selfheal.agent.model.llm.toolprompt import tool_instructions

CountFn = Callable[[str], int]

# What a chat template adds around one message (role markers, separators), and around a request
# (BOS, the assistant's opening); generous for ChatML, Llama 3, Mistral and Anthropic's turns.
MESSAGE_TOKENS = 8
TOOL_RESULT_TOKENS = 16  # "Result of <tool> (call <id>):" where tools are emulated in the prompt
REQUEST_TOKENS = 16
TOOLS_TOKENS = 64  # a provider's own tool-use preamble beyond the tool descriptions

OBSERVATION_FLOOR = 128  # an earlier tool result is not shortened below this (a stub says nothing)
TASK_FLOOR = 256  # nor the task (the first user message)
LINE_FLOOR = 64  # a line is never cut shorter than this many tokens (a long path, a message)
TRACEBACK_START = "Traceback (most recent call last):"


# -- counting ---------------------------------------------------------------------------------

_PIECE = re.compile(
    r"(?P<alnum>[A-Za-z0-9]+)|(?P<space>[ \t]+)|(?P<newline>\r\n|\r|\n)"
    r"|(?P<punct>[!-/:-@\[-`{-~]+)|(?P<other>.)",
    re.DOTALL,
)
_CASE_RUN = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")
_VOWEL = re.compile(r"[aeiouyAEIOUY]")
_UNJOINED = frozenset("0123456789 \t\r\n")  # a space before these (or at the end) is a token


def estimate_tokens(text: str) -> int:
    """A token count for `text` that errs high: by character class, not by a vocabulary.

    Calibrated on SmolLM2's byte-level BPE (49k entries) over ~4,000 chunks (1 to 150 lines) of
    the standard library, pip, jsonschema and this project, plus tracebacks, JSON, hex digests
    and base64 keys: never below the real count of a chunk of code, about 1.4 times it on
    average. Larger vocabularies (Llama 3, Qwen) count fewer tokens still.

    Costs: a word of letters one token per 4 (per 2 all in capitals, per 1.5 without a vowel:
    acronyms and abbreviations split badly); digits, and letters mixed with digits or with
    random case (hex, keys), one per character; punctuation one per 1.5; indentation one per 8
    spaces, the last space joining the word after it; a line break one; non-ASCII one per UTF-8
    byte; 3 for the text as a whole (short texts round up worst).
    """
    if not text:
        return 0
    total = 3
    for match in _PIECE.finditer(text):
        piece, kind = match.group(), match.lastgroup
        if kind == "alnum":
            runs = _CASE_RUN.findall(piece) if piece.isalpha() else []
            if runs and not (len(runs) >= 3 and len(piece) < 3 * len(runs)):
                total += sum(_word_tokens(run) for run in runs)
            else:
                total += len(piece)
        elif kind == "space":
            following = text[match.end() : match.end() + 1]
            joins = bool(following) and following not in _UNJOINED
            total += math.ceil((len(piece) - joins) / 8)
        elif kind == "newline":
            total += 1
        elif kind == "punct":
            total += math.ceil(len(piece) / 1.5)
        else:
            total += len(piece.encode("utf-8"))
    return total


def _word_tokens(run: str) -> int:
    if not _VOWEL.search(run):
        return math.ceil(len(run) / 1.5)
    if run.isupper() and len(run) > 1:
        return math.ceil(len(run) / 2)
    return math.ceil(len(run) / 4)


def context_tokens_of(provider: object) -> int | None:
    """The provider's context window in tokens, when it knows it (an optional attribute)."""
    value = getattr(provider, "context_tokens", None)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def token_counter(provider: object | None = None) -> CountFn:
    """A counting function for `provider`: its exact count where it has one, else the estimate.
    Counts are cached by text: a conversation is counted again before every call."""
    exact = provider.count_tokens if isinstance(provider, TokenCounting) else None
    cache: dict[str, int] = {}

    def count(text: str) -> int:
        if not text:
            return 0
        known = cache.get(text)
        if known is None:
            counted = exact(text) if exact is not None else None
            known = counted if counted is not None else estimate_tokens(text)
            if len(cache) > 4096:
                cache.clear()
            cache[text] = known
        return known

    return count


def message_tokens(message: Message, count: CountFn = estimate_tokens) -> int:
    """What one message takes in a request: its text, its tool calls, the template around it."""
    if message.native:
        body = count(json.dumps(list(message.native), ensure_ascii=False))
    else:
        body = count(message.content)
        if message.tool_calls:
            calls = [{"name": c.name, "arguments": c.arguments} for c in message.tool_calls]
            body += count(json.dumps({"tool_calls": calls}, ensure_ascii=False))
    return body + MESSAGE_TOKENS + (TOOL_RESULT_TOKENS if message.role == "tool" else 0)


def tools_tokens(
    tools: Sequence[ToolSpec] | None, schema: dict[str, Any] | None = None, count: CountFn = estimate_tokens
) -> int:
    """What offering `tools` (and asking for `schema`) adds to a request: their descriptions as a
    prompt-emulating provider writes them, plus a provider's own preamble."""
    if tools:
        return count(tool_instructions(list(tools), schema)) + TOOLS_TOKENS
    if schema is not None:
        return count(json.dumps(schema, sort_keys=True)) + TOOLS_TOKENS
    return 0


def request_tokens(
    messages: Iterable[Message],
    tools: Sequence[ToolSpec] | None = None,
    schema: dict[str, Any] | None = None,
    count: CountFn = estimate_tokens,
) -> int:
    """The size of one request: every message, the tools, the request's own frame."""
    return (
        sum(message_tokens(m, count) for m in messages) + tools_tokens(tools, schema, count) + REQUEST_TOKENS
    )


# -- fitting one text -------------------------------------------------------------------------


def fit_lines(
    lines: Sequence[str],
    priorities: Sequence[float],
    max_tokens: int,
    *,
    count: CountFn = estimate_tokens,
    marker: Callable[[int, int], str] | None = None,
) -> str:
    """The lines with the lowest priority values that fit in `max_tokens`, in their order, each
    run of left-out lines replaced by `marker(first, last)` (0-based indexes, inclusive)."""
    mark = marker or _lines_marker
    order = sorted(range(len(lines)), key=lambda i: (priorities[i], i))

    def render(keep: int) -> str:
        kept = set(order[:keep])
        out: list[str] = []
        gap_start = None
        for index, line in enumerate(lines):
            if index in kept:
                if gap_start is not None:
                    out.append(mark(gap_start, index - 1))
                    gap_start = None
                out.append(line)
            elif gap_start is None:
                gap_start = index
        if gap_start is not None:
            out.append(mark(gap_start, len(lines) - 1))
        return "\n".join(out)

    low, high = 0, len(lines)  # the most lines kept that fit: a binary search on a near-monotone count
    if count(render(high)) <= max_tokens:
        return render(high)
    while low < high - 1:
        middle = (low + high) // 2
        if count(render(middle)) <= max_tokens:
            low = middle
        else:
            high = middle
    for keep in range(low, -1, -1):
        text = render(keep)
        if count(text) <= max_tokens:
            return text
    return ""


def _lines_marker(first: int, last: int) -> str:
    cut = last - first + 1
    return f"... {cut} line{'s' if cut != 1 else ''} omitted ..."


def cut_line(line: str, max_tokens: int, count: CountFn = estimate_tokens) -> str:
    """One long line within `max_tokens`: two thirds of head and one of tail around a marker."""
    if count(line) <= max_tokens:
        return line
    low, high = 0, len(line)
    best = f"... {len(line)} characters omitted ..."
    while low < high:  # the longest kept part that fits
        keep = (low + high + 1) // 2
        head, tail = keep - keep // 3, keep // 3
        text = f"{line[:head]} ... {len(line) - keep} characters omitted ... {line[len(line) - tail :]}"
        if count(text) <= max_tokens:
            low, best = keep, text
        else:
            high = keep - 1
    return best


def _cut_long_lines(lines: list[str], max_tokens: int, count: CountFn) -> list[str]:
    """No line of several may take more than a third of the budget (a huge repr, a minified file),
    unless it is short anyway: an exception's message cut to its marker would say nothing."""
    limit = max(max_tokens // min(max(len(lines), 1), 3), LINE_FLOOR)
    return [cut_line(line, limit, count) for line in lines]


def fit_text(text: str, max_tokens: int, *, count: CountFn = estimate_tokens) -> str:
    """`text` within `max_tokens`: its first lines and its last ones (two from the head for each
    one from the tail), the middle replaced by `... N lines omitted ...`."""
    if count(text) <= max_tokens:
        return text
    lines = _cut_long_lines(text.splitlines(), max_tokens, count)
    n = len(lines)
    priorities = [min(i, 2 * (n - 1 - i)) for i in range(n)]
    return fit_lines(lines, priorities, max_tokens, count=count)


# -- tracebacks -------------------------------------------------------------------------------

_FRAME = re.compile(r'^(?P<indent>\s*)File "(?P<file>[^"]+)", line \d+(?:, in .*)?$')
_CARETS = re.compile(r"^\s*[~^]+[\s~^]*$")
_REPEATED = re.compile(r"^\s*\[Previous line repeated \d+ more times?\]$")
_LIBRARY = re.compile(
    r"(?:site|dist)-packages[/\\]|[/\\]lib[/\\](?:python|pypy)\d[\d.]*[/\\]"
    r"|^<frozen |[/\\](?:_pytest|pluggy)[/\\]"
)


def is_library_file(path: str) -> bool:
    """A frame in an installed package or the standard library, not in the project."""
    return bool(_LIBRARY.search(path))


def fit_traceback(text: str, max_tokens: int, *, count: CountFn = estimate_tokens) -> str:
    """A Python traceback (or output holding one) within `max_tokens`.

    Kept, most important first: the first line and the exception line(s) after the last frame;
    the raising frame; frames in project files, the last ones first; then library and stdlib
    frames, the last ones first; other lines in between (chained exceptions). Left-out frames
    become `  ... 12 frames omitted ...`. Text without frames is fitted as plain text."""
    if count(text) <= max_tokens:
        return text
    # the ^^^^ under a frame's code only points at columns: the first thing to go, unmarked
    lines = [line for line in text.splitlines() if not _CARETS.match(line)]
    frames: list[tuple[int, int, bool]] = []  # (first line, last line, in the project)
    index = 0
    while index < len(lines):
        found = _FRAME.match(lines[index])
        if found is None:
            index += 1
            continue
        end = index + 1
        depth = len(found["indent"])
        while end < len(lines) and (
            _REPEATED.match(lines[end])
            or (lines[end].strip() and _indent(lines[end]) > depth and not _FRAME.match(lines[end]))
        ):
            end += 1
        frames.append((index, end - 1, not is_library_file(found["file"])))
        index = end
    if not frames:
        return fit_text(text, max_tokens, count=count)
    lines = _cut_long_lines(lines, max_tokens, count)  # after parsing: a cut frame line is no frame

    priorities: list[float] = [5.0] * len(lines)  # lines between frames: chained exceptions
    priorities[0] = 0
    after = frames[-1][1] + 1  # the exception: its first and last line above all
    for position, tail in enumerate(range(after, len(lines))):
        last = tail == len(lines) - 1
        priorities[tail] = 0 if position == 0 or last else 1 + position / len(lines)
    ranked = sorted(
        range(len(frames)),
        key=lambda f: (f != len(frames) - 1, not frames[f][2], -f),
    )
    for rank, frame in enumerate(ranked):
        first, last, _ = frames[frame]
        for line in range(first, last + 1):
            priorities[line] = 10 + rank + (line - first) / (last - first + 2)
    frame_at = {first: True for first, _, _ in frames}

    def marker(first: int, last: int) -> str:
        cut = sum(1 for line in range(first, last + 1) if line in frame_at)
        if cut:
            return f"  ... {cut} frame{'s' if cut != 1 else ''} omitted ..."
        return "  " + _lines_marker(first, last)

    return fit_lines(lines, priorities, max_tokens, count=count, marker=marker)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


# -- source -----------------------------------------------------------------------------------

_DEFINITION = re.compile(r"^\s*(?:async\s+def|def|class)\s")


def fit_source(
    text: str,
    max_tokens: int,
    focus_lines: Iterable[int] = (),
    *,
    first_line: int = 1,
    numbered: bool = False,
    count: CountFn = estimate_tokens,
) -> str:
    """Python source within `max_tokens`: the focus lines, the `def`/`class` lines enclosing
    them, then the lines nearest to them; left-out runs become `... lines 40-88 omitted ...`.

    Line numbers count from `first_line` (the text may be a part of a file). Without focus lines
    the outline (every def/class line) goes first, then the lines from the top. `numbered`
    writes kept lines as `12 | code`, the way read_file and inspect_function show source."""
    lines = text.splitlines()
    width = len(str(first_line + len(lines) - 1))

    def show(index: int, line: str) -> str:
        return f"{first_line + index:>{width}} | {line}" if numbered else line

    shown = [show(i, line) for i, line in enumerate(lines)]
    if count("\n".join(shown)) <= max_tokens:
        return "\n".join(shown)
    focus = sorted({n - first_line for n in focus_lines if 0 <= n - first_line < len(lines)})
    priorities: list[float]
    if focus:
        priorities = [
            2 + min(abs(i - f) for f in focus) + (0.5 if i < focus[0] else 0) for i in range(len(lines))
        ]
        for f in focus:
            priorities[f] = 0
            for depth, header in enumerate(_enclosing(lines, f)):  # the innermost first
                priorities[header] = min(priorities[header], 1 + depth / 100)
    else:
        priorities = [
            1 + i / len(lines) if _DEFINITION.match(line) else 2 + i for i, line in enumerate(lines)
        ]
    shown = _cut_long_lines(shown, max_tokens, count)

    def marker(first: int, last: int) -> str:
        cut = next((lines[i] for i in range(first, last + 1) if lines[i].strip()), "")
        pad = "" if numbered else " " * _indent(cut)  # at the depth where the cut begins
        a, b = first + first_line, last + first_line
        return f"{pad}... line {a} omitted ..." if a == b else f"{pad}... lines {a}-{b} omitted ..."

    return fit_lines(shown, priorities, max_tokens, count=count, marker=marker)


def _enclosing(lines: Sequence[str], index: int) -> list[int]:
    """The def/class lines enclosing line `index`, innermost first (by indentation)."""
    probe = index
    while probe < len(lines) and not lines[probe].strip():
        probe += 1
    depth = _indent(lines[probe]) if probe < len(lines) else 0
    if _DEFINITION.match(lines[index]):
        depth = _indent(lines[index])
    found = []
    for above in range(index - 1, -1, -1):
        line = lines[above]
        if line.strip() and _indent(line) < depth:
            depth = _indent(line)
            if _DEFINITION.match(line):
                found.append(above)
            if depth == 0:
                break
    return found


# -- conversations ----------------------------------------------------------------------------


@dataclass(frozen=True)
class FittedMessages:
    """A conversation fitted to a context: what to send, and what fitting it took."""

    messages: tuple[Message, ...]
    tokens: int  # the request as counted: messages + fixed_tokens + the request's frame
    budget: int  # context_tokens - reserve_for_answer
    shortened: int = 0  # messages whose text was shortened
    dropped: int = 0  # earlier turns left out (a model turn with its tool results and notes)

    @property
    def fits(self) -> bool:
        return self.tokens <= self.budget


def fit_messages(
    messages: Sequence[Message],
    context_tokens: int,
    reserve_for_answer: int,
    *,
    count: CountFn = estimate_tokens,
    fixed_tokens: int = 0,
) -> FittedMessages:
    """`messages` fitted into `context_tokens`, leaving `reserve_for_answer` for the answer and
    `fixed_tokens` for what else the request carries (the tools' descriptions).

    The system prompt is never changed and the task (the first user message) never dropped.
    In turn, until the request fits: the largest tool results of earlier turns are shortened
    (to OBSERVATION_FLOOR at least); earlier turns are left out whole, oldest first (an assistant
    turn goes with its tool results, so every tool_use keeps its tool_result), replaced by one
    note naming the calls left out; the latest turn's tool results are shortened; the task is
    shortened. If it still does not fit, `fits` is False: the caller must not send it."""
    budget = context_tokens - reserve_for_answer
    frame = fixed_tokens + REQUEST_TOKENS
    sized = [_Sized(m, message_tokens(m, count)) for m in messages]
    head_end = _head_end(messages)
    head, turns = sized[:head_end], _turns(sized[head_end:])
    note: _Sized | None = None
    dropped: list[list[_Sized]] = []
    shortened = 0

    def request() -> list[_Sized]:
        return head + ([note] if note else []) + [m for turn in turns for m in turn]

    def over() -> int:
        return frame + sum(m.tokens for m in request()) - budget

    def shorten(which: Sequence[list[_Sized]]) -> None:
        """The largest tool results of these turns first, each only as far as the overflow needs."""
        nonlocal shortened
        done: set[int] = set()
        while over() > 0:
            candidates = [
                (item.tokens, t, i)
                for t, turn in enumerate(which)
                for i, item in enumerate(turn)
                if item.message.role == "tool" and id(item) not in done and item.tokens > OBSERVATION_FLOOR
            ]
            if not candidates:
                return
            tokens, t, i = max(candidates)
            message = which[t][i].message
            frame_of_message = tokens - count(message.content)
            target = max(OBSERVATION_FLOOR, tokens - over()) - frame_of_message
            content = shorten_observation(message.content, target, count)
            if content != message.content:
                shorter = replace(message, content=content)
                which[t][i] = _Sized(shorter, message_tokens(shorter, count))
                shortened += 1
            done.add(id(which[t][i]))

    if over() > 0:
        shorten(turns[:-1])
    while over() > 0 and len(turns) > 1:
        dropped.append(turns.pop(0))
        text = _dropped_note([item.message for turn in dropped for item in turn], len(dropped))
        note = _Sized(Message("user", text), message_tokens(Message("user", text), count))
    if over() > 0 and turns:
        shorten(turns[-1:])
    task = next((i for i, item in enumerate(head) if item.message.role == "user"), None)
    if over() > 0 and task is not None:
        message, tokens = head[task].message, head[task].tokens
        target = max(TASK_FLOOR, tokens - over()) - (tokens - count(message.content))
        content = fit_text(message.content, target, count=count)
        if content != message.content:
            shorter = replace(message, content=content)
            head[task] = _Sized(shorter, message_tokens(shorter, count))
            shortened += 1
    fitted = request()
    return FittedMessages(
        tuple(item.message for item in fitted),
        frame + sum(item.tokens for item in fitted),
        budget,
        shortened,
        len(dropped),
    )


@dataclass(frozen=True, eq=False)  # compared by identity: the same message may appear twice
class _Sized:
    message: Message
    tokens: int


def shorten_observation(text: str, max_tokens: int, count: CountFn = estimate_tokens) -> str:
    """A tool result within `max_tokens`, by its kind: a traceback keeps its frames that matter."""
    if TRACEBACK_START in text:
        return fit_traceback(text, max_tokens, count=count)
    return fit_text(text, max_tokens, count=count)


def _head_end(messages: Sequence[Message]) -> int:
    """The system messages and the first user message (the task) lead every request."""
    for index, message in enumerate(messages):
        if message.role == "user":
            return index + 1
        if message.role != "system":
            return index
    return len(messages)


def _turns(items: Sequence[_Sized]) -> list[list[_Sized]]:
    """Units that are kept or dropped whole: an assistant turn, then what answers it (tool
    results, a correction) up to the next assistant turn."""
    turns: list[list[_Sized]] = []
    for item in items:
        if item.message.role == "assistant" or not turns:
            turns.append([item])
        else:
            turns[-1].append(item)
    return turns


def _dropped_note(dropped: list[Message], steps: int, shown: int = 8) -> str:
    calls = [_call_text(c.name, c.arguments) for m in dropped for c in m.tool_calls]
    listed = ", ".join(calls[-shown:]) + (f" and {len(calls) - shown} more" if len(calls) > shown else "")
    left_out = f"{steps} earlier step{'s' if steps != 1 else ''}"
    what = f" (tool calls: {listed})" if calls else ""
    return f"[{left_out}{what} left out here to fit the model's context; call a tool again for a result]"


def _call_text(name: str, arguments: dict[str, Any]) -> str:
    shown = ", ".join(f"{key}={_short(value)}" for key, value in arguments.items())
    return f"{name}({shown})"


def _short(value: Any, limit: int = 40) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- one prompt field within what the window leaves ------------------------------------------------
def fit_field(
    render: Callable[[str], Sequence[Message]],
    text: str,
    provider: object,
    answer_tokens: int,
    *,
    focus_lines: Iterable[int] = (),
    source: bool = True,
    schema: dict[str, Any] | None = None,
) -> str:
    """`text`, one field of a prompt, cut to what the provider's window leaves once the rest of
    the prompt (`render("")`), the schema and the answer's room are counted. Unchanged when the
    window is unknown or the text fits. Source keeps the focus lines and their enclosing defs;
    other text keeps its head and tail."""
    window = context_tokens_of(provider)
    if window is None or not text:
        return text
    count = token_counter(provider)
    reserve = min(answer_tokens, max(window // 8, 512))
    budget = window - reserve - request_tokens(render(""), schema=schema, count=count)
    if count(text) <= budget:
        return text
    budget = max(budget, 64)
    return (
        fit_source(text, budget, focus_lines, count=count) if source else fit_text(text, budget, count=count)
    )
