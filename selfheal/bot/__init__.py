"""Everything that talks to GitHub, in two rooms and a top.

At the top: the heal service (service.py: one request, start to end; settings, outcome, talk,
review, healrun, change), events and their schemas, `/heal` commands, the failure signature, errors.
github/: the API client, App auth, git plumbing, publishing, the memory branch, progress comments.
server/: the webhook server, its queues, workers and executors.

    event payload -> Trigger (events.py) -> Bot.handle (service.py) -> Outcome
    webhook delivery -> Intake (server/webhook.py) -> Queue (server/jobs.py) -> Executor, in server/serve.py

server imports the top and github; the top imports github; github imports only exceptions.py.
"""
