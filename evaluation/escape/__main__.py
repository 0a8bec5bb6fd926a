"""`python -m evaluation.escape`: the same command as `python -m evaluation.corpora escape`
(evaluation/corpora.py)."""

from __future__ import annotations

import sys

from evaluation.corpora import main

if __name__ == "__main__":
    sys.exit(main(["escape", *sys.argv[1:]]))
