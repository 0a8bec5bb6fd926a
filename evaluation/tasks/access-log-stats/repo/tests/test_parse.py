from datetime import datetime, timedelta, timezone

import pytest

from accesslog import parse_line

LINE = '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326'


def test_parse_line():
    entry = parse_line(LINE)
    assert entry.host == "127.0.0.1"
    assert entry.user == "frank"
    assert entry.time == datetime(2000, 10, 10, 13, 55, 36, tzinfo=timezone(timedelta(hours=-7)))
    assert (entry.method, entry.path, entry.status, entry.size) == ("GET", "/apache_pb.gif", 200, 2326)


def test_dash_size_and_query_string():
    entry = parse_line('10.0.0.2 - - [10/Oct/2000:13:56:00 +0000] "POST /login?next=/ HTTP/1.1" 302 -')
    assert entry.user is None
    assert entry.path == "/login"
    assert entry.size == 0


def test_rejects_other_formats():
    with pytest.raises(ValueError):
        parse_line("Oct 10 13:55:36 host sshd[42]: accepted")
