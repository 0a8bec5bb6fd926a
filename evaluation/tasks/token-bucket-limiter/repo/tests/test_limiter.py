from throttle import RateLimiter


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_clients_are_limited_separately():
    limiter = RateLimiter(per_second=1, burst=2, clock=FakeClock())
    assert [limiter.allow("a") for _ in range(3)] == [True, True, False]
    assert limiter.allow("b")


def test_retry_after():
    clock = FakeClock()
    limiter = RateLimiter(per_second=0.25, burst=1, clock=clock)
    assert limiter.allow("a")
    assert not limiter.allow("a")
    assert limiter.retry_after("a") == 4
    clock.now = 3.5
    assert limiter.retry_after("a") == 1
