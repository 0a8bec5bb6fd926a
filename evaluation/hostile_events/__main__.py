"""`python -m evaluation.hostile_events`: the same command as `python -m evaluation.corpora hostile_events`
(evaluation/corpora.py)."""

from __future__ import annotations

import sys

from evaluation.corpora import main

if __name__ == "__main__":
    sys.exit(main(["hostile_events", *sys.argv[1:]]))
