from dsu import DisjointSet, largest_island


def test_sizes_after_many_unions():
    forest = DisjointSet(range(10))
    for a, b in [(0, 1), (1, 2), (3, 4), (2, 4), (5, 6), (7, 7), (6, 0)]:
        forest.union(a, b)
    sizes = [forest.size_of(i) for i in range(10)]
    assert sizes == [7, 7, 7, 7, 7, 7, 7, 1, 1, 1]


def test_size_is_total_of_both_sets_whatever_the_order():
    for first, second in [((0, 1), (2, 0)), ((2, 0), (0, 1))]:
        forest = DisjointSet(range(3))
        forest.union(*first)
        forest.union(*second)
        assert forest.size_of(1) == 3


def test_largest_island_snake():
    grid = ["#####", "....#", "#####", "#....", "#####"]
    assert largest_island(grid) == 17
