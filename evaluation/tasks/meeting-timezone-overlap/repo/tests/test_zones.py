from datetime import timedelta

import pytest

from meetings import format_offset, parse_offset


def test_parse_whole_hours():
    assert parse_offset("UTC+2") == timedelta(hours=2)
    assert parse_offset("utc-08:00") == timedelta(hours=-8)


def test_parse_half_hour_east():
    assert parse_offset("UTC+05:30") == timedelta(hours=5, minutes=30)


def test_parse_utc():
    assert parse_offset("UTC") == timedelta(0)


@pytest.mark.parametrize("text", ["GMT+1", "UTC+15", "UTC+01:75", "UTC+"])
def test_parse_rejects(text):
    with pytest.raises(ValueError):
        parse_offset(text)


def test_format_offset():
    assert format_offset(timedelta(hours=-8)) == "UTC-08:00"
