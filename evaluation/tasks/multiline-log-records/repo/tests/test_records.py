from datetime import datetime

from logrecords import counts_by_level, errors, parse_header, records

LOG = """\
2024-05-01 12:00:01,123 INFO app.main started
2024-05-01 12:00:02,456 ERROR app.db query failed
Traceback (most recent call last):
  File "db.py", line 3, in run
    cursor.execute(sql)
ValueError: bad input
2024-05-01 12:00:03,789 WARNING app.main slow request
2024-05-01 12:00:04,001 INFO app.main stopped
"""


def test_parse_header():
    record = parse_header("2024-05-01 12:00:01,123 INFO app.main started")
    assert record.time == datetime(2024, 5, 1, 12, 0, 1, 123000)
    assert (record.level, record.logger, record.message) == ("INFO", "app.main", "started")


def test_parse_header_of_other_line():
    assert parse_header("  File 'db.py', line 3") is None


def test_traceback_belongs_to_the_error():
    [error] = errors(LOG.splitlines())
    assert error.message == "query failed"
    assert error.has_traceback
    assert error.exception == "ValueError: bad input"


def test_records_with_traceback():
    assert [r.message for r in records(LOG.splitlines())] == [
        "started",
        "query failed",
        "slow request",
        "stopped",
    ]


def test_counts_by_level():
    assert counts_by_level(LOG.splitlines()) == {"INFO": 2, "ERROR": 1, "WARNING": 1}


def test_lines_before_first_header_are_ignored():
    lines = ["garbage", "2024-05-01 12:00:01,123 INFO app.main started", "2024-05-01 12:00:02,000 DEBUG x y"]
    assert [r.level for r in records(lines)] == ["INFO", "DEBUG"]
