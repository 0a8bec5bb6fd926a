"""The heal's rolling memory: at most five short lessons, updated after each repair round.

    memory = Memory(provider, prompts)    # provider None: the deterministic update only
    memory.update(round)                  # what was tried, what failed and how, what the diagnosis said
    memory.render()                       # the text other prompts take as $lessons
    memory.lessons                        # at most MAX_LESSONS, each at most MAX_LESSON_CHARS
    memory.trace()                        # count, source, degraded, refused, tokens

With a provider for the `memory` role the model rewrites the lessons (prompts/memory.yaml) through
`ask_structured`: schema check, salvage, one retry with the feedback. When it gives no usable
answer or fails (a provider error, a spent budget), or there is no provider, the update is
deterministic: the round's facts first, then the earlier lessons, duplicates dropped, at most five.

Both paths refuse a lesson that suggests editing or skipping tests (the verdict forbids that
repair, so such a lesson only steers the next attempt the wrong way) and a lesson that looks like
it holds a secret (a token, a key, a URL with credentials): lessons end up in a pull request.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from selfheal.agent.exceptions import ProviderError
from selfheal.agent.model.answers import ask_structured
from selfheal.agent.model.llm.accounting import BudgetSpent
from selfheal.agent.model.llm.base import Provider, Usage
from selfheal.agent.model.prompts import PromptLibrary
from selfheal.agent.model.textfit import fit_text
from selfheal.agent.model.tokencount import context_tokens_of, request_tokens, token_counter
from selfheal.agent.model.untrusted import for_prompt

ROLE = "memory"
MAX_LESSONS = 5
MAX_LESSON_CHARS = 200
NO_LESSONS = "(none yet)"
MODEL, FALLBACK = "model", "fallback"

# -- what a lesson may not say ----------------------------------------------------------------

_DETERMINERS = (
    r"(?:the|a|an|this|that|these|those|its|their|every|all|any|some|each|failing|broken|flaky|"
    r"existing|old|slow|related|affected|target|relevant|offending|corresponding|remaining|two|one)"
)
_TESTS = (
    r"(?:tests?|test\s+(?:cases?|files?|suites?|data)|test_\w+|\S*tests?/\S*|\S*test\w*\.py|"
    r"assert(?:ion)?s?|conftest(?:\.py)?|pytest\.ini|tox\.ini|fixtures?|"
    r"expected\s+(?:values?|outputs?|results?))"
)
_ACTIONS = (
    r"(?:skip|xfail|deselect|disable|delete|remov|comment(?:ing)?\s+out|edit|modif|chang|rewrit|"
    r"updat|adjust|relax|loosen|weaken|mark|ignor|drop|renam|tweak|patch)\w*"
)
_TAMPERING = (
    re.compile(rf"\b{_ACTIONS}\s+(?:{_DETERMINERS}\s+){{0,3}}{_TESTS}(?![\w/.])", re.IGNORECASE),
    re.compile(r"\b(?:xfail|skipif|importorskip|deselect)\b|pytest\.skip|mark\.skip", re.IGNORECASE),
    re.compile(
        rf"\b{_TESTS}\s+(?:is|are|was|were|seems?|looks?)\s+(?:wrong|incorrect|buggy|broken|outdated|flawed)\b",
        re.IGNORECASE,
    ),
)
_SECRETS = (
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{16,}|\bgithub_pat_\w{20,}"),  # GitHub tokens
    re.compile(r"\bsk-(?:ant-)?[A-Za-z0-9_-]{16,}"),  # Anthropic, OpenAI keys
    re.compile(r"\bAKIA[0-9A-Z]{16}\b|\bAIza[\w-]{30,}|\bxox[abposr]-[\w-]{10,}"),  # AWS, Google, Slack
    re.compile(r"\beyJ[\w-]{8,}\.[\w-]{8,}\."),  # a JSON Web Token
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s/@]+@", re.IGNORECASE),  # credentials in a URL
    re.compile(r"\b(?:api[_-]?key|secret|token|password|passwd|pwd)\b\s*[:=]\s*['\"]?[^\s'\"]{6,}", re.I),
    re.compile(r"\bbearer\s+[\w.~+/-]{16,}", re.IGNORECASE),
    # a long run of capitals, small letters and digits (two at least): what generated keys look like
    re.compile(r"(?<![\w+/-])(?=[\w+/-]*[A-Z])(?=[\w+/-]*[a-z])(?=(?:[\w+/-]*?\d){2})[\w+/-]{32,}"),
)


def refusal(lesson: str) -> str | None:
    """Why `lesson` may not be kept, or None when it may."""
    if any(pattern.search(lesson) for pattern in _TAMPERING):
        return "suggests editing or skipping tests"
    if any(pattern.search(lesson) for pattern in _SECRETS):
        return "looks like it holds a secret"
    return None


def clean(lesson: str) -> str:
    """One line without a bullet, at most MAX_LESSON_CHARS (cut at a word, marked with …)."""
    # a lesson comes from a record any writer of the memory branch could have made
    text = " ".join(for_prompt(str(lesson)).split())
    text = re.sub(r"^(?:[-*•]|\d+[.)])\s+", "", text)
    if len(text) <= MAX_LESSON_CHARS:
        return text
    cut = text[: MAX_LESSON_CHARS - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > MAX_LESSON_CHARS // 2 else cut).rstrip(" ,;:") + "…"


def _key(lesson: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", lesson.lower()).strip()


def select(candidates: Iterable[str]) -> tuple[tuple[str, ...], int]:
    """The first MAX_LESSONS candidates that are allowed, cleaned, and not already said (one that
    another kept lesson contains counts as said); and how many were refused."""
    kept: list[str] = []
    keys: list[str] = []
    refused = 0
    for candidate in candidates:
        lesson = clean(candidate)
        if not lesson:
            continue
        if refusal(lesson):
            refused += 1
            continue
        key = _key(lesson)
        if any(key in other or other in key for other in keys):
            continue
        kept.append(lesson)
        keys.append(key)
    return tuple(kept[:MAX_LESSONS]), refused


def _lenient(schema: Any) -> Any:
    """The answer schema without its length limits: a sixth lesson or a long one is capped or cut
    here rather than costing a retry of a small model."""
    if isinstance(schema, dict):
        return {k: _lenient(v) for k, v in schema.items() if k not in ("maxItems", "maxLength")}
    if isinstance(schema, list):
        return [_lenient(item) for item in schema]
    return schema


class Memory:
    """At most MAX_LESSONS lessons, rewritten after every round. Not thread-safe: one per heal."""

    def __init__(
        self,
        provider: Provider | None = None,
        prompts: PromptLibrary | None = None,
        *,
        lessons: Iterable[str] = (),
        max_tokens: int = 600,
    ) -> None:
        self.provider = provider
        self.prompts = prompts or PromptLibrary()
        self.max_tokens = max_tokens
        self._lessons, _ = select(lessons)
        self.updates = 0
        self.source: str | None = None  # how the last update was made: MODEL or FALLBACK
        self.degraded = False  # the last update wanted the model and fell back
        self.refused = 0  # lessons refused in the last update
        self.error: str | None = None  # why the model failed in the last update
        self.usage = Usage()  # over all updates
        self._asked: dict[str, Any] | None = None  # the last model update's prompt and attempts

    @property
    def lessons(self) -> tuple[str, ...]:
        return self._lessons

    def render(self) -> str:
        """The lessons as the other prompts take them: one "- " bullet each, or "(none yet)"."""
        return "\n".join(f"- {lesson}" for lesson in self._lessons) or NO_LESSONS

    def update(self, round_: str | Sequence[str]) -> tuple[str, ...]:
        """Fold one round into the lessons: `round_` is its description, one fact a line (or a
        list of facts). Returns the new lessons; never raises for a bad or failed answer."""
        facts = [
            fact for fact in (round_.splitlines() if isinstance(round_, str) else round_) if fact.strip()
        ]
        self.updates += 1
        self.degraded, self.error, self._asked = False, None, None
        if self.provider is not None:
            try:
                answer = self._ask(facts)
            except (ProviderError, BudgetSpent) as exc:
                answer, self.error = None, str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            if answer is not None:
                self._lessons, self.refused = select(answer)
                self.source = MODEL
                return self._lessons
            self.degraded = True
        self._lessons, self.refused = select([*facts, *self._lessons])
        self.source = FALLBACK
        return self._lessons

    def _ask(self, facts: list[str]) -> list[str] | None:
        assert self.provider is not None
        prompt = self.prompts.get(ROLE)
        events = "\n".join(f"- {' '.join(fact.split())}" for fact in facts) or "(nothing happened)"
        events = self._fit_events(events)
        messages = prompt.render(lessons=self.render(), events=events)
        value, record = ask_structured(
            self.provider, messages, _lenient(prompt.schema), max_tokens=self.max_tokens
        )
        self.usage = self.usage + record.usage
        self._asked = {
            "prompt": prompt.trace(),
            "attempts": len(record.attempts),
            "salvaged": record.salvaged,
        }
        if value is None:
            return None
        return [item for item in value["lessons"] if isinstance(item, str)]

    def _fit_events(self, events: str) -> str:
        """The round within what a small model's window leaves besides the prompt and the answer."""
        context = context_tokens_of(self.provider)
        if context is None:
            return events
        count = token_counter(self.provider)
        prompt = self.prompts.get(ROLE)
        empty = prompt.render(lessons=self.render(), events="")
        frame = request_tokens(empty, schema=_lenient(prompt.schema), count=count)
        return fit_text(events, max(context - self.max_tokens - frame, 64), count=count)

    def trace(self) -> dict[str, Any]:
        """For the trace: how many lessons, how the last update was made, what the model cost."""
        out: dict[str, Any] = {
            "count": len(self._lessons),
            "updates": self.updates,
            "source": self.source,
            "degraded": self.degraded,
            "refused": self.refused,
        }
        if self.error:
            out["error"] = self.error
        if self._asked is not None:
            out.update(self._asked)
        if self.usage != Usage():
            out.update(
                tokens_in=self.usage.tokens_in,
                tokens_out=self.usage.tokens_out,
                cost_usd=round(self.usage.cost_usd, 6),
            )
        return out
