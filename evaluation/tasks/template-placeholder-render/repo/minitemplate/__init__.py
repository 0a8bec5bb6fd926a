"""Render small text templates."""

from minitemplate.render import MissingValue, placeholders, render

__all__ = ["MissingValue", "placeholders", "render"]
