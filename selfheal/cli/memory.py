"""`selfheal memory list|show|forget|export` and `selfheal report RUN_DIR [--open]`.

The memory commands read the local store (`.selfheal/memory.jsonl` of --repo: by default the
repository the last heal run from this folder healed, else `.`) or, with
--github OWNER/REPO and a token in the environment variable --token-env names (GITHUB_TOKEN by
default), the repository's `selfheal-memory` branch on GitHub, through git with the token in a
header only (`selfheal.bot.github.gitops.Remote`).
"""

from __future__ import annotations

import argparse
import json
import sys
import webbrowser
from collections.abc import Mapping
from pathlib import Path

from selfheal.agent.exceptions import SelfhealError
from selfheal.agent.report.html import write_html
from selfheal.agent.report.lastheal import last_healed
from selfheal.agent.report.memory import LocalMemory, MemoryRecord, find, recall_counts, render_lines
from selfheal.bot.exceptions import BotError
from selfheal.bot.github.gitops import Remote
from selfheal.bot.github.memorybranch import MEMORY_BRANCH, MemoryBranch

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


def run_memory_command(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    try:
        if args.command == "report":
            return _report(args)
        if args.github:
            return _branch_memory(args, env)
        store = LocalMemory(Path(args.file)) if args.file else LocalMemory.of_repo(_repo(args))
        return _memory(args, store)
    except (SelfhealError, BotError) as exc:  # a store or branch that cannot be read or written
        print(f"selfheal: {exc}", file=sys.stderr)
        return EXIT_FAILED


def _repo(args: argparse.Namespace) -> Path:
    """--repo, else the repository the last heal from here healed (said, since it is not `.`)."""
    if args.repo:
        return Path(args.repo)
    healed = last_healed(Path.cwd())
    if healed is None:
        return Path(".")
    print(
        f"memory of {healed}, which the last heal from here healed (--repo PATH for another)", file=sys.stderr
    )
    return healed


def _report(args: argparse.Namespace) -> int:
    run_dir = Path(args.run_dir).expanduser()
    if not run_dir.is_dir():
        print(f"selfheal: {args.run_dir}: no such folder", file=sys.stderr)
        return EXIT_BAD_INPUT
    if not (run_dir / "report.json").is_file():  # a usage error, as a missing folder is
        print(
            f"selfheal: {args.run_dir}: not the output folder of a heal (it holds no report.json)",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    path = write_html(run_dir)
    print(path)
    if args.open:
        webbrowser.open(path.resolve().as_uri())
    return EXIT_OK


def _memory(args: argparse.Namespace, store: LocalMemory) -> int:
    if args.action in ("show", "forget") and not args.id:
        print(f"selfheal: memory {args.action} needs the id of a record", file=sys.stderr)
        return EXIT_BAD_INPUT
    records = store.records()
    if args.action == "list":
        counts = recall_counts(records)
        for record in records:
            print(_line(record, counts[record.id]))
        if not records:
            print(f"no record in {store.path}", file=sys.stderr)
        return EXIT_OK
    if args.action == "export":
        sys.stdout.write(store.export())
        return EXIT_OK
    record = find(records, args.id)
    if record is None:
        print(f"selfheal: no single record {args.id!r} in {store.path}", file=sys.stderr)
        return EXIT_FAILED
    if args.action == "show":
        print(json.dumps(record.as_dict(), indent=2))
        return EXIT_OK
    store.forget(record.id)
    print(f"forgot {record.id}")
    return EXIT_OK


def _branch_memory(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    token = env.get(args.token_env, "")
    if not token:
        print(f"selfheal: memory --github needs a token in ${args.token_env}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.action in ("show", "forget") and not args.id:
        print(f"selfheal: memory {args.action} needs the id of a record", file=sys.stderr)
        return EXIT_BAD_INPUT
    branch = MemoryBranch(Remote(f"{args.server.rstrip('/')}/{args.github}.git", token))
    records = branch.read()
    where = f"{args.github}:{MEMORY_BRANCH}"
    if args.action == "list":
        counts = recall_counts(records)
        for record in records:
            print(_line(record, counts[record.id]))
        return EXIT_OK
    if args.action == "export":
        sys.stdout.write(render_lines(records))
        return EXIT_OK
    record = find(records, args.id)
    if record is None:
        print(f"selfheal: no single record {args.id!r} in {where}", file=sys.stderr)
        return EXIT_FAILED
    if args.action == "show":
        print(json.dumps(record.as_dict(), indent=2))
        return EXIT_OK
    branch.forget(record.id)
    print(f"forgot {record.id} in {where}")
    return EXIT_OK


def _line(record: MemoryRecord, recalled: int) -> str:
    where = ", ".join(f"{function} ({path})" for path, function in record.fix_sites[:2]) or ", ".join(
        record.functions[:2]
    )
    families = ", ".join(record.families) or "-"
    return (
        f"{record.id}  {record.created}  {record.status:<10} {'/'.join(record.error_types[:2]):<24} "
        f"{families:<22} {where}  (recalled {recalled}x)"
    )
