"""Helpers for nested configuration dictionaries."""

from confdict.nested import deep_merge, flatten, get_path, layered, set_path, unflatten

__all__ = ["deep_merge", "flatten", "get_path", "layered", "set_path", "unflatten"]
