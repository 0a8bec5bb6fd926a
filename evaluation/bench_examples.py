"""Heal every bundled example and measure candidate screening against plain pytest.

For each example under examples/: heal it with the embedded engine (local sandbox, fork-per-
candidate screening) and print status, wall seconds, candidates tried and candidates screened per
second. Then replay the same screenings (same patched files, same tests) with one fresh pytest
process per candidate, in the same run, and print that rate and the ratio between the two.

With --docker-image (and a Docker engine): the per-command overhead of the sandboxes (a command
in the running container, through selfheal's command server and through a plain `docker exec`; a
fresh `docker run` per command; the local backend) as ratios against running it directly, and
the wall time of a docker heal against a local heal of each example.

    python evaluation/bench_examples.py [--examples intervals,pricing] [--replay 15] [--python P]
                                        [--docker-image selfheal-sandbox:bookworm]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace
from selfheal.agent.loop import heal
from selfheal.agent.repair.edits import Candidate, apply_edits
from selfheal.agent.repair.search import SearchStrategy
from selfheal.agent.repair.strategy import Budget, RepairContext, RepairOutcome, ScreenFn
from selfheal.agent.run.interpreter import resolve_python
from selfheal.agent.run.screen import SubprocessScreener
from selfheal.agent.run.testcommand import TestCommand
from selfheal.agent.run.testrun import TestRunner
from selfheal.agent.run.workspace import Origin, Workspace
from selfheal.sandbox import LocalSandbox

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@dataclass
class Recorded:
    sources: dict[str, str]
    candidate: Candidate
    tests: tuple[str, ...]
    seconds: float


@dataclass
class RecordingStrategy:
    """The search engine, with every screening call timed and remembered for the replay."""

    inner: SearchStrategy = field(default_factory=SearchStrategy)
    calls: list[Recorded] = field(default_factory=list)
    name: str = "search"

    def repair(self, context: RepairContext, screen: ScreenFn, budget: Budget) -> RepairOutcome:
        def timed(candidate: Candidate):
            started = time.perf_counter()
            result = screen(candidate)
            self.calls.append(
                Recorded(context.sources, candidate, result.tests, time.perf_counter() - started)
            )
            return result

        return self.inner.repair(context, timed, budget)


def replay_with_plain_pytest(
    example: Path, python: str, calls: list[Recorded], count: int, timeout: float
) -> list[float]:
    """Seconds per candidate when each screening is a fresh pytest process."""
    chosen = calls[:: max(1, len(calls) // count)][:count]
    workspace = Workspace.create(Origin.inspect(example))
    session = LocalSandbox().start(workspace.root)
    try:
        config = build_config(example, {"python": python})
        runner = TestRunner(
            session,
            TestCommand.parse(config.test_command, python, workspace.root),
            python,
            timeout=timeout,
            test_timeout=config.test_timeout,
        )
        base = {
            path: workspace.base_text(path)
            for call in chosen
            for path in {e.file for e in call.candidate.edits}
        }
        screener = SubprocessScreener(session, runner, base)
        seconds = []
        for call in chosen:
            changes = apply_edits(call.sources, call.candidate.edits)
            started = time.perf_counter()
            screener.screen(changes, list(call.tests), timeout=timeout)
            seconds.append(time.perf_counter() - started)
        return seconds
    finally:
        session.close()
        workspace.cleanup()


# The same binaries on the host and in the base image, so only the way of running them differs.
OVERHEAD_COMMANDS = (["/bin/true"], ["/usr/bin/python3", "-c", "pass"])


def _mean_ms(run, repeat: int) -> float:
    run()  # warm-up
    started = time.perf_counter()
    for _ in range(repeat):
        run()
    return (time.perf_counter() - started) / repeat * 1000


def command_overhead(image: str, command: list[str], repeat: int) -> list[tuple[str, float]]:
    """Mean milliseconds of one command, run five ways."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="selfheal-bench-"))
    try:
        return _measure(folder, image, command, repeat)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _measure(folder: Path, image: str, command: list[str], repeat: int) -> list[tuple[str, float]]:
    import subprocess

    from selfheal.sandbox.docker import DockerSandbox

    (folder / "a.py").write_text("x = 1\n")
    rows = [
        (
            "direct subprocess",
            _mean_ms(lambda: subprocess.run(command, check=True, capture_output=True), repeat),
        )
    ]
    with LocalSandbox().start(folder) as local:
        rows.append(("local sandbox run", _mean_ms(lambda: local.run(command, timeout=30), repeat)))
    sandbox = DockerSandbox(image)
    session = sandbox.start(folder)
    try:
        rows.append(
            ("running container: command server", _mean_ms(lambda: session.run(command, timeout=30), repeat))
        )
        rows.append(
            (
                "running container: docker exec each",
                _mean_ms(lambda: session._run_by_exec(command, 30, None, None), repeat),
            )
        )
        client = sandbox.client
        rows.append(
            (
                "docker run (fresh container)",
                _mean_ms(
                    lambda: client.containers.run(
                        image, command, remove=True, network_mode="none", read_only=True, cap_drop=["ALL"]
                    ),
                    max(3, repeat // 4),
                ),
            )
        )
    finally:
        session.close()
    return rows


def docker_section(names: list[str], image: str, repeat: int) -> None:
    from selfheal.sandbox.docker import DockerSandbox, engine_answers

    if not engine_answers():
        print("\n(no Docker engine answers: docker figures skipped)")
        return
    for command in OVERHEAD_COMMANDS:
        print(f"\nper-command cost of `{' '.join(command)}` (mean of {repeat} runs):")
        rows = command_overhead(image, command, repeat)
        direct = rows[0][1]
        for label, ms in rows:
            print(f"  {label:<34} {ms:8.1f} ms  {ms / direct:7.1f}x direct  (+{ms - direct:.1f} ms)")
    print(f"\nheal wall time, docker ({image}) vs local:")
    print(f"  {'example':<12} {'local s':>8} {'docker s':>9} {'ratio':>7}  statuses")
    for name in names:
        example = EXAMPLES / name
        local = heal(
            build_config(example, {"python": resolve_python(None, example)}), LocalSandbox(), Trace()
        )
        docker = heal(build_config(example, {}), DockerSandbox(image), Trace())
        print(
            f"  {name:<12} {local.metrics.wall_s:>8.1f} {docker.metrics.wall_s:>9.1f} "
            f"{docker.metrics.wall_s / local.metrics.wall_s:>6.2f}x  {local.status}/{docker.status}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", help="comma-separated names (default: all)")
    parser.add_argument(
        "--replay",
        type=int,
        default=15,
        help="candidates replayed with plain pytest per example (default 15)",
    )
    parser.add_argument("--python", help="interpreter for the examples' tests")
    parser.add_argument("--docker-image", help="also measure the docker sandbox with this image")
    parser.add_argument("--repeat", type=int, default=20, help="runs per overhead figure")
    args = parser.parse_args(argv)
    names = (
        args.examples.split(",")
        if args.examples
        else sorted(p.name for p in EXAMPLES.iterdir() if (p / "tests").is_dir())
    )

    print(
        f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; "
        f"replaying up to {args.replay} screenings per example with plain pytest\n"
    )
    header = (
        f"{'example':<12} {'status':<10} {'wall s':>7} {'cands':>6} {'fork/s':>8} "
        f"{'pytest/s':>9} {'ratio':>7}"
    )
    print(header)
    print("-" * len(header))
    failed = False
    for name in names:
        example = EXAMPLES / name
        python = args.python or resolve_python(None, example)
        strategy = RecordingStrategy()
        config = build_config(example, {"python": python})
        result = heal(config, LocalSandbox(), Trace(), strategy)
        fork_rate = len(strategy.calls) / sum(c.seconds for c in strategy.calls) if strategy.calls else 0.0
        plain = (
            replay_with_plain_pytest(example, python, strategy.calls, args.replay, config.timeout)
            if strategy.calls
            else []
        )
        plain_rate = len(plain) / sum(plain) if plain else 0.0
        ratio = f"{fork_rate / plain_rate:.1f}x" if plain_rate else "-"
        print(
            f"{name:<12} {result.status:<10} {result.metrics.wall_s:>7.1f} "
            f"{result.metrics.candidates_tried:>6} {fork_rate:>8.1f} {plain_rate:>9.2f} {ratio:>7}"
        )
        failed |= result.status != "healed"
    print(
        "\nfork/s: candidates screened per second by the persistent worker (wall time of each "
        "screening call);\npytest/s: the same screenings, one fresh pytest process each; "
        "ratio = fork/s / pytest/s."
    )
    if args.docker_image:
        docker_section(names, args.docker_image, args.repeat)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
