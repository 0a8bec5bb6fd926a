"""Latency reports from request logs."""

from latency.parse import Request, parse_duration, parse_request
from latency.report import endpoint_report, slowest_endpoints
from latency.stats import percentile, summarize

__all__ = [
    "Request",
    "endpoint_report",
    "parse_duration",
    "parse_request",
    "percentile",
    "slowest_endpoints",
    "summarize",
]
