"""The hostile-events corpus: well-formed but hostile GitHub events (look-alike `/heal`s, commands in
code or quotes, shell text in arguments and branch names, deleted and bot accounts, readers, forks,
a repository that tries to unprotect its tests), run through `selfheal action` and the webhook bot.

The cases are data under tests/action/hostile_events/ (a `CASES` list per module, read with `ast`,
never imported: evaluation may import only selfheal's agent and sandbox). The runners are the two
test modules tests/action/test_hostile_events.py and tests/bot/test_hostile_events.py, which need
the fake GitHub of tests/fakes; `python -m evaluation.hostile_events` runs them with pytest (as a
program, not an import) and prints the figures per family: tried, decision correct, crashes.
"""
