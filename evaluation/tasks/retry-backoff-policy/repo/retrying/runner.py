from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from retrying.policy import RetryPolicy

T = TypeVar("T")


class GaveUp(Exception):
    """Every attempt failed; `attempts` were made and `last` is the final error."""

    def __init__(self, attempts: int, last: BaseException) -> None:
        super().__init__(f"gave up after {attempts} attempts: {last!r}")
        self.attempts = attempts
        self.last = last


def call_with_retries(
    operation: Callable[[], T],
    policy: RetryPolicy | None = None,
    *,
    sleep: Callable[[float], None] = time.sleep,
    on_retry: Callable[[int, BaseException], None] | None = None,
) -> T:
    """Call `operation` until it succeeds or the policy's attempts are used up.

    Between attempts it sleeps `policy.delay_after(attempt)` and tells `on_retry(attempt, error)`.
    When the last attempt fails too, raises `GaveUp` with that error as its cause.
    """
    policy = policy or RetryPolicy()
    attempt = 1
    while True:
        try:
            return operation()
        except BaseException as error:
            if not policy.retries(error):
                raise
            if attempt >= policy.max_attempts:
                raise GaveUp(attempt, error) from error
            if on_retry is not None:
                on_retry(attempt, error)
            sleep(policy.delay_after(attempt))
            attempt =+ 1
