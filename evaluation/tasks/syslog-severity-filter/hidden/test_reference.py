import pytest

from syslogparse import by_facility, decode_priority, parse_line


@pytest.mark.parametrize(
    ("pri", "expected"),
    [
        (0, ("kern", "emerg")),
        (7, ("kern", "debug")),
        (8, ("user", "emerg")),
        (13, ("user", "notice")),
        (38, ("auth", "info")),
        (86, ("authpriv", "info")),
        (165, ("local4", "notice")),
        (191, ("local7", "debug")),
    ],
)
def test_decode_priority(pri, expected):
    assert decode_priority(pri) == expected


def test_by_facility():
    lines = [
        "<165>Aug 24 05:34:00 host app: a",
        "<38>Aug 24 05:34:01 host sshd[4]: b",
        "<166>Aug 24 05:34:02 host app: c",
    ]
    messages = [parse_line(line) for line in lines]
    assert [m.text for m in by_facility(messages, "local4")] == ["a", "c"]
    assert [m.severity for m in messages] == ["notice", "info", "info"]
