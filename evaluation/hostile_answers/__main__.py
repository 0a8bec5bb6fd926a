"""`python -m evaluation.hostile_answers`: the same command as `python -m evaluation.corpora hostile_answers`
(evaluation/corpora.py)."""

from __future__ import annotations

import sys

from evaluation.corpus.runner import main
from evaluation.hostile_answers.corpus import HOSTILE_ANSWERS

if __name__ == "__main__":
    sys.exit(main([HOSTILE_ANSWERS], ["hostile_answers", *sys.argv[1:]]))
