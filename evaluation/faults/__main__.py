"""`python -m evaluation.faults`: the same command as `python -m evaluation.corpora faults`
(evaluation/corpora.py)."""

from __future__ import annotations

import sys

from evaluation.corpora import main

if __name__ == "__main__":
    sys.exit(main(["faults", *sys.argv[1:]]))
