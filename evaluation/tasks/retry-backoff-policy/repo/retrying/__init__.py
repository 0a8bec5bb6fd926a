"""Retry an operation that fails transiently, with exponential backoff."""

from retrying.policy import RetryPolicy
from retrying.runner import GaveUp, call_with_retries

__all__ = ["GaveUp", "RetryPolicy", "call_with_retries"]
