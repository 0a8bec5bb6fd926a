"""What the bot server prints: one line per thing that happened, with every known secret masked.

Secrets are registered as they appear (the webhook secret at start, each installation token when it
is issued) and replaced by *** in every line written and in every error stored in the job database.
"""

from __future__ import annotations

import base64
import threading
import time
from collections import deque
from typing import TextIO

from selfheal.agent.events import Event, describe_finished
from selfheal.agent.model.untrusted import CONTROL

MASK = "***"
MIN_SECRET = 8  # shorter values would mask ordinary words
# what a line of the log must not carry as it is: a carriage return or an escape sequence from a
# branch name, test id or comment would rewrite what the operator's terminal shows; C1 controls,
# zero-width characters and bidi controls would hide or reorder text
# the characters the prompts' sanitiser removes are the ones a log line shows escaped
UNPRINTABLE = CONTROL


def printable(text: str) -> str:
    """`text` with each unprintable character written as its escape (`\\x1b`, `\\u202e`)."""
    return UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class Redactor:
    def __init__(self, *secrets: str, keep: int = 2000) -> None:
        self._lock = threading.Lock()
        self._secrets: deque[str] = deque(maxlen=keep)
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str) -> None:
        """Mask `secret`, and the HTTP Basic form git sends it in."""
        if len(secret) < MIN_SECRET:
            return
        basic = base64.b64encode(f"x-access-token:{secret}".encode()).decode()
        with self._lock:
            for value in (secret, basic):
                if value not in self._secrets:
                    self._secrets.append(value)

    def __call__(self, text: str) -> str:
        with self._lock:
            secrets = sorted(self._secrets, key=len, reverse=True)
        for secret in secrets:
            text = text.replace(secret, MASK)
        return text

    def __repr__(self) -> str:
        return f"Redactor({len(self._secrets)} secrets)"


class ServerLog:
    """Timestamped lines on a stream (stderr), redacted, one writer at a time."""

    def __init__(self, stream: TextIO, redact: Redactor) -> None:
        self.stream = stream
        self.redact = redact
        self._lock = threading.Lock()

    def info(self, message: str) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        line = printable(self.redact(f"{stamp} selfheal-bot: {message}".replace("\n", " | "))) + "\n"
        with self._lock:
            try:
                self.stream.write(line)
                self.stream.flush()
            except (OSError, ValueError):
                pass  # a closed log must not stop the server


class JobLog:
    """The heal's finished steps as log lines of one job (an EventSink)."""

    def __init__(self, log: ServerLog, job_id: int) -> None:
        self.log = log
        self.job_id = job_id

    def emit(self, event: Event) -> None:
        line = describe_finished(event) if event.end is not None else None
        if line:
            self.log.info(f"job {self.job_id}: {line}")
