"""Solve text mazes."""

from mazes.grid import Maze, draw_path, neighbours, parse_maze, shortest_path

__all__ = ["Maze", "draw_path", "neighbours", "parse_maze", "shortest_path"]
