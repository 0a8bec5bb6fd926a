import pytest

from durations import format_clock, humanize, parse_duration, split


def test_split():
    assert split(93784) == {"d": 1, "h": 2, "m": 3, "s": 4}


def test_humanize():
    assert humanize(3725) == "1h 2m"
    assert humanize(93784, precision=4) == "1d 2h 3m 4s"
    assert humanize(0) == "0s"


def test_parse():
    assert parse_duration("1h 30m") == 5400
    assert parse_duration("2d4h") == 187200


def test_parse_rejects_garbage():
    with pytest.raises(ValueError):
        parse_duration("1 hour")


def test_format_clock_short():
    assert format_clock(125) == "00:02:05"


def test_format_clock_over_an_hour():
    assert format_clock(3723) == "01:02:03"
