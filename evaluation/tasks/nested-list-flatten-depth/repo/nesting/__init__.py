"""Working with nested lists."""

from nesting.lists import depth, flatten, map_leaves

__all__ = ["depth", "flatten", "map_leaves"]
