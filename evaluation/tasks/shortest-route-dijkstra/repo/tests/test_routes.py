import pytest

from routes import NoRoute, distances_from, parse_network, shortest_route

ROADS = """\
# town town length
A B 4
A C 2
C B 1
B D 5
C D 8
D E 3
X Y 1
"""


def network():
    return parse_network(ROADS.splitlines())


def test_parse_keeps_the_shorter_of_two_roads():
    net = parse_network(["A B 5", "B A 3"])
    assert net == {"A": {"B": 3.0}, "B": {"A": 3.0}}


def test_direct_road():
    assert shortest_route(network(), "D", "E") == (3.0, ["D", "E"])


def test_detour_is_shorter():
    assert shortest_route(network(), "A", "B") == (3.0, ["A", "C", "B"])


def test_longer_route_beats_expensive_shortcut():
    assert shortest_route(network(), "A", "E") == (11.0, ["A", "C", "B", "D", "E"])


def test_no_route():
    with pytest.raises(NoRoute):
        shortest_route(network(), "A", "X")


def test_distances_from():
    assert distances_from(network(), "A") == {"A": 0.0, "B": 3.0, "C": 2.0, "D": 8.0, "E": 11.0}
