"""The webhook server (`selfheal bot serve`): the ASGI app and its checks of each delivery, the
durable job queue (SQLite, or PostgreSQL shared by several servers, one statement layer for both),
the workers and their executors (`local` heals here, `actions` dispatches the heal workflow), the
daily model-spend cap, metrics, its config and its log, and the guard that keeps its heal threads
from racing in an AST constructor that is not thread-safe (astguard.py).

    webhook delivery -> Intake (webhook.py) -> Queue (jobs.py: queue.py | pgqueue.py)
                     -> Executor (executors.py) -> Bot.handle (bot/service.py), in serve.py

May import the heal service at the top of bot/ and the GitHub side (bot/github/); neither imports it.
"""
