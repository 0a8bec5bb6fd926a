"""`python -m evaluation.bench` (and `selfheal bench`, which runs this from a clone).

Exit codes: 0 the benchmark ran (and the gate, if given, passed), 1 a gate threshold was missed,
2 bad input: a malformed task or subset, a gate or baseline file that cannot be used, a bad setting.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
from rich.console import Console

from evaluation.bench.gate import GateError, load_gate
from evaluation.bench.metrics import Summary, compare
from evaluation.bench.output import build_document, validate
from evaluation.bench.progress import BenchProgress
from evaluation.bench.render import markdown, print_document
from evaluation.bench.runner import Runner, RunOptions
from evaluation.bench.tasks import TASKS_DIR, TaskError, select
from evaluation.realbugs.bench import DEFAULT_SUBSET as REALBUGS_SUBSET
from evaluation.realbugs.bench import prepare
from evaluation.realbugs.manifest import ManifestError
from selfheal.agent.config import HealConfig, build_config, choose_sandbox_for
from selfheal.agent.exceptions import ConfigError
from selfheal.agent.model.strategy import setup_for
from selfheal.sandbox.exceptions import SandboxUnavailable

EXIT_OK, EXIT_GATE, EXIT_BAD_INPUT = 0, 1, 2
DEFAULT_SUBSET = "smoke"
SUITES = ("own", "realbugs")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="selfheal bench",
        description="Heal each benchmark task in its own copy and sandbox, run its hidden reference "
        "tests on the patch, and report per task and per category: self-reported vs "
        "reference-validated success, iterations, candidates, wall time, tokens, cost.",
    )
    pick = parser.add_argument_group("what to run")
    pick.add_argument(
        "--suite",
        choices=SUITES,
        default="own",
        help="own: the tasks of evaluation/tasks (default); realbugs: fixes that released packages "
        "shipped, built from their PyPI sdists (evaluation/realbugs/manifest.toml; default subset "
        f"{REALBUGS_SUBSET})",
    )
    pick.add_argument(
        "--subset",
        metavar="NAME",
        help=f"a subset of evaluation/tasks/subsets.toml (default {DEFAULT_SUBSET}, or every task given "
        "by --tasks); `full` is every task",
    )
    pick.add_argument("--tasks", metavar="ID,...", help="these tasks (within --subset, if given)")
    pick.add_argument("--tasks-dir", type=Path, default=TASKS_DIR, metavar="DIR", help=argparse.SUPPRESS)
    engine = parser.add_argument_group("how to heal")
    engine.add_argument(
        "--provider",
        choices=("none", "anthropic", "ollama", "llamacpp"),
        default="none",
        help="a model besides the search (default none: the embedded engine)",
    )
    engine.add_argument("--model", metavar="NAME", help="the provider's model")
    engine.add_argument("--workers", type=int, default=2, metavar="N", help="heals at once (default 2)")
    engine.add_argument(
        "--max-candidates", type=int, metavar="N", help="search budget per heal (default 1500)"
    )
    engine.add_argument("--max-minutes", type=float, metavar="M", help="search time per heal (default 10)")
    engine.add_argument("--max-iterations", type=int, metavar="N", help="repair rounds per heal (default 3)")
    engine.add_argument("--seed", type=int, default=0, metavar="N", help="search order seed (default 0)")
    engine.add_argument(
        "--sandbox",
        choices=("auto", "docker", "local"),
        default="local",
        help="where each heal runs the task's code (default local: the figures measure the "
        "engine, not container start-up)",
    )
    engine.add_argument(
        "--task-timeout",
        type=float,
        metavar="S",
        help="kill a heal after this many seconds (default: 60 x max-minutes + 300)",
    )
    report = parser.add_argument_group("what to write")
    report.add_argument("--json", type=Path, metavar="OUT", help="the results (evaluation/bench.schema.json)")
    report.add_argument("--plot", type=Path, metavar="OUT.png", help="success by category, as a bar chart")
    report.add_argument(
        "--summary",
        type=Path,
        metavar="FILE",
        help="the tables as Markdown (also appended to $GITHUB_STEP_SUMMARY when set)",
    )
    report.add_argument(
        "--runs",
        type=Path,
        metavar="DIR",
        help="keep each heal's output folder (report.json, trace.jsonl, ...) in DIR/<task>",
    )
    report.add_argument("--baseline", type=Path, metavar="FILE", help="an earlier --json to compare with")
    report.add_argument(
        "--gate",
        type=Path,
        metavar="FILE",
        help="thresholds per subset (evaluation/gate.toml); exit 1 when one is missed",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    err = Console(stderr=True)  # the progress display; messages go to stderr as plain lines
    try:
        ids = [i.strip() for i in args.tasks.split(",") if i.strip()] if args.tasks else None
        unavailable: tuple = ()
        if args.suite == "realbugs":
            subset = args.subset if args.subset or ids else REALBUGS_SUBSET
            prepared = prepare(subset or "full", ids)
            args.tasks_dir, unavailable = prepared.tasks_dir, prepared.unavailable
            missing = {run.id for run in unavailable}
            ids = [i for i in ids if i not in missing] if ids else None
        else:
            subset = args.subset if args.subset or ids else DEFAULT_SUBSET
        # every task asked for may be unavailable (its sdist could not be downloaded)
        tasks = select(args.tasks_dir, subset, ids) if ids is None or ids else []
        if args.workers < 1:
            raise TaskError("--workers must be at least 1")
        gate = load_gate(args.gate, subset, args.provider) if args.gate else None
        baseline = _load_baseline(args.baseline) if args.baseline else None
        flags = {
            "provider": args.provider, "model": args.model, "max_candidates": args.max_candidates,
            "max_minutes": args.max_minutes, "max_iterations": args.max_iterations, "seed": args.seed,
            "sandbox": args.sandbox,
        }  # fmt: skip
        flags = {k: v for k, v in flags.items() if v is not None}
        config = _preflight(tasks[0].repo if tasks else Path.cwd(), flags)
    except (TaskError, GateError, ConfigError, SandboxUnavailable, ManifestError) as exc:
        _say(f"selfheal bench: {exc}")
        return EXIT_BAD_INPUT

    task_timeout = args.task_timeout or 60 * config.max_minutes + 300
    options = RunOptions(
        flags=flags,
        workers=args.workers,
        task_timeout=task_timeout,
        runs_dir=args.runs.resolve() if args.runs else None,
    )
    where = f" of subset {subset}" if subset else ""
    _say(
        f"benchmark: {len(tasks)} task(s){where}, provider {args.provider}, "
        f"{args.workers} worker(s), sandbox {args.sandbox}"
    )
    started = time.monotonic()
    with BenchProgress(len(tasks), err) as progress:
        try:
            runs = Runner(options, progress).run(tasks) + list(unavailable)
        except KeyboardInterrupt:
            _say("selfheal bench: interrupted; the running heals were stopped")
            return 130
    summary = Summary.of(runs, suite=args.suite)
    checks = gate.check(summary.overall) if gate else None
    settings = {
        "suite": args.suite,
        "provider": config.provider, "model": args.model, "workers": args.workers, "sandbox": config.sandbox,
        "seed": config.seed, "max_candidates": config.max_candidates, "max_minutes": config.max_minutes,
        "max_iterations": config.max_iterations, "task_timeout_s": task_timeout,
    }  # fmt: skip
    document = build_document(
        runs,
        summary,
        settings=settings,
        subset=subset,
        wall_s=time.monotonic() - started,
        gate=(gate, checks) if gate and checks is not None else None,
    )
    if baseline is not None:
        document["baseline"] = {"file": str(args.baseline), **compare(document, baseline)}
    validate(document)  # a document that breaks its own schema is a bug here, not the user's problem
    _write(document, args)
    # a log or a pipe gets wide tables rather than columns folded to 80 characters
    print_document(document, Console() if sys.stdout.isatty() else Console(width=220))
    if checks is not None and not all(c.passed for c in checks):
        for check in checks:
            if not check.passed:
                _say(f"gate [{subset}]: {check.describe()}")
        return EXIT_GATE
    return EXIT_OK


def _say(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def _preflight(repo: Path, flags: dict[str, Any]) -> HealConfig:
    """Settings checked once, before any worker starts: a bad provider or key fails here, not N times."""
    config = build_config(repo, flags)
    setup_for(config.llm, token_budget=config.max_tokens, usd_budget=config.max_usd, parallel=config.parallel)
    if config.sandbox != "local":
        choose_sandbox_for(config)
    return config


def _load_baseline(path: Path) -> dict[str, Any]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        validate(document)
    except (OSError, json.JSONDecodeError) as exc:
        raise TaskError(f"--baseline {path}: {exc}") from exc
    except jsonschema.ValidationError as exc:
        raise TaskError(f"--baseline {path}: not a benchmark result ({exc.message})") from exc
    return document


def _write(document: dict[str, Any], args: argparse.Namespace) -> None:
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    if args.plot:
        from evaluation.bench.plot import plot

        plot(document, args.plot)
    text = markdown(document)
    if args.summary:
        args.summary.parent.mkdir(parents=True, exist_ok=True)
        args.summary.write_text(text, encoding="utf-8")
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as handle:
            handle.write(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
