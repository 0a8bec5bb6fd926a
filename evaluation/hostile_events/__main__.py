"""`python -m evaluation.hostile_events`: the same command as `python -m evaluation.corpora hostile_events`
(evaluation/corpora.py)."""

from __future__ import annotations

import sys

from evaluation.corpus.runner import main
from evaluation.hostile_events.corpus import HOSTILE_EVENTS

if __name__ == "__main__":
    sys.exit(main([HOSTILE_EVENTS], ["hostile_events", *sys.argv[1:]]))
