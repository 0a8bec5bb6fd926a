"""The ReAct debugger: think -> call a tool -> observe, until it concludes or hits its step cap.

    Debugger(provider, prompts, toolbox).run(failing=..., suspects=..., source=..., lessons=...)
        -> DebugResult(diagnosis | None, steps, usage, degraded, stopped_because, transcript)

The loop is `while True: try step() except Flow`: a tool call is an observation fed back, a
conclusion ends the run, and a bad conclusion gets one answer naming what was wrong before the
step is marked degraded (the heal then falls back to the search engine's localization).

When the provider's context window is known (`context_tokens`: llama.cpp's n_ctx, Ollama's
num_ctx), every request is fitted into it (messagefit.py), leaving room for the answer and the
tools' descriptions: the task's source is cut to the suspects first, each new tool result gets a
share of what is left, and the conversation sent (not the transcript kept) is shortened and
thinned from its oldest turns. A conversation that cannot fit ends the run, degraded.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from typing import Any

from selfheal.agent.exceptions import AnswerError
from selfheal.agent.model.answers import echo, parse_answer
from selfheal.agent.model.llm.base import Message, Provider, Usage
from selfheal.agent.model.messagefit import fit_messages
from selfheal.agent.model.prompts import PromptLibrary, takes_hint
from selfheal.agent.model.textfit import fit_source
from selfheal.agent.model.tokencount import (
    REQUEST_TOKENS,
    CountFn,
    context_tokens_of,
    message_tokens,
    token_counter,
    tools_tokens,
)
from selfheal.agent.model.toolbox import Toolbox
from selfheal.agent.model.untrusted import NO_HINT, fenced

ROLE = "debugger"
# kept free for the answer: an eighth of a known context (at least MIN_ANSWER_TOKENS, at most
# max_tokens); a tool call or the conclusion is a few hundred tokens, and llama.cpp shortens
# max_tokens itself to what the prompt leaves
ANSWER_SHARE = 8
MIN_ANSWER_TOKENS = 512
TASK_SHARE = 2  # the task may take half of what the system prompt and tools leave
OBSERVATION_SHARE = 3  # a new tool result a third of what the system prompt and task leave
MIN_OBSERVATION_TOKENS = 128
MIN_SOURCE_TOKENS = 64
MAX_TURN_CHARS = 20_000  # of one answer, as kept in the conversation


@dataclass(frozen=True)
class Diagnosis:
    root_cause: str
    file: str
    line: int
    function: str
    confidence: float
    strategy: str
    evidence: tuple[str, ...] = ()

    @classmethod
    def from_answer(cls, value: dict[str, Any]) -> Diagnosis:
        where = value["location"]
        return cls(
            root_cause=value["root_cause"].strip(),
            file=where["file"].strip().lstrip("./"),
            line=int(where["line"]),
            function=where["function"].strip(),
            confidence=float(value["confidence"]),
            strategy=value["strategy"].strip(),
            evidence=tuple(value.get("evidence") or ()),
        )


@dataclass
class DebugResult:
    diagnosis: Diagnosis | None
    steps: int = 0
    tool_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    degraded: bool = False
    stopped_because: str = ""
    salvage: tuple[str, ...] = ()  # the salvage steps the conclusion needed
    transcript: list[Message] = field(default_factory=list)  # everything said, unfitted
    context_tokens: int | None = None  # the window requests were fitted into (None: not fitted)
    largest_request: int = 0  # tokens of the largest request sent, as counted when fitting
    dropped_turns: int = 0  # the most earlier turns one request left out
    shortened: int = 0  # tool results and task texts shortened, over all requests


class Flow(Exception):
    """Ends the loop; carries why."""


class Concluded(Flow):
    pass


class GaveUp(Flow):
    pass


class Debugger:
    def __init__(
        self,
        provider: Provider,
        prompts: PromptLibrary,
        toolbox: Toolbox,
        *,
        max_steps: int = 10,
        max_tokens: int = 2048,
        known_files: frozenset[str] | None = None,
        context_tokens: int | None = None,
    ) -> None:
        self.provider = provider
        self.prompts = prompts
        self.toolbox = toolbox
        self.max_steps = max_steps
        self.max_tokens = max_tokens
        self.known_files = known_files
        # None: the provider's own window when it knows one; otherwise nothing is fitted
        self.context_tokens = context_tokens if context_tokens is not None else context_tokens_of(provider)
        self.count: CountFn = token_counter(provider)
        self.result = DebugResult(None)
        self.schema = prompts.get(ROLE).schema
        self._corrections = 0

    def run(self, **fields: str) -> DebugResult:
        if takes_hint(self.prompts, ROLE):
            fields.setdefault("hint", NO_HINT)
        messages = self.prompts.render(ROLE, **fields)
        if self.context_tokens is not None:
            messages = self._fit_task(fields, messages)
        self.result = DebugResult(None, transcript=messages, context_tokens=self.context_tokens)
        while True:
            try:
                self.step()
            except Concluded as done:
                self.result.stopped_because = str(done)
                return self.result
            except GaveUp as why:
                self.result.degraded = True
                self.result.stopped_because = str(why)
                return self.result

    def step(self) -> None:
        if self.result.steps >= self.max_steps:
            raise GaveUp(f"step cap of {self.max_steps} reached without a conclusion")
        request = self._request()
        self.result.steps += 1
        reply = self.provider.complete(request, tools=self.toolbox.specs, max_tokens=self.max_tokens)
        self.result.usage = self.result.usage + reply.usage
        turn = reply.as_message()
        if not turn.native and len(turn.content) > MAX_TURN_CHARS:
            # a huge answer (5 MB of prose) is kept, and sent again at every later step, as its head
            turn = replace(turn, content=echo(turn.content))
        self.result.transcript.append(turn)
        if reply.tool_calls:
            budget = self._observation_tokens()
            for call in reply.tool_calls:
                self.result.tool_calls += 1
                seen = self.toolbox.call(call, max_tokens=budget, count=self.count)
                # a tool's result is the repository's code and output: no fence tag in it survives
                self.result.transcript.append(Message("tool", fenced(seen.text), tool_call_id=call.id))
            return
        self.conclude(reply.text, truncated=reply.truncated)

    # -- fitting into a known context window --------------------------------------------------
    def _input_tokens(self) -> int:
        """What a request may take: the window less the answer's room and the tools' descriptions."""
        assert self.context_tokens is not None
        return self.context_tokens - self._reserve() - tools_tokens(self.toolbox.specs, count=self.count)

    def _reserve(self) -> int:
        assert self.context_tokens is not None
        return min(self.max_tokens, max(self.context_tokens // ANSWER_SHARE, MIN_ANSWER_TOKENS))

    def _request(self) -> list[Message]:
        if self.context_tokens is None:
            return self.result.transcript
        reserve = self._reserve()
        fitted = fit_messages(
            self.result.transcript,
            self.context_tokens,
            reserve,
            count=self.count,
            fixed_tokens=tools_tokens(self.toolbox.specs, count=self.count),
        )
        if not fitted.fits:
            raise GaveUp(
                f"the request does not fit the model's context of {self.context_tokens} tokens "
                f"({fitted.tokens} needed with {reserve} kept for the answer)"
            )
        self.result.largest_request = max(self.result.largest_request, fitted.tokens)
        self.result.dropped_turns = max(self.result.dropped_turns, fitted.dropped)
        self.result.shortened += fitted.shortened
        return list(fitted.messages)

    def _observation_tokens(self) -> int | None:
        """A new tool result's share of what the system prompt and the task leave."""
        if self.context_tokens is None:
            return None
        head = self.result.transcript[:2]
        left = self._input_tokens() - REQUEST_TOKENS - sum(message_tokens(m, self.count) for m in head)
        return max(left // OBSERVATION_SHARE, MIN_OBSERVATION_TOKENS)

    def _fit_task(self, fields: dict[str, str], messages: list[Message]) -> list[Message]:
        """The task within its share of the window: the source cut down around the suspects."""
        system = sum(message_tokens(m, self.count) for m in messages if m.role == "system")
        task = sum(message_tokens(m, self.count) for m in messages if m.role != "system")
        room = (self._input_tokens() - REQUEST_TOKENS - system) // TASK_SHARE
        source = fields.get("source") or ""
        if task <= room or not source.strip():
            return messages
        budget = max(room - (task - self.count(source)), MIN_SOURCE_TOKENS)
        fitted = fit_source_field(
            source, fields.get("suspects") or "", budget, count=self.count, known_files=self.known_files
        )
        return self.prompts.render(ROLE, **{**fields, "source": fitted})

    def conclude(self, text: str, *, truncated: bool) -> None:
        try:
            parsed = parse_answer(text, self.schema)
            diagnosis = Diagnosis.from_answer(parsed.value)
            problem = self._implausible(diagnosis)
            if problem:
                raise AnswerError(problem)
        except AnswerError as exc:
            self._corrections += 1
            if self._corrections > 1:
                raise GaveUp(f"no valid conclusion: {str(exc).splitlines()[0]}") from None
            note = " Your answer was cut off: answer shorter." if truncated else ""
            self.result.transcript.append(Message("user", f"{exc}{note}"))
            return
        self.result.diagnosis = diagnosis
        self.result.salvage = parsed.degraded_steps
        raise Concluded(f"concluded after {self.result.steps} steps, {self.result.tool_calls} tool calls")

    def _implausible(self, diagnosis: Diagnosis) -> str:
        if self.known_files is not None and diagnosis.file not in self.known_files:
            close = sorted(f for f in self.known_files if f.endswith(diagnosis.file.rsplit("/", 1)[-1]))
            return (
                f"location.file {diagnosis.file!r} is not a project source file selfheal may change"
                + (f"; did you mean {', '.join(close[:3])}?" if close else ".")
                + " Answer again with the JSON conclusion."
            )
        return ""


_FILE_HEADER = re.compile(r"^# (\S+\.py)$", re.MULTILINE)
_SUSPECT = re.compile(r"([\w./-]+\.py):(\d+)")


def fit_source_field(
    source: str,
    suspects: str,
    max_tokens: int,
    *,
    count: CountFn,
    known_files: Collection[str] | None = None,
) -> str:
    """The debugger's `source` field within `max_tokens`: one or more files, each after a
    `# path/to/file.py` line (as the model strategy writes it), each fitted around the lines
    that `suspects` ("file:line" entries) name in it, in proportion to its size."""
    focus: dict[str, list[int]] = {}
    for path, line in _SUSPECT.findall(suspects):
        focus.setdefault(path.lstrip("./"), []).append(int(line))
    headers = [h for h in _FILE_HEADER.finditer(source) if known_files is None or h.group(1) in known_files]
    if not headers:
        everywhere = [line for lines in focus.values() for line in lines]
        return fit_source(source, max_tokens, everywhere, count=count)
    files = []
    for header, following in zip(headers, [*headers[1:], None], strict=True):
        body = source[header.end() + 1 : following.start() if following else len(source)]
        files.append((header.group(0), header.group(1), body.rstrip("\n")))
    preamble = source[: headers[0].start()].strip()
    room = max_tokens - count(preamble) - 4 * len(files)
    sizes = [max(count(body), 1) for _, _, body in files]
    parts = [preamble] if preamble else []
    for (header, path, body), size in zip(files, sizes, strict=True):
        share = room * size // sum(sizes) - count(header) - 2
        parts.append(f"{header}\n{fit_source(body, max(share, 0), focus.get(path, ()), count=count)}")
    return "\n\n".join(parts)
