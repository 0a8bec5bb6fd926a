"""Mazes drawn as text: '#' is a wall, anything else is open; S is the start, E the exit."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Iterator, Optional

Cell = tuple[int, int]
STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))


@dataclass(frozen=True)
class Maze:
    grid: tuple[str, ...]
    start: Cell
    exit: Cell


def parse_maze(text: str) -> Maze:
    rows = tuple(line for line in text.splitlines() if line)
    if len({len(row) for row in rows}) != 1:
        raise ValueError("every row of the maze must have the same length")
    found = {}
    for r, row in enumerate(rows):
        for c, char in enumerate(row):
            if char in "SE":
                if char in found:
                    raise ValueError(f"more than one {char}")
                found[char] = (r, c)
    if set(found) != {"S", "E"}:
        raise ValueError("a maze needs one S and one E")
    return Maze(rows, found["S"], found["E"])


def neighbours(grid: tuple[str, ...], cell: Cell) -> Iterator[Cell]:
    """Open cells one step up, down, left or right of `cell`."""
    rows, cols = len(grid), len(grid[0])
    for dr, dc in STEPS:
        r, c = cell[0] + dr, cell[1] + dc
        if 0 <= r <= rows and 0 <= c < cols and grid[r][c] != "#":
            yield (r, c)


def shortest_path(maze: Maze) -> Optional[list[Cell]]:
    """Cells from start to exit along a shortest path, or None when the exit is walled off."""
    previous: dict[Cell, Optional[Cell]] = {maze.start: None}
    queue = deque([maze.start])
    while queue:
        cell = queue.popleft()
        if cell == maze.exit:
            path = []
            while cell is not None:
                path.append(cell)
                cell = previous[cell]
            return path[::-1]
        for step in neighbours(maze.grid, cell):
            if step not in previous:
                previous[step] = cell
                queue.append(step)
    return None


def draw_path(maze: Maze, path: list[Cell]) -> str:
    """The maze with the path (except S and E) marked by '.'."""
    rows = [list(row) for row in maze.grid]
    for r, c in path[1:-1]:
        rows[r][c] = "."
    return "\n".join("".join(row) for row in rows)
