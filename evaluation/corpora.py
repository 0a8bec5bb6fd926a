"""`python -m evaluation.corpora CORPUS [options]`: run one of the five corpora and print its figures,
or with --show print the figures of results saved earlier. `python -m evaluation.corpora CORPUS
--help` lists a corpus's options; evaluation/corpus/runner.py says what they share and the exit
codes. `python -m evaluation.<corpus>` is the same command for that corpus.

    cheats           model answers that cheat the verdict (tests/agent/cheats/)
    escape           hostile repositories in every sandbox backend (tests/sandbox/escape/)
    faults           GitHub, the model, the sandbox, the disk and signals failing (tests/action/faults/)
    hostile_answers  hostile model answers through real heals (tests/agent/model/hostile_answers/)
    hostile_events   hostile GitHub events through the Action and the bot (tests/action/hostile_events/)
"""

from __future__ import annotations

import sys

from evaluation.cheats.corpus import CHEATS
from evaluation.corpus import runner
from evaluation.escape.corpus import ESCAPE
from evaluation.faults.corpus import FAULTS
from evaluation.hostile_answers.corpus import HOSTILE_ANSWERS
from evaluation.hostile_events.corpus import HOSTILE_EVENTS

CORPORA = (CHEATS, ESCAPE, FAULTS, HOSTILE_ANSWERS, HOSTILE_EVENTS)


def main(argv: list[str] | None = None) -> int:
    return runner.main(CORPORA, argv)


if __name__ == "__main__":
    sys.exit(main())
