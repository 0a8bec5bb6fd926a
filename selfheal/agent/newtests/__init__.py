"""New tests for a repair: test cases, the fail->pass proof run, the embedded edge-case generator,
and the collection that keeps what its proof shows (the model's writers plug in by protocol).

May import `run`, `localize`, `repair` and the shared modules.
"""
