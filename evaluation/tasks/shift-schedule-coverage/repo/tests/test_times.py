import pytest

from shifts import format_clock, parse_clock


def test_parse_clock():
    assert parse_clock("09:30") == 570
    assert parse_clock("24:00") == 1440


@pytest.mark.parametrize("text", ["9", "09:5", "25:00", "10:60", "ab:cd"])
def test_parse_clock_rejects(text):
    with pytest.raises(ValueError):
        parse_clock(text)


def test_format_clock_wraps_past_midnight():
    assert format_clock(1500) == "01:00"
    assert format_clock(1440) == "24:00"
