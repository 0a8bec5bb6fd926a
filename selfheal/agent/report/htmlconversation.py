"""report.html's model section: per role, its calls, tokens and dollars, and what it was told and
answered."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

MODEL_NODES = ("debugger", "generator", "memory", "qa", "critic", "spec_tests")


def conversation(
    events: list[dict[str, Any]], calls: list[dict[str, Any]], usage: dict[str, Any]
) -> list[dict[str, Any]]:
    """One entry per model role: its calls, tokens and dollars (the ledger's, from report.json),
    and what it was told and answered, per conversation (conversation.jsonl). A run folder from
    before conversations were kept shows the role's trace events instead."""
    by_role = dict(usage.get("by_role") or {})
    said: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for call in calls:
        said[str(call.get("role", "?"))].append(call)
    traced: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for event in events:
        if event.get("node") in MODEL_NODES:
            traced[event["node"]].append(event)
    # the ledger names every role that called a model; a run folder without one (older, or a
    # model that never answered) has only the trace to say which roles ran
    roles = list(dict.fromkeys([*by_role, *said])) if by_role or said else list(traced)
    out = []
    for role in roles:
        own = said.get(role, [])
        sums = by_role.get(role) or {
            "calls": len(own) or len(traced[role]),
            "tokens_in": sum(int(c.get("tokens_in", 0)) for c in own or traced[role]),
            "tokens_out": sum(int(c.get("tokens_out", 0)) for c in own or traced[role]),
            "cost_usd": round(sum(float(c.get("cost_usd", 0.0)) for c in own or traced[role]), 6),
        }
        out.append({
            "role": role, "calls": sums.get("calls", 0), "tokens_in": sums.get("tokens_in", 0),
            "tokens_out": sums.get("tokens_out", 0), "cost_usd": sums.get("cost_usd", 0.0),
            "said": [_call(c) for c in own],
            "left_out": sum(int(c.get("left_out", 0)) for c in own),
            "trace": [] if own else [_trace_body(e) for e in traced[role]],
        })  # fmt: skip
    return out


def _call(record: dict[str, Any]) -> dict[str, Any]:
    turns = [t for t in record.get("turns") or [] if isinstance(t, dict)]
    return {
        "call": record.get("call"), "conversation": record.get("conversation"),
        "tokens_in": record.get("tokens_in", 0), "tokens_out": record.get("tokens_out", 0),
        "cost_usd": record.get("cost_usd", 0.0), "model": record.get("model", ""),
        "error": record.get("error", ""), "left_out": record.get("left_out", 0),
        "turns": [
            {"kind": str(t.get("kind", "")), "label": _turn_label(t), "text": str(t.get("text", ""))}
            for t in turns
        ],
    }  # fmt: skip


def _turn_label(turn: dict[str, Any]) -> str:
    kind, tool = turn.get("kind"), turn.get("tool")
    if kind == "tool_call":
        return f"calls {tool}"
    if kind == "tool_result":
        return f"{tool} answered" if tool else "tool answered"
    return {"system": "system prompt", "user": "selfheal", "assistant": "model"}.get(str(kind), str(kind))


def _trace_body(event: dict[str, Any]) -> str:
    data = {k: v for k, v in event.items() if k not in ("node", "start", "end", "duration_s")}
    return json.dumps(data, indent=1, default=str)[:60_000]
