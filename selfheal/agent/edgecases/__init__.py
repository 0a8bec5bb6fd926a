"""The embedded (no-model) edge-case test generator. See `generate` for how it works."""

from selfheal.agent.edgecases.generate import EdgeCaseResult, generate_edge_cases

__all__ = ["EdgeCaseResult", "generate_edge_cases"]
