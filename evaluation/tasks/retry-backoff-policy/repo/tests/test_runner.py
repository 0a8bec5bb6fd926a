import pytest

from retrying import GaveUp, RetryPolicy, call_with_retries


class ServiceDown:
    """An operation whose service never comes back."""

    def __init__(self):
        self.calls = 0

    def __call__(self):
        self.calls += 1
        raise ConnectionRefusedError("connection refused")


class Flaky:
    def __init__(self, failures, error=ConnectionError):
        self.failures = failures
        self.error = error
        self.calls = 0

    def __call__(self):
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error(f"failure {self.calls}")
        return "ok"


def test_success_on_first_try_does_not_sleep():
    slept = []
    assert call_with_retries(Flaky(0), sleep=slept.append) == "ok"
    assert slept == []


def test_succeeds_after_one_transient_failure():
    slept = []
    operation = Flaky(1)
    assert call_with_retries(operation, RetryPolicy(base_delay=1), sleep=slept.append) == "ok"
    assert operation.calls == 2
    assert slept == [1]


def test_other_errors_propagate_at_once():
    operation = Flaky(5, error=KeyError)
    with pytest.raises(KeyError):
        call_with_retries(operation, sleep=lambda s: None)
    assert operation.calls == 1


def test_gives_up_after_max_attempts():
    operation = ServiceDown()
    with pytest.raises(GaveUp) as raised:
        call_with_retries(operation, RetryPolicy(max_attempts=3), sleep=lambda s: None)
    assert operation.calls == 3
    assert raised.value.attempts == 3


def test_backoff_schedule_until_giving_up():
    slept = []
    with pytest.raises(GaveUp):
        call_with_retries(ServiceDown(), RetryPolicy(max_attempts=4, base_delay=1), sleep=slept.append)
    assert slept == [1, 2, 4]
