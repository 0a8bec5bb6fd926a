"""Everything that talks to GitHub: events, commands, permissions, feedback, branch and PR publishing.

event payload -> Trigger (events.py) -> Bot.handle (service.py) -> Outcome
"""
