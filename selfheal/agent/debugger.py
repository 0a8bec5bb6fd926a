"""The ReAct debugger: think -> call a tool -> observe, until it concludes or hits its step cap.

    Debugger(provider, prompts, toolbox).run(failing=..., suspects=..., source=..., lessons=...)
        -> DebugResult(diagnosis | None, steps, usage, degraded, stopped_because, transcript)

The loop is `while True: try step() except Flow`: a tool call is an observation fed back, a
conclusion ends the run, and a bad conclusion gets one answer naming what was wrong before the
step is marked degraded (the heal then falls back to the search engine's localization).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from selfheal.agent.answers import parse_answer
from selfheal.agent.exceptions import AnswerError
from selfheal.agent.llm.base import Message, Provider, Usage
from selfheal.agent.prompts import PromptLibrary
from selfheal.agent.toolbox import Toolbox

ROLE = "debugger"


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
    transcript: list[Message] = field(default_factory=list)


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
    ) -> None:
        self.provider = provider
        self.prompts = prompts
        self.toolbox = toolbox
        self.max_steps = max_steps
        self.max_tokens = max_tokens
        self.known_files = known_files
        self.result = DebugResult(None)
        self.schema = prompts.get(ROLE).schema
        self._corrections = 0

    def run(self, **fields: str) -> DebugResult:
        self.result = DebugResult(None, transcript=self.prompts.render(ROLE, **fields))
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
        self.result.steps += 1
        reply = self.provider.complete(
            self.result.transcript, tools=self.toolbox.specs, max_tokens=self.max_tokens
        )
        self.result.usage = self.result.usage + reply.usage
        self.result.transcript.append(reply.as_message())
        if reply.tool_calls:
            for call in reply.tool_calls:
                self.result.tool_calls += 1
                seen = self.toolbox.call(call)
                self.result.transcript.append(Message("tool", seen.text, tool_call_id=call.id))
            return
        self.conclude(reply.text, truncated=reply.truncated)

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
