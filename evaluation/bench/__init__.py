"""The benchmark: heal every task of a subset in its own copy, check the patches against hidden
reference tests, and report rates, times and the gap between what selfheal claimed and what holds.

    python -m evaluation.bench --subset smoke --workers 2 --json out.json --plot out.png
    selfheal bench ...                      # the same, from a clone of the repository

Nothing imports this package (see tests/test_import_direction.py); it uses selfheal's agent and
sandbox through their public API, as any consumer would.
"""
