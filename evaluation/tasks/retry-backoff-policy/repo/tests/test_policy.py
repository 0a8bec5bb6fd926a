import pytest

from retrying import RetryPolicy


def test_delays_grow_exponentially():
    policy = RetryPolicy(base_delay=0.5, multiplier=2.0)
    assert [policy.delay_after(n) for n in (1, 2, 3)] == [0.5, 1.0, 2.0]


def test_delay_is_capped():
    policy = RetryPolicy(base_delay=10, multiplier=3, max_delay=25)
    assert policy.delay_after(3) == 25


def test_only_listed_errors_are_retried():
    policy = RetryPolicy(retry_on=(ConnectionError,))
    assert policy.retries(ConnectionResetError())
    assert not policy.retries(ValueError())


def test_at_least_one_attempt():
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)
