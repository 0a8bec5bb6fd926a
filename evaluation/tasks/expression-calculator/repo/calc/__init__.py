"""A small, safe arithmetic expression evaluator."""

from calc.parser import CalcError, evaluate

__all__ = ["CalcError", "evaluate"]
