"""Semantic versions."""

from semverlite.version import Version, latest

__all__ = ["Version", "latest"]
