import pytest

from querystr import build_query, decode, first, parse_query


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a+b", "a b"),
        ("a%2Bb", "a+b"),
        ("%2B%2B", "++"),
        ("+%2B+", " + "),
        ("%25%2B", "%+"),
        ("phone%3A%2B44+20", "phone:+44 20"),
    ],
)
def test_decode(raw, expected):
    assert decode(raw) == expected


def test_plus_in_keys():
    assert parse_query("a%2Bb=1&a+b=2") == {"a+b": ["1"], "a b": ["2"]}


def test_round_trip_of_awkward_values():
    values = ["+", "a + b", "100%", "x=y&z", "emoji 🙂", "%2B"]
    assert parse_query(build_query({"v": values}))["v"] == values
    assert first(build_query({"k": "+1"}), "k") == "+1"
