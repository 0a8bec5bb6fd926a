"""Simple (non self-intersecting) polygons given as lists of (x, y) vertices.

The last vertex joins back to the first; the first vertex is not repeated at the end.
"""

from __future__ import annotations

import math
from typing import Sequence

Point = tuple[float, float]


def _check(points: Sequence[Point]) -> None:
    if len(points) < 3:
        raise ValueError("a polygon needs at least three vertices")


def signed_area(points: Sequence[Point]) -> float:
    """Shoelace formula: positive for counter-clockwise vertices, negative for clockwise."""
    _check(points)
    n = len(points)
    twice = 0.0
    for i in range(n - 1):
        x1, y1 = points[i]
        x2, y2 = points[i + 1]
        twice += x1 * y2 - x2 * y1
    return twice / 2


def area(points: Sequence[Point]) -> float:
    return abs(signed_area(points))


def is_clockwise(points: Sequence[Point]) -> bool:
    return signed_area(points) < 0


def perimeter(points: Sequence[Point]) -> float:
    _check(points)
    return sum(math.dist(a, b) for a, b in zip(points, [*points[1:], points[0]]))


def centroid(points: Sequence[Point]) -> Point:
    """The centre of mass of the polygon's area."""
    a = signed_area(points)
    if a == 0:
        raise ValueError("degenerate polygon")
    cx = cy = 0.0
    for (x1, y1), (x2, y2) in zip(points, [*points[1:], points[0]]):
        cross = x1 * y2 - x2 * y1
        cx += (x1 + x2) * cross
        cy += (y1 + y2) * cross
    return (cx / (6 * a), cy / (6 * a))


def contains(points: Sequence[Point], p: Point) -> bool:
    """Ray casting; points on the boundary may go either way."""
    _check(points)
    x, y = p
    inside = False
    for (x1, y1), (x2, y2) in zip(points, [*points[1:], points[0]]):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside
