"""The model's part in a heal, for the report, the trace and the metrics: tokens and dollars, what
the generator answered, what the debugger concluded, the critic's decision and why it stopped."""

from __future__ import annotations

import time

from selfheal.agent.events import Event
from selfheal.agent.model.strategy import ModelStrategy
from selfheal.agent.state import HealState


def record_model(state: HealState, strategy: ModelStrategy) -> None:
    """The model's part, for the report, the trace and the metrics."""
    usage = strategy.usage
    metrics = state.result.metrics
    metrics.tokens_in, metrics.tokens_out, metrics.cost_usd = (
        usage.tokens_in,
        usage.tokens_out,
        usage.cost_usd,
    )
    log = strategy.generator.log
    now = time.time()
    state.events.emit(Event("generator", now, now, {
        "answers": log.answers, "not_applied": log.not_applied, "screened": log.screened,
        "degraded": log.not_applied, "tokens_in": log.usage.tokens_in, "tokens_out": log.usage.tokens_out,
        "cost_usd": log.usage.cost_usd, "tool_calls": strategy.tool_calls,
        "prompt": strategy.setup.prompts.get("generator").trace(),
        "model_stopped": strategy.stopped_because,
    }))  # fmt: skip
    if strategy.qa.log.records:
        state.events.emit(Event("qa", now, now, strategy.qa.log.trace()))
    confident = [d.diagnosis for d in strategy.diagnoses if d.diagnosis is not None]
    if confident:
        state.result.model_diagnosis = confident[-1]
    state.result.model = model_record(strategy)
    state.result.conversation = strategy.transcript.records()


def model_record(strategy: ModelStrategy) -> dict:
    """The model's part for report.json and the pull request: what the debugger looked at, what
    it concluded from, the critic's decision, tokens and dollars per role, and why it stopped."""
    review = next((r for r, _ in reversed(strategy.reviews) if r is not None), None)
    diagnosis = next((d.diagnosis for d in reversed(strategy.diagnoses) if d.diagnosis is not None), None)
    return {
        "tool_calls": [
            {"tool": call["tool"], "arguments": _short(call["arguments"]), "ok": call["ok"]}
            for call in strategy.tool_calls[:20]
        ],
        "evidence": list(diagnosis.evidence[:10]) if diagnosis else [],
        "root_cause": diagnosis.root_cause if diagnosis else None,
        "critic": (
            {"decision": review.decision, "reason": review.reason, "concerns": list(review.concerns)}
            if review
            else None
        ),
        # why the model's answers did not become the patch: edits refused (tests, CI, unknown
        # files) or not matching the code
        "refused_edits": list(dict.fromkeys(strategy.generator.log.problems))[:10],
        "usage": strategy.ledger.as_dict(),
        "stopped_because": strategy.stopped_because or None,
    }


def _short(arguments: object, limit: int = 160) -> str:
    text = " ".join(str(arguments).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
