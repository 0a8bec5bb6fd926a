import pytest

from throttle import TokenBucket


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_burst_up_to_capacity():
    bucket = TokenBucket(rate=1, capacity=3, clock=FakeClock())
    assert [bucket.try_acquire() for _ in range(4)] == [True, True, True, False]


def test_refill_over_time():
    clock = FakeClock()
    bucket = TokenBucket(rate=2, capacity=4, clock=clock)
    for _ in range(4):
        bucket.try_acquire()
    clock.now = 1.0
    assert bucket.tokens == 2


def test_refill_is_capped():
    clock = FakeClock()
    bucket = TokenBucket(rate=10, capacity=5, clock=clock)
    clock.now = 60
    assert bucket.tokens == 5


def test_too_many_tokens_at_once():
    with pytest.raises(ValueError):
        TokenBucket(rate=1, capacity=2, clock=FakeClock()).try_acquire(3)


def test_wait_time_when_tokens_are_available():
    assert TokenBucket(rate=1, capacity=2, clock=FakeClock()).wait_time() == 0.0


def test_wait_time_when_empty():
    clock = FakeClock()
    bucket = TokenBucket(rate=0.5, capacity=1, clock=clock)
    bucket.try_acquire()
    assert bucket.wait_time() == 2.0
    clock.now = 1.5
    assert bucket.wait_time() == pytest.approx(0.5)
