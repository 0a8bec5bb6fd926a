"""Measurements of simple polygons."""

from polygons.shape import area, centroid, contains, is_clockwise, perimeter, signed_area

__all__ = ["area", "centroid", "contains", "is_clockwise", "perimeter", "signed_area"]
