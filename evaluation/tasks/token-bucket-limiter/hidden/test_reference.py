import pytest

from throttle import RateLimiter, TokenBucket


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.mark.parametrize(("elapsed", "expected"), [(0, 10.0), (2, 8.0), (9.5, 0.5), (10, 0.0), (30, 0.0)])
def test_wait_time_counts_down(elapsed, expected):
    clock = FakeClock()
    bucket = TokenBucket(rate=0.1, capacity=1, clock=clock)
    bucket.try_acquire()
    clock.now = elapsed
    assert bucket.wait_time() == pytest.approx(expected)


def test_wait_time_for_several_tokens():
    bucket = TokenBucket(rate=2, capacity=10, clock=FakeClock())
    bucket.try_acquire(10)
    assert bucket.wait_time(4) == 2.0


def test_retry_after_is_zero_for_allowed_client():
    assert RateLimiter(per_second=1, burst=1, clock=FakeClock()).retry_after("new") == 0
