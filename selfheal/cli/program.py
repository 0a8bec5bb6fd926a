"""`selfheal`, the program: parse once, keep secrets out of the environment and the output, and
hand the command to its handler; the exit codes are in `selfheal.cli.exits`."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from selfheal.cli.exits import EXIT_BAD_INPUT, raise_terminated
from selfheal.cli.parsers import build_parser
from selfheal.sandbox.secrets import (
    FilteredStream,
    ScrubbedStream,
    Scrubber,
    environment_with_secrets,
    make_undumpable,
    process_scrubber,
    reexec_without_secrets,
)


def main(argv: list[str] | None = None) -> int:
    """`argv` None: started as the program (`selfheal …`, `python -m selfheal …`). Then a command
    that holds secrets first re-executes itself without them in its environment (see
    selfheal.sandbox.secrets) and reads them from the mapping they were handed over in. Called
    with `argv` (in-process, from tests), it uses os.environ as it is."""
    args = build_parser().parse_args(argv)
    # Each handler is imported when its command runs: a command that holds secrets re-executes
    # itself first, and the image that only hands them over should not load the heal's modules
    # (a third of a second) for nothing.
    if args.command == "bench":
        from selfheal.cli.bench import run_bench

        return run_bench(args.args)
    named = _named_secrets(args)
    if argv is None:
        reexec_without_secrets(sys.argv[1:], also=named)
        env = environment_with_secrets()
        make_undumpable()
        scrubber = process_scrubber()
    else:
        env = dict(os.environ)
        scrubber = Scrubber.from_environment(env, also=named)
    if argv is None and args.command in ("heal", "replay", "action"):  # the program, not a caller's process
        signal.signal(signal.SIGTERM, raise_terminated)
    # the Action writes its own annotations, and guards what it prints itself
    with scrubbed_std_streams(scrubber, guard_commands=args.command != "action"):
        if args.command in ("heal", "replay"):
            from selfheal.cli.heal import run_heal, run_replay

            return (run_heal if args.command == "heal" else run_replay)(args, env, scrubber)
        if args.command == "action":
            from selfheal.action.main import run as run_action

            return run_action(env, scrub=scrubber)
        if args.command in ("memory", "report"):
            from selfheal.cli.memory import run_memory_command

            return run_memory_command(args, env)
        if args.command == "bot":
            from selfheal.bot.server.serve import run_server

            return run_server(args, env)
    return EXIT_BAD_INPUT


def _named_secrets(args: argparse.Namespace) -> tuple[str, ...]:
    """Variables that hold a secret whatever their name: the bot's webhook secret may be in any,
    and so may the token `selfheal memory --github` reads."""
    names = [getattr(args, "webhook_secret_env", None), getattr(args, "token_env", None)]
    return tuple(name for name in names if name)


@contextmanager
def scrubbed_std_streams(scrubber: Scrubber, *, guard_commands: bool = True) -> Iterator[None]:
    """stdout and stderr scrubbed while a command runs: the summary lines, --json, the progress
    display, an error message or a traceback all go through them; with `guard_commands`, no line
    of theirs is a workflow command either."""
    from selfheal.action.runner import CommandGuard

    saved = sys.stdout, sys.stderr
    streams: list[TextIO] = [ScrubbedStream(stream, scrubber) for stream in saved]  # type: ignore[misc]
    if guard_commands:
        # `selfheal heal` may be a step of a GitHub workflow, whose runner obeys `::` lines on its
        # output; what it prints carries the repository's text (a failure, an import error)
        streams = [FilteredStream(stream, CommandGuard().feed) for stream in streams]  # type: ignore[misc]
    sys.stdout, sys.stderr = streams
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout, sys.stderr = saved
