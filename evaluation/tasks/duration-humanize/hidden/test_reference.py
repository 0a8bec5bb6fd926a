import pytest

from durations import format_clock, parse_duration


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [(0, "00:00:00"), (59, "00:00:59"), (3599, "00:59:59"), (3600, "01:00:00"), (7384, "02:03:04"), (90000, "25:00:00"), (359999, "99:59:59")],
)
def test_format_clock(seconds, expected):
    assert format_clock(seconds) == expected


def test_round_trip_through_parse():
    for text in ["1h", "1h 1m 1s", "10h59m", "26h"]:
        seconds = parse_duration(text)
        h, m, s = (int(x) for x in format_clock(seconds).split(":"))
        assert h * 3600 + m * 60 + s == seconds
        assert m < 60 and s < 60
