"""The embedded (no-model) edge-case generator: tests for the behaviour a fix changed.

Owns the probe plan, the sandboxed probe run and the cases made of its outcomes (see `generate`).
May import `newtests.cases`, `newtests.proof`, earlier stages and `selfheal.sandbox`.
"""
