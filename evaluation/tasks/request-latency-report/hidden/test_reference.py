import pytest

from latency import parse_duration, slowest_endpoints


@pytest.mark.parametrize(
    ("text", "expected"),
    [("800us", 0.8), ("1500us", 1.5), ("2s", 2000.0), ("0.5ms", 0.5), ("1us", 0.001)],
)
def test_parse_duration(text, expected):
    assert parse_duration(text) == pytest.approx(expected)


def test_microsecond_endpoint_is_fastest():
    lines = [
        "t GET /a 200 duration=900us",
        "t GET /b 200 duration=2ms",
        "t GET /c 200 duration=1ms",
    ]
    assert slowest_endpoints(lines, 3) == [("GET /b", 2.0), ("GET /c", 1.0), ("GET /a", pytest.approx(0.9))]
