"""Disk usage of a directory tree described by a file listing."""

from dirsize.tree import Node, build_tree, du, largest_dirs, total_size

__all__ = ["Node", "build_tree", "du", "largest_dirs", "total_size"]
