import pytest

from socialgraph import build_graph, parse_pairs


def test_parse_pairs():
    assert parse_pairs(["Alice, Bob", "", "carol"]) == [("alice", "bob"), ("carol", "carol")]


def test_parse_rejects_three_names():
    with pytest.raises(ValueError):
        parse_pairs(["a,b,c"])


def test_everyone_is_in_the_graph():
    graph = build_graph([("ann", "bo"), ("cy", "cy")])
    assert sorted(graph) == ["ann", "bo", "cy"]
    assert graph["cy"] == set()
