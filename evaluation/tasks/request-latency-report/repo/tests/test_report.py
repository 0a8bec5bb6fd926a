from latency import endpoint_report, slowest_endpoints

LOG = """\
2024-05-01T12:00:00Z GET /health 200 duration=350us
2024-05-01T12:00:01Z GET /api/users 200 duration=40ms
2024-05-01T12:00:02Z GET /health 200 duration=420us
2024-05-01T12:00:03Z POST /api/orders 201 duration=1.2s
2024-05-01T12:00:04Z GET /api/users 200 duration=60ms

2024-05-01T12:00:05Z POST /api/orders 500 duration=2s
"""


def test_slowest_endpoints():
    assert slowest_endpoints(LOG.splitlines(), 2) == [("POST /api/orders", 2000.0), ("GET /api/users", 60.0)]


def test_endpoint_report_mixed_units():
    report = endpoint_report(LOG.splitlines())
    assert report["GET /health"]["max"] < 1.0
    assert report["GET /api/users"] == {"count": 2, "p50": 40.0, "p95": 60.0, "max": 60.0}


def test_report_of_empty_log():
    assert endpoint_report([]) == {}
