"""Rate limiting with token buckets."""

from throttle.bucket import TokenBucket
from throttle.limiter import RateLimiter

__all__ = ["RateLimiter", "TokenBucket"]
