"""Helpers copied into the sandbox and run under the repository's own interpreter: the pytest
plugin and the screening worker.

They import only the standard library and pytest (the repository's Python may be old and has none
of selfheal); a test keeps them so.
"""
