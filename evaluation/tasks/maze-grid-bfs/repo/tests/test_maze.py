import pytest

from mazes import draw_path, parse_maze, shortest_path

WALLED = """\
#######
#S#   #
# # # #
#   #E#
#######
"""


def test_parse():
    maze = parse_maze(WALLED)
    assert maze.start == (1, 1) and maze.exit == (3, 5)


def test_parse_needs_start_and_exit():
    with pytest.raises(ValueError):
        parse_maze("#S#\n# #")


def test_walled_maze():
    path = shortest_path(parse_maze(WALLED))
    assert len(path) == 11
    assert path[0] == (1, 1) and path[-1] == (3, 5)


def test_draw_path():
    maze = parse_maze(WALLED)
    assert draw_path(maze, shortest_path(maze)) == "#######\n#S#...#\n#.#.#.#\n#...#E#\n#######"


def test_unreachable_exit():
    assert shortest_path(parse_maze("#####\n#S#E#\n#####")) is None


def test_open_maze_without_border():
    maze = parse_maze("S.#\n..#\n..E\n")
    assert shortest_path(maze) == [(0, 0), (1, 0), (2, 0), (2, 1), (2, 2)]
