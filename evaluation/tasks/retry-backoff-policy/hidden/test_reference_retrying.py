import pytest

from retrying import GaveUp, RetryPolicy, call_with_retries


class Failing:
    def __init__(self, failures):
        self.failures = failures
        self.calls = 0

    def __call__(self):
        self.calls += 1
        if self.calls <= self.failures:
            raise TimeoutError(self.calls)
        return self.calls


def test_single_attempt_policy_never_sleeps():
    slept = []
    with pytest.raises(GaveUp) as raised:
        call_with_retries(Failing(1), RetryPolicy(max_attempts=1), sleep=slept.append)
    assert slept == [] and raised.value.attempts == 1


def test_on_retry_sees_each_attempt_number():
    seen = []
    operation = Failing(3)
    result = call_with_retries(
        operation, RetryPolicy(max_attempts=5), sleep=lambda s: None, on_retry=lambda n, e: seen.append(n)
    )
    assert result == 4
    assert seen == [1, 2, 3]


def test_succeeds_on_the_last_allowed_attempt():
    operation = Failing(2)
    assert call_with_retries(operation, RetryPolicy(max_attempts=3), sleep=lambda s: None) == 3


def test_gave_up_keeps_the_last_error():
    with pytest.raises(GaveUp) as raised:
        call_with_retries(Failing(10), RetryPolicy(max_attempts=2), sleep=lambda s: None)
    assert isinstance(raised.value.last, TimeoutError)
    assert raised.value.last.args == (2,)
    assert raised.value.__cause__ is raised.value.last


def test_capped_schedule():
    slept = []
    policy = RetryPolicy(max_attempts=6, base_delay=1, multiplier=3, max_delay=10)
    with pytest.raises(GaveUp):
        call_with_retries(Failing(100), policy, sleep=slept.append)
    assert slept == [1, 3, 9, 10, 10]
