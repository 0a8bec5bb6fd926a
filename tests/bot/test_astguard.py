"""On the Pythons whose AST constructor races between threads, the bot's server parses one source
at a time; elsewhere `ast.parse` is left as it is."""

from __future__ import annotations

import subprocess
import sys

import pytest

from selfheal.bot.server.astguard import has_the_race


@pytest.mark.parametrize(
    ("version", "races"),
    [
        ((3, 11, 0), True),
        ((3, 11, 2), True),  # Debian bookworm's, the Action image's base
        ((3, 11, 7), True),
        ((3, 11, 8), False),
        ((3, 12, 0), True),
        ((3, 12, 1), True),
        ((3, 12, 2), False),
        ((3, 13, 0), False),
    ],
)
def test_the_race_is_in_311_before_3118_and_312_before_3122(version, races):
    assert has_the_race(version) is races


PROBE = """
import ast, threading
from selfheal.bot.server.astguard import AST_LOCK, has_the_race, serialize_ast_parsing

print("installed", serialize_ast_parsing(), serialize_ast_parsing() == has_the_race())
done = threading.Event()
def parse():
    ast.parse("x = [1, 2, 3]")
    ast.literal_eval("{'k': (1, 2)}")
    done.set()
with AST_LOCK:
    worker = threading.Thread(target=parse)
    worker.start()
    print("waited", not done.wait(0.5))
worker.join(10)
print("parsed", done.is_set())
"""


def test_where_it_races_a_parse_waits_for_the_one_under_way():
    ran = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    races = has_the_race()
    assert ran.stdout.split("\n")[:3] == [f"installed {races} True", f"waited {races}", "parsed True"]
