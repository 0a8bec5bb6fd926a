"""How `selfheal` ends: its exit codes, and SIGTERM turned into an unwinding like Ctrl-C's.

Exit codes: 0 healed (or nothing to heal), 1 not healed / partial / could not complete,
2 bad input or configuration; 143 stopped by SIGTERM, 130 by Ctrl-C.
"""

from __future__ import annotations

import signal
import sys

EXIT_OK, EXIT_NOT_HEALED, EXIT_BAD_INPUT = 0, 1, 2
EXIT_TERMINATED = 128 + signal.SIGTERM  # what a shell reports for a process ended by SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM (a cancelled workflow run, `docker stop`, systemd) raised where the process is, so
    that it unwinds like Ctrl-C: every `finally` runs, the sandbox is closed and its processes
    killed, temporary folders are removed, and the command says how it ended."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


def raise_terminated(signum: int, _frame: object) -> None:
    signal.signal(signum, signal.SIG_IGN)  # once: the unwinding itself is not interrupted again
    raise Terminated(signum)


def interrupted_exit(exc: KeyboardInterrupt) -> int:
    """The exit code of a run stopped by `exc`: 143 for SIGTERM, 130 for Ctrl-C (SIGINT)."""
    return EXIT_TERMINATED if isinstance(exc, Terminated) else 130


def fail(message: str, code: int) -> int:
    sys.stderr.write(message + "\n")
    return code
