"""Orders move through states along the allowed transitions only."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Optional

TRANSITIONS: dict[str, set[str]] = {
    "cart": {"placed", "cancelled"},
    "placed": {"paid", "cancelled"},
    "paid": {"shipped", "refunded"},
    "shipped": {"delivered", "returned"},
    "delivered": {"returned"},
    "returned": {"refunded"},
    "refunded": set(),
    "cancelled": set(),
}
RETURN_WINDOW = timedelta(days=30)


class InvalidTransition(Exception):
    pass


@dataclass(frozen=True)
class Transition:
    state: str
    at: Optional[datetime] = None


class Order:
    def __init__(self, order_id: str, history: Optional[list[Transition]] = None) -> None:
        """A new order in the cart, or an order restored from its saved history.

        The history passed in is copied, never modified.
        """
        self.order_id = order_id
        self.history = list(history) if history else [Transition("cart")]
        if self.history[0].state != "cart":
            raise ValueError("an order's history starts in the cart")

    @property
    def state(self) -> str:
        return self.history[-1].state

    @property
    def is_final(self) -> bool:
        return not TRANSITIONS[self.state]

    def can(self, target: str) -> bool:
        return target in TRANSITIONS[self.state]

    def advance(self, target: str, at: Optional[datetime] = None) -> None:
        """Move to `target` at time `at`.

        A delivered order can be returned up to RETURN_WINDOW after its delivery (when both
        times are known); later returns are refused.
        """
        if target not in TRANSITIONS:
            raise ValueError(f"unknown state {target!r}")
        if not self.can(target):
            raise InvalidTransition(f"{self.order_id}: {self.state} -> {target}")
        if target == "returned" and self.state == "delivered":
            delivered = self.when("delivered")
            if delivered is not None and at is not None and delivered - at > RETURN_WINDOW:
                raise InvalidTransition(f"{self.order_id}: the return window closed")
        self.history.append(Transition(target, at))

    def when(self, state: str) -> Optional[datetime]:
        """When the order last entered `state`, if it did and the time was recorded."""
        for transition in reversed(self.history):
            if transition.state == state:
                return transition.at
        return None
