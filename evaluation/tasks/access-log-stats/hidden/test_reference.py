import pytest

from accesslog import error_rate, is_server_error, parse_log


@pytest.mark.parametrize(
    ("status", "expected"),
    [(200, False), (404, False), (499, False), (500, True), (502, True), (599, True), (600, False)],
)
def test_is_server_error(status, expected):
    assert is_server_error(status) is expected


def test_all_500s():
    line = '10.0.0.1 - - [01/May/2024:10:00:00 +0000] "GET / HTTP/1.1" 500 0'
    assert error_rate(list(parse_log([line, line]))) == 1.0


def test_client_errors_are_not_server_errors():
    line = '10.0.0.1 - - [01/May/2024:10:00:00 +0000] "GET / HTTP/1.1" 404 0'
    assert error_rate(list(parse_log([line]))) == 0.0
