from datetime import date, time

from meetings import Person, common_slots, first_slot

DAY = date(2024, 3, 12)


def test_same_zone():
    team = [Person("ana", "UTC+1"), Person("ben", "UTC+1", starts=time(15, 0))]
    assert common_slots(team, DAY, 60) == [("14:00", "15:00"), ("15:00", "16:00")]


def test_london_and_india():
    team = [Person("lou", "UTC"), Person("raj", "UTC+05:30")]
    assert common_slots(team, DAY, 60) == [("09:00", "10:00"), ("10:00", "11:00")]


def test_no_overlap():
    assert first_slot([Person("syd", "UTC+10"), Person("sf", "UTC-8")], DAY) is None


def test_common_slots_with_newfoundland():
    team = [Person("lou", "UTC"), Person("nell", "UTC-03:30")]
    assert common_slots(team, DAY, 60) == [("12:30", "13:30"), ("13:30", "14:30"), ("14:30", "15:30"), ("15:30", "16:30")]
