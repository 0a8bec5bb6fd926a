"""Failing tests -> suspicious lines and functions (spectrum over coverage, traceback weighting),
and the index of the project's definitions and call sites.

May import `run` and the shared modules (`config`, `exceptions`).
"""
