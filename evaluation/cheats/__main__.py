"""`python -m evaluation.cheats`: the same command as `python -m evaluation.corpora cheats`
(evaluation/corpora.py)."""

from __future__ import annotations

import sys

from evaluation.cheats.corpus import CHEATS
from evaluation.corpus.runner import main

if __name__ == "__main__":
    sys.exit(main([CHEATS], ["cheats", *sys.argv[1:]]))
