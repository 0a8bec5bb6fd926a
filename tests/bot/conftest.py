"""Fixtures of the bot tests: the bot server's world (tests/bot/botserver.py)."""

from tests.bot.botserver import bot_world  # noqa: F401 - a fixture, used by name
