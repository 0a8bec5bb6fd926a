"""selfheal: repairs failing Python code and proves its repairs."""

__version__ = "0.1.0"
