from mazes import neighbours, parse_maze, shortest_path


def test_neighbours_at_the_corners():
    grid = ("...", "...", "...")
    assert sorted(neighbours(grid, (2, 2))) == [(1, 2), (2, 1)]
    assert sorted(neighbours(grid, (0, 0))) == [(0, 1), (1, 0)]
    assert sorted(neighbours(grid, (2, 0))) == [(1, 0), (2, 1)]


def test_single_row_maze():
    assert shortest_path(parse_maze("S..E")) == [(0, 0), (0, 1), (0, 2), (0, 3)]


def test_single_column_maze():
    assert len(shortest_path(parse_maze("S\n.\n.\nE"))) == 4


def test_exit_on_the_bottom_row():
    maze = parse_maze("S....\n####.\nE....")
    assert len(shortest_path(maze)) == 11
