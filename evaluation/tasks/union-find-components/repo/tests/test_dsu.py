from dsu import DisjointSet, components, islands, largest_island

GRID = [
    "##..#",
    "#...#",
    "..#..",
    "####.",
]


def test_union_and_connected():
    forest = DisjointSet("abcd")
    assert forest.union("a", "b")
    assert not forest.union("b", "a")
    assert forest.connected("a", "b") and not forest.connected("a", "c")


def test_component_size():
    forest = DisjointSet(range(6))
    forest.union(0, 1)
    forest.union(2, 3)
    forest.union(3, 4)
    assert [forest.size_of(i) for i in range(6)] == [2, 2, 3, 3, 3, 1]


def test_components():
    assert components("abcdef", [("a", "b"), ("c", "d"), ("d", "e")]) == [["c", "d", "e"], ["a", "b"], ["f"]]


def test_islands():
    assert islands(GRID) == 3


def test_largest_island():
    assert largest_island(GRID) == 5


def test_empty_grid():
    assert islands([]) == 0 and largest_island([]) == 0
