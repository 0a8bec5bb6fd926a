"""`python -m evaluation.faults`: the same command as `python -m evaluation.corpora faults`
(evaluation/corpora.py)."""

from __future__ import annotations

import sys

from evaluation.corpus.runner import main
from evaluation.faults.corpus import FAULTS

if __name__ == "__main__":
    sys.exit(main([FAULTS], ["faults", *sys.argv[1:]]))
