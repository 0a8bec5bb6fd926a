"""Which variables are secrets, how their values are scrubbed, and how they leave the process.

One module for all three, standard library only, because every layer needs it and the sandbox
layer may import nothing of the project: the sandbox drops secret-named variables from what a
command sees, the entrypoint moves them out of its own environment, and every writer of an output
(the output folder, stdout/stderr, the job log) scrubs with one `Scrubber` built from their values.

A variable is a secret when its name contains one of SECRET_MARKERS. A process's initial
environment stays readable at /proc/<pid>/environ for its whole life (unsetenv does not change
it), so `reexec_without_secrets` hands the secrets over through a pipe and re-executes the process
with an environment that has none; `environment_with_secrets` reads them back into memory only;
`make_undumpable` then closes /proc/<pid>/mem and environ to processes without CAP_SYS_PTRACE —
in a container, every process of the repository's tests. (A host's root keeps CAP_SYS_PTRACE:
there the sandbox's namespaces and dropped uid, or the docker sandbox, keep tests out.)
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

SECRET_MARKERS = ("TOKEN", "KEY", "SECRET", "PASS", "CREDENTIAL", "AUTH", "PRIVATE", "COOKIE")
MASK = "***"
# Shorter values are left alone: "1", "true", a port or a user name occur in any output by chance,
# so masking them would mangle reports (and the pattern of masks would itself tell the value),
# while a key or token worth stealing is far longer. The known token shapes below are masked
# whatever variable they came from.
MIN_SCRUBBED_CHARS = 8
TOKEN_SHAPES = (
    r"gh[pousr]_[A-Za-z0-9]{20,}",  # GitHub tokens: personal, OAuth, user, server (App, Actions), refresh
    r"github_pat_[A-Za-z0-9_]{20,}",  # GitHub fine-grained personal access tokens
    r"sk-ant-[A-Za-z0-9_\-]{20,}",  # Anthropic API keys
    # a PEM private key (an App's key); an unterminated one is masked to the end of the text
    r"(?s:-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z))",
)

CUT_MARKS = ("...", "\u2026")  # how writers end a text they cut short

FD_VARIABLE = "SELFHEAL_SECRETS_FD"
PR_SET_DUMPABLE = 4
F_SETPIPE_SZ = 1031  # Linux; fcntl only names it on some builds


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    return any(marker in upper for marker in SECRET_MARKERS)


@dataclass(frozen=True)
class Scrubber:
    """Masks the given secret values and the known token shapes wherever they appear.

    Values are kept whole, stripped and line by line (a multi-line key printed by a line-oriented
    writer still matches), each only when at least MIN_SCRUBBED_CHARS long; the longest match wins.
    """

    values: tuple[str, ...] = field(default=(), repr=False)
    _pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        kept: set[str] = set()
        for value in self.values:
            for piece in (value, value.strip(), *(line.strip() for line in value.splitlines())):
                if len(piece) >= MIN_SCRUBBED_CHARS:
                    kept.add(piece)
        values = tuple(sorted(kept, key=lambda v: (-len(v), v)))
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "_pattern", re.compile("|".join([*map(re.escape, values), *TOKEN_SHAPES])))

    @classmethod
    def from_environment(cls, env: Mapping[str, str], also: Iterable[str] = ()) -> Scrubber:
        """A scrubber for the values of `env`'s secret-named variables (and of the names in `also`)."""
        extra = set(also)
        return cls(tuple(value for name, value in env.items() if is_secret_name(name) or name in extra))

    def with_values(self, *values: str) -> Scrubber:
        return Scrubber((*self.values, *(v for v in values if v)))

    def __repr__(self) -> str:
        return f"Scrubber({len(self.values)} values)"

    def __call__(self, text: str) -> str:
        return self.scrub(text)

    def scrub(self, text: str) -> str:
        return self._mask_cut_values(self._pattern.sub(MASK, text))

    def _mask_cut_values(self, text: str) -> str:
        """Also mask the start of a value that a writer cut short (a first line limited to N
        characters, an excerpt): at least MIN_SCRUBBED_CHARS of it, then the text's end or an
        ellipsis. Elsewhere a value's start alone is left: a path-like value shares its start
        with many harmless paths."""
        for value in self.values:
            head = value[:MIN_SCRUBBED_CHARS]
            start = text.find(head)
            while start != -1:
                n = MIN_SCRUBBED_CHARS
                limit = min(len(value), len(text) - start)
                while n < limit and text[start + n] == value[n]:
                    n += 1
                rest = text[start + n :]
                if n < len(value) and (not rest or rest.startswith(CUT_MARKS)):
                    text = text[:start] + MASK + rest
                    start = text.find(head, start + len(MASK))
                else:
                    start = text.find(head, start + 1)
        return text

    def scrub_data(self, data: Any) -> Any:
        """JSON-like data with every string scrubbed, dict keys included (a test id can hold a
        value); scrubbing before serialising also catches values JSON would escape."""
        if isinstance(data, str):
            return self.scrub(data)
        if isinstance(data, dict):
            return {self.scrub_data(k): self.scrub_data(v) for k, v in data.items()}
        if isinstance(data, list | tuple):
            return [self.scrub_data(item) for item in data]
        return data


class FilteredStream:
    """A text stream whose writes pass through `transform` first; everything else goes to the
    stream below. Each write is transformed whole: print() and rich's console write a value in
    one call."""

    def __init__(self, stream: TextIO, transform: Callable[[str], str]) -> None:
        self.stream = stream
        self.transform = transform

    def write(self, text: str) -> int:
        self.stream.write(self.transform(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


class ScrubbedStream(FilteredStream):
    """A text stream that scrubs what is written to it."""

    def __init__(self, stream: TextIO, scrubber: Scrubber) -> None:
        super().__init__(stream, scrubber.scrub)


# -- the process's own environment ------------------------------------------------------------------
_process_scrubber: Scrubber | None = None


def reexec_without_secrets(argv: list[str], *, also: Iterable[str] = ()) -> None:
    """Replace this process by `python -m selfheal <argv>` with the secrets passed through a pipe.

    `also` names variables to move besides the secret-named ones (e.g. a webhook secret kept in a
    variable of the user's choosing). Returns only when there is nothing to move, when this is
    already the re-executed image, or when the secrets do not fit in a pipe."""
    if FD_VARIABLE in os.environ:
        return
    extra = set(also)
    secrets = {k: v for k, v in os.environ.items() if is_secret_name(k) or k in extra}
    if not secrets:
        return
    payload = json.dumps(secrets).encode("utf-8")
    read_end, write_end = os.pipe()
    try:
        if len(payload) >= 60_000:  # more than a pipe holds without a reader: make it larger
            import fcntl

            fcntl.fcntl(write_end, F_SETPIPE_SZ, len(payload) + 4096)
        os.write(write_end, payload)
    except OSError:  # cannot hand them over: the environment stays as it was
        os.close(read_end)
        os.close(write_end)
        return
    os.close(write_end)
    os.set_inheritable(read_end, True)
    clean = {k: v for k, v in os.environ.items() if k not in secrets}
    clean[FD_VARIABLE] = str(read_end)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-m", "selfheal", *argv], clean)


def environment_with_secrets() -> dict[str, str]:
    """os.environ plus the secrets handed over by `reexec_without_secrets` (read once, the fd
    closed). The process's scrubber (`process_scrubber`) is built here, from all of them."""
    global _process_scrubber
    env = dict(os.environ)
    fd = env.pop(FD_VARIABLE, None)
    secrets: dict[str, str] = {}
    if fd is not None:
        os.environ.pop(FD_VARIABLE, None)
        chunks = []
        try:
            with os.fdopen(int(fd), "rb") as pipe:
                while chunk := pipe.read(65536):
                    chunks.append(chunk)
            secrets = json.loads(b"".join(chunks) or b"{}")
        except (OSError, ValueError):
            secrets = {}
    env.update(secrets)
    _process_scrubber = Scrubber.from_environment(env, also=secrets)
    return env


def process_scrubber() -> Scrubber:
    """The scrubber of this process's secrets: built once by `environment_with_secrets` from the
    values handed over; in a process that was not started that way (a library call, a test), from
    os.environ, where its secrets still are."""
    if _process_scrubber is not None:
        return _process_scrubber
    return Scrubber.from_environment(os.environ)


def make_undumpable() -> None:
    """Keep same-user processes without CAP_SYS_PTRACE out of /proc/<pid>/mem and environ.

    Children get a fresh, dumpable image when they exec, so test runs are unaffected."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass
