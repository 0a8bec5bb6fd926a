import itertools

from routes import distances_from, parse_network, shortest_route

GRID = []
for r, c in itertools.product(range(4), range(4)):
    if c < 3:
        GRID.append(f"{r}{c} {r}{c + 1} {1 + (r * c) % 3}")
    if r < 3:
        GRID.append(f"{r}{c} {r + 1}{c} {2 + (r + c) % 2}")


def floyd(net):
    towns = sorted(net)
    dist = {(a, b): (0 if a == b else net[a].get(b, float("inf"))) for a in towns for b in towns}
    for k in towns:
        for a in towns:
            for b in towns:
                dist[a, b] = min(dist[a, b], dist[a, k] + dist[k, b])
    return dist


def test_distances_match_floyd_warshall():
    net = parse_network(GRID)
    expected = floyd(net)
    for start in net:
        assert distances_from(net, start) == {b: expected[start, b] for b in sorted(net)}


def test_route_length_matches_its_legs():
    net = parse_network(GRID)
    length, path = shortest_route(net, "00", "33")
    assert length == sum(net[a][b] for a, b in zip(path, path[1:]))
    assert length == floyd(net)["00", "33"]


def test_long_chain():
    net = parse_network([f"n{i} n{i + 1} 1" for i in range(10)] + ["n0 n10 9.5"])
    assert shortest_route(net, "n0", "n10") == (9.5, ["n0", "n10"])
    assert shortest_route(net, "n0", "n9")[0] == 9.0
