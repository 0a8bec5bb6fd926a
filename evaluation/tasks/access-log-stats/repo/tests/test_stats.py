from accesslog import bytes_served, error_rate, parse_log, status_counts, top_paths

LOG = """\
10.0.0.1 - - [01/May/2024:10:00:00 +0000] "GET / HTTP/1.1" 200 512
10.0.0.2 - - [01/May/2024:10:00:01 +0000] "GET /api/items HTTP/1.1" 200 2048
10.0.0.1 - - [01/May/2024:10:00:02 +0000] "GET /api/items HTTP/1.1" 500 128

10.0.0.3 - - [01/May/2024:10:00:03 +0000] "GET /missing HTTP/1.1" 404 64
10.0.0.2 - - [01/May/2024:10:00:04 +0000] "POST /api/items HTTP/1.1" 503 -
10.0.0.4 - - [01/May/2024:10:00:05 +0000] "GET / HTTP/1.1" 304 -
"""


def entries():
    return list(parse_log(LOG.splitlines()))


def test_status_counts():
    assert status_counts(entries()) == {200: 2, 304: 1, 404: 1, 500: 1, 503: 1}


def test_server_error_rate():
    assert error_rate(entries()) == 2 / 6


def test_error_rate_of_empty_log():
    assert error_rate([]) == 0.0


def test_top_paths():
    assert top_paths(entries(), 2) == [("/api/items", 3), ("/", 2)]


def test_bytes_served():
    assert bytes_served(entries()) == 2752
