"""Everything that talks to GitHub: events, commands, permissions, feedback, branch and PR publishing,
App auth, and the webhook server with its job queue.

event payload -> Trigger (events.py) -> Bot.handle (service.py) -> Outcome
webhook delivery -> Intake (webhook.py) -> JobQueue (queue.py) -> Executor (executors.py), in server.py
"""
