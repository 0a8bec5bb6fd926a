import pytest

from syslogparse import at_least, decode_priority, parse_line

LINES = [
    "<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8",
    "<13>Feb  5 17:32:18 web01 cron[811]: job finished",
    "<12>Feb  5 17:32:19 web01 app[77]: disk 91% full",
]


def test_decode_priority():
    assert decode_priority(34) == ("auth", "crit")


def test_priority_out_of_range():
    with pytest.raises(ValueError):
        decode_priority(192)


def test_parse_line():
    message = parse_line(LINES[0])
    assert (message.facility, message.severity) == ("auth", "crit")
    assert message.host == "mymachine"
    assert message.tag == "su"
    assert message.pid is None


def test_parse_pid_and_padded_day():
    message = parse_line(LINES[1])
    assert message.stamp == "Feb  5 17:32:18"
    assert message.pid == 811
    assert message.text == "job finished"


def test_rejects_non_syslog():
    with pytest.raises(ValueError):
        parse_line("2024-05-01 INFO started")


def test_filter_at_least_warning():
    messages = [parse_line(line) for line in LINES]
    assert [m.tag for m in at_least(messages, "warning")] == ["su", "app"]
