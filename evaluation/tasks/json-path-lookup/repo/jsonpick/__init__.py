"""Pick values out of parsed JSON documents."""

from jsonpick.paths import find_all, get, leaf_paths, parse_path

__all__ = ["find_all", "get", "leaf_paths", "parse_path"]
