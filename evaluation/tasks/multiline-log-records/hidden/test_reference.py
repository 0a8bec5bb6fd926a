from logrecords import counts_by_level, errors, records

TAIL_ERROR = """\
2024-05-01 12:00:01,123 INFO app.main started
2024-05-01 12:00:09,000 CRITICAL app.main crashed
Traceback (most recent call last):
  File "main.py", line 9, in <module>
RuntimeError: out of memory
"""


def test_single_record():
    assert [r.message for r in records(["2024-05-01 12:00:01,123 INFO app.main only"])] == ["only"]


def test_no_records():
    assert list(records([])) == []
    assert list(records(["just text", ""])) == []


def test_traceback_of_the_last_record():
    [error] = errors(TAIL_ERROR.splitlines(keepends=True))
    assert error.level == "CRITICAL"
    assert error.exception == "RuntimeError: out of memory"
    assert len(error.extra) == 3


def test_counts_include_the_last_record():
    assert counts_by_level(TAIL_ERROR.splitlines()) == {"INFO": 1, "CRITICAL": 1}


def test_multi_line_message_in_the_middle():
    lines = [
        "2024-05-01 12:00:01,123 INFO a first",
        "  second line",
        "2024-05-01 12:00:02,123 INFO b next",
    ]
    result = list(records(lines))
    assert [r.extra for r in result] == [["  second line"], []]
