"""Per-endpoint latency report."""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from latency.parse import parse_request
from latency.stats import summarize


def endpoint_report(lines: Iterable[str]) -> dict[str, dict[str, float]]:
    """Latency summary (ms) of every endpoint, skipping blank lines."""
    durations: dict[str, list[float]] = defaultdict(list)
    for line in lines:
        if line.strip():
            request = parse_request(line)
            durations[request.endpoint].append(request.duration_ms)
    return {endpoint: summarize(values) for endpoint, values in sorted(durations.items())}


def slowest_endpoints(lines: Iterable[str], n: int = 3) -> list[tuple[str, float]]:
    """The n endpoints with the highest p95 latency, slowest first."""
    report = endpoint_report(lines)
    ranked = sorted(report.items(), key=lambda item: item[1]["p95"], reverse=True)
    return [(endpoint, summary["p95"]) for endpoint, summary in ranked[:n]]
