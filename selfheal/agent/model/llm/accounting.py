"""Token and cost accounting: prices applied per reply, and a ledger that sums per call and role."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from selfheal.agent.model.llm.base import Message, Provider, Reply, ToolSpec, Usage
from selfheal.agent.model.llm.settings import Price
from selfheal.agent.model.llm.transcript import Transcript

log = logging.getLogger(__name__)
_warned: set[str] = set()
_warned_lock = threading.Lock()


def priced_usage(
    price: Price | None,
    model: str,
    tokens_in: int,
    tokens_out: int,
    *,
    cache_write: int = 0,
    cache_read: int = 0,
    warn_unpriced: bool = True,
) -> Usage:
    """Usage with its cost from `price`. `tokens_in` counts uncached input; the Usage counts all
    input (uncached + cache writes + cache reads). No price: cost 0, and for a paid service
    (`warn_unpriced`) a warning, once per model."""
    total_in = tokens_in + cache_write + cache_read
    if price is None:
        if warn_unpriced:
            with _warned_lock:
                if model not in _warned:
                    _warned.add(model)
                    log.warning("no price for model %r: its cost is counted as 0 (set prices)", model)
        return Usage(total_in, tokens_out, 0.0)
    cost = price.cost(tokens_in, tokens_out, cache_write=cache_write, cache_read=cache_read)
    return Usage(total_in, tokens_out, cost)


@dataclass(frozen=True)
class LedgerEntry:
    role: str
    provider: str
    model: str
    usage: Usage
    stop_reason: str = ""


class BudgetSpent(Exception):
    """The heal's token or dollar budget for models is used up: no further call is made."""


@dataclass
class UsageLedger:
    """Every model call of a heal, summed per role and in total. Safe to share between threads.

    With a token or dollar budget, `check()` (called by MeteredProvider before each call) raises
    BudgetSpent once the total has reached it."""

    _entries: list[LedgerEntry] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    token_budget: int | None = None  # input + output tokens over all calls
    usd_budget: float | None = None

    def check(self) -> None:
        used = self.total
        tokens = used.tokens_in + used.tokens_out
        if self.token_budget is not None and tokens >= self.token_budget:
            raise BudgetSpent(f"token budget of {self.token_budget} spent ({tokens} used)")
        if self.usd_budget is not None and used.cost_usd >= self.usd_budget:
            raise BudgetSpent(f"budget of ${self.usd_budget:.2f} spent (${used.cost_usd:.4f} used)")

    def record(self, role: str, provider: str, reply: Reply) -> LedgerEntry:
        entry = LedgerEntry(role, provider, reply.model, reply.usage, reply.stop_reason)
        with self._lock:
            self._entries.append(entry)
        return entry

    @property
    def entries(self) -> tuple[LedgerEntry, ...]:
        with self._lock:
            return tuple(self._entries)

    @property
    def total(self) -> Usage:
        return sum((e.usage for e in self.entries), Usage())

    def by_role(self) -> dict[str, Usage]:
        out: dict[str, Usage] = {}
        for entry in self.entries:
            out[entry.role] = out.get(entry.role, Usage()) + entry.usage
        return out

    def calls(self, role: str | None = None) -> int:
        return sum(1 for e in self.entries if role is None or e.role == role)

    def as_dict(self) -> dict[str, Any]:
        """For the trace and the report: totals, then per role (calls, tokens, dollars)."""

        def row(usage: Usage, calls: int) -> dict[str, Any]:
            return {
                "calls": calls,
                "tokens_in": usage.tokens_in,
                "tokens_out": usage.tokens_out,
                "cost_usd": round(usage.cost_usd, 6),
            }

        return {
            "total": row(self.total, self.calls()),
            "by_role": {role: row(usage, self.calls(role)) for role, usage in sorted(self.by_role().items())},
        }


@dataclass
class MeteredProvider:
    """A provider whose every reply is recorded in a ledger under one role, and which makes no
    call once the ledger's budget is spent. With a transcript, what each call said is kept too."""

    provider: Provider
    role: str
    ledger: UsageLedger
    transcript: Transcript | None = None

    @property
    def name(self) -> str:
        return self.provider.name

    @property
    def context_tokens(self) -> int | None:
        return getattr(self.provider, "context_tokens", None)

    def count_tokens(self, text: str) -> int | None:
        count = getattr(self.provider, "count_tokens", None)
        return count(text) if count is not None else None

    def complete(
        self,
        messages: list[Message],
        *,
        tools: list[ToolSpec] | None = None,
        schema: dict[str, Any] | None = None,
        max_tokens: int,
    ) -> Reply:
        self.ledger.check()
        try:
            reply = self.provider.complete(messages, tools=tools, schema=schema, max_tokens=max_tokens)
        except Exception as exc:
            if self.transcript is not None:
                self.transcript.record(self.role, messages, None, error=f"{type(exc).__name__}: {exc}")
            raise
        self.ledger.record(self.role, self.provider.name, reply)
        if self.transcript is not None:
            self.transcript.record(self.role, messages, reply)
        return reply
