from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry.

    `max_attempts` counts every call, the first one included. The wait before attempt n + 1 is
    `base_delay * multiplier ** (n - 1)`, capped at `max_delay`. Only exceptions of the types in
    `retry_on` are retried; anything else propagates at once.
    """

    max_attempts: int = 3
    base_delay: float = 0.5
    multiplier: float = 2.0
    max_delay: float = 30.0
    retry_on: tuple[type[BaseException], ...] = (ConnectionError, TimeoutError)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.base_delay < 0 or self.max_delay < 0:
            raise ValueError("delays must not be negative")

    def delay_after(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based)."""
        return min(self.max_delay, self.base_delay * self.multiplier ** (attempt - 1))

    def retries(self, error: BaseException) -> bool:
        return isinstance(error, self.retry_on)
