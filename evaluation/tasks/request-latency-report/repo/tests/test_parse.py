import pytest

from latency import parse_duration, parse_request


def test_milliseconds():
    assert parse_duration("250ms") == 250.0


def test_seconds():
    assert parse_duration("1.5s") == 1500.0


def test_rejects_unknown_unit():
    with pytest.raises(ValueError):
        parse_duration("3min")


def test_parse_request():
    request = parse_request("2024-05-01T12:00:00Z GET /api/users?page=2 200 duration=12.5ms")
    assert request.endpoint == "GET /api/users"
    assert request.status == 200
    assert request.duration_ms == 12.5
