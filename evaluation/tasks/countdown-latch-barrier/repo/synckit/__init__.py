"""Small synchronisation helpers for worker threads."""

from synckit.gather import run_all
from synckit.latch import CountDownLatch

__all__ = ["CountDownLatch", "run_all"]
