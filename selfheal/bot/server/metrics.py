"""The server's Prometheus metrics, served at `GET /metrics` in the text exposition format.

One registry per server (not the library's global one), so two servers in one process, as in tests,
do not share counters. The queue's depth is read from the queue when scraped, so it is right for
every server sharing a database, not only for what this process queued.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
JOB_SECONDS = (1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600)


class _QueueDepth(Collector):
    def __init__(self, counts: Callable[[], dict[str, int]]) -> None:
        self.counts = counts

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily("selfheal_queue_jobs", "Jobs in the queue, by status", labels=["status"])
        try:
            counts = self.counts()
        except Exception:  # a scrape never fails because the database is busy: the gauge is left out
            return
        for status, n in sorted(counts.items()):
            family.add_metric([status], n)
        yield family


class ServerMetrics:
    def __init__(self, queue_counts: Callable[[], dict[str, int]]) -> None:
        self.registry = CollectorRegistry()
        self.deliveries = Counter(
            "selfheal_deliveries", "Webhook deliveries, by event and what became of them",
            ["event", "outcome"], registry=self.registry,
        )  # fmt: skip
        self.jobs = Counter(
            "selfheal_jobs", "Jobs finished, by outcome (done, queued for a retry, failed)",
            ["outcome"], registry=self.registry,
        )  # fmt: skip
        self.job_seconds = Histogram(
            "selfheal_job_duration_seconds", "How long a job's attempt ran", buckets=JOB_SECONDS,
            registry=self.registry,
        )  # fmt: skip
        self.rate_limit_remaining = Gauge(
            "selfheal_github_rate_limit_remaining",
            "GitHub's X-RateLimit-Remaining after a job, by installation",
            ["installation"], registry=self.registry,
        )  # fmt: skip
        self.github_calls = Counter(
            "selfheal_github_operations", "GitHub API operations the jobs ran, by operation and outcome "
            "(ok, the HTTP status, or error)", ["operation", "outcome"], registry=self.registry,
        )  # fmt: skip
        self.model_tokens = Counter(
            "selfheal_model_tokens", "Model tokens the heals used, by provider and direction",
            ["provider", "direction"], registry=self.registry,
        )  # fmt: skip
        self.model_usd = Counter(
            "selfheal_model_usd", "Dollars the heals' model calls cost (selfheal's price list), by provider",
            ["provider"], registry=self.registry,
        )  # fmt: skip
        self.registry.register(_QueueDepth(queue_counts))

    def count_model_use(self, report: dict | None) -> None:
        """A heal's tokens and dollars, from its report.json (nothing without a model)."""
        report = report or {}
        metrics = report.get("metrics") or {}
        provider = str(report.get("provider") or "none")
        if provider == "none":
            return
        self.model_tokens.labels(provider, "in").inc(max(0, int(metrics.get("tokens_in") or 0)))
        self.model_tokens.labels(provider, "out").inc(max(0, int(metrics.get("tokens_out") or 0)))
        self.model_usd.labels(provider).inc(max(0.0, float(metrics.get("cost_usd") or 0.0)))

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
