"""`python -m evaluation.escape`: the same command as `python -m evaluation.corpora escape`
(evaluation/corpora.py)."""

from __future__ import annotations

import sys

from evaluation.corpus.runner import main
from evaluation.escape.corpus import ESCAPE

if __name__ == "__main__":
    sys.exit(main([ESCAPE], ["escape", *sys.argv[1:]]))
