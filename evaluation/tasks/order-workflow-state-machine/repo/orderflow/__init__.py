"""The lifecycle of a web shop order."""

from orderflow.machine import TRANSITIONS, InvalidTransition, Order, Transition

__all__ = ["InvalidTransition", "Order", "TRANSITIONS", "Transition"]
