"""`selfheal` command line: parse once, heal, write the outputs, exit with a meaningful code.

`program` parses and dispatches; `parsers` holds the argparse parsers; each subcommand's handler
has its own module (`heal` for heal and replay, `memory` for memory and report, `bench`).
"""

from selfheal.cli.program import main

__all__ = ["main"]
