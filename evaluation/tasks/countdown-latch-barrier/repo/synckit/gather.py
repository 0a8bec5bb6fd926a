from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from synckit.latch import CountDownLatch


def run_all(tasks: Sequence[Callable[[], Any]]) -> list[Any]:
    """Run every task in its own thread and return their results in order, once all are done.
    A task that raised gives its exception as its result."""
    results: list[Any] = [None] * len(tasks)
    done = CountDownLatch(len(tasks))

    def runner(index: int, task: Callable[[], Any]) -> None:
        try:
            results[index] = task()
        except Exception as exc:
            results[index] = exc
        finally:
            done.count_down()

    for index, task in enumerate(tasks):
        threading.Thread(target=runner, args=(index, task), daemon=True).start()
    done.wait()
    return results
