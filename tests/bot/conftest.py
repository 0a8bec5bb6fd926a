"""Fixtures of the bot tests: the bot server's world (tests/bot/botserver.py) and a real PostgreSQL
(tests/bot/postgres.py)."""

from tests.bot.botserver import bot_world  # noqa: F401 - a fixture, used by name
from tests.bot.postgres import postgres_url  # noqa: F401 - a fixture, used by name
