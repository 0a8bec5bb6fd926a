"""Install order of packages with dependencies."""

from depsort.order import CycleError, install_order, layers, missing

__all__ = ["CycleError", "install_order", "layers", "missing"]
