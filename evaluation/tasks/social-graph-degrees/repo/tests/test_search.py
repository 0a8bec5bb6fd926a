from socialgraph import separation, suggestions

GRAPH = {
    "a": {"b", "c"},
    "b": {"a", "d"},
    "c": {"a", "d"},
    "d": {"b", "c", "e"},
    "e": {"d"},
    "z": set(),
}


def test_separation():
    assert separation(GRAPH, "a", "a") == 0
    assert separation(GRAPH, "a", "e") == 3
    assert separation(GRAPH, "a", "z") is None


def test_suggestions():
    assert suggestions(GRAPH, "a") == [("d", 2)]
