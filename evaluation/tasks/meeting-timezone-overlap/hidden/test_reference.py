from datetime import date, time, timedelta

import pytest

from meetings import Person, common_slots, format_offset, parse_offset


@pytest.mark.parametrize(
    ("text", "minutes"),
    [("UTC-03:30", -210), ("UTC-09:30", -570), ("UTC+09:30", 570), ("UTC-00:30", -30), ("UTC+12:45", 765), ("UTC-10", -600)],
)
def test_parse_offset(text, minutes):
    assert parse_offset(text) == timedelta(minutes=minutes)


@pytest.mark.parametrize("text", ["UTC-03:30", "UTC+05:45", "UTC-09:30", "UTC+00:00"])
def test_format_round_trip(text):
    assert format_offset(parse_offset(text)) == text


def test_marquesas_and_london():
    team = [Person("lou", "UTC", starts=time(8, 0), ends=time(20, 0)), Person("mo", "UTC-09:30")]
    assert common_slots(team, date(2024, 3, 12), 30) == [("18:30", "19:00"), ("19:00", "19:30"), ("19:30", "20:00")]
