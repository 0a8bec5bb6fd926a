"""How long does a heal take on a large repository: 1,000+ tests, a 3,000+-line module?

Builds, locally and from a seed, a repository of that size: one long module of small numeric
functions (`metrics/engine.py`), a test file per forty functions with a few tests each, and
tests that run several functions at once through `pipeline()`. One function carries a seeded
boundary bug (`>` for `>=`), so a handful of its tests fail. Then heals it with
`python -m selfheal heal` on the local sandbox, as a user would, and prints the figures: wall
time, seconds per stage (from trace.jsonl), candidates screened, screening seconds per
candidate, and whether the verdict healed it.

    python evaluation/scale.py [--functions 320] [--tests-per-function 4] [--seed 7]
                               [--max-minutes 10] [--keep DIR] [--json]

Speed figures live here, never in timed unit tests; the machine may be shared, so the load
average at the start is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

GIT = ["git", "-c", "user.name=selfheal-eval", "-c", "user.email=eval@selfheal.invalid",
       "-c", "commit.gpgsign=false"]  # fmt: skip
FUNCTIONS_PER_TEST_FILE = 40

# Each template is one small function of `values`; {k} and {m} are its constants. The comparison
# `value >= {k}` is where the seeded bug goes (`>`), on a value equal to {k} in a test.
TEMPLATES = (
    '''def {name}(values, scale={m}):
    """Scaled sum of the values at or above {k}, less the index of the others."""
    total = 0
    for index, value in enumerate(values):
        if value >= {k}:
            total += value * scale
        else:
            total -= index
    return total + {k}
''',
    '''def {name}(values, limit={m}):
    """How many values are at or above {k}, at most `limit`, and their largest."""
    count = 0
    largest = None
    for value in values:
        if value >= {k}:
            count += 1
            if largest is None or value > largest:
                largest = value
    return min(count, limit), largest
''',
    '''def {name}(values, step={m}):
    """The values at or above {k}, each rounded down to a multiple of `step`."""
    kept = []
    for value in values:
        if value >= {k}:
            kept.append(value - value % step)
    if not kept:
        return [{k}]
    return kept
''',
    '''def {name}(values, base={m}):
    """A checksum of the values: those at or above {k} count twice."""
    digest = base
    for position, value in enumerate(values, start=1):
        weight = 2 if value >= {k} else 1
        digest = (digest * 31 + value * weight + position) % 1000003
    return digest
''',
)


@dataclass(frozen=True)
class Repository:
    path: Path
    module_lines: int
    tests: int
    buggy_function: str
    failing: tuple[str, ...]


@dataclass
class Figures:
    status: str
    healed: bool
    exit_code: int
    module_lines: int
    tests: int
    failing_before: int
    wall_s: float
    stages_s: dict[str, float] = field(default_factory=dict)
    candidates_screened: int = 0
    screen_s: float = 0.0
    screen_s_per_candidate: float = 0.0
    coverage: dict[str, object] = field(default_factory=dict)
    patch: str = ""
    load_average: float = 0.0


def _function_source(index: int, rng: random.Random) -> tuple[str, str, int, int]:
    name = f"measure_{index:04d}"
    template = TEMPLATES[index % len(TEMPLATES)]
    k, m = rng.randint(5, 60), rng.randint(2, 9)
    return name, template.format(name=name, k=k, m=m), k, m


def _inputs(k: int, rng: random.Random, count: int) -> list[list[int]]:
    """Inputs for one function's tests: the first holds a value equal to `k` (the boundary the
    seeded bug moves), the others stay clear of it."""
    found = [[k - 3, k, k + 4, 1]]
    while len(found) < count:
        values = [rng.randint(0, 90) for _ in range(rng.randint(2, 7))]
        if k not in values:
            found.append(values)
    return found


def build(root: Path, functions: int, tests_per_function: int, seed: int) -> Repository:
    """The repository at `root` (a fresh git repository), with its seeded bug committed."""
    rng = random.Random(seed)
    sources: list[str] = []
    specs: list[tuple[str, int, int]] = []
    for index in range(functions):
        name, source, k, m = _function_source(index, rng)
        sources.append(source)
        specs.append((name, k, m))
    pipeline_names = [name for name, _, _ in specs[:: max(1, functions // 8)]]
    pipeline = 'def pipeline(values):\n    """Several measures of the same values, in order."""\n'
    pipeline += "    return [\n" + "".join(f"        {n}(values),\n" for n in pipeline_names) + "    ]\n"
    header = '"""Measures of integer sequences (a generated module, long on purpose)."""\n\n\n'
    correct = header + "\n\n".join(sources) + "\n\n" + pipeline
    # the expected values come from the correct module, run here
    namespace: dict[str, object] = {}
    exec(compile(correct, "engine.py", "exec"), namespace)
    buggy_index = functions // 2 + 1
    buggy_name, buggy_k, _ = specs[buggy_index]
    buggy_source = sources[buggy_index].replace(f"value >= {buggy_k}", f"value > {buggy_k}", 1)
    module = correct.replace(sources[buggy_index], buggy_source, 1)
    bug_namespace: dict[str, object] = {}
    exec(compile(module, "engine.py", "exec"), bug_namespace)

    package = root / "metrics"
    (root / "tests").mkdir(parents=True)
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "engine.py").write_text(module)
    test_count, failing = 0, []
    for first in range(0, functions, FUNCTIONS_PER_TEST_FILE):
        chunk = specs[first : first + FUNCTIONS_PER_TEST_FILE]
        file = f"tests/test_engine_{first // FUNCTIONS_PER_TEST_FILE:02d}.py"
        lines = ["from metrics import engine", ""]
        for name, k, _ in chunk:
            for number, values in enumerate(_inputs(k, rng, tests_per_function)):
                expected = namespace[name](values)  # type: ignore[operator]
                test = f"test_{name}_{number}"
                lines += ["", f"def {test}():", f"    assert engine.{name}({values!r}) == {expected!r}", ""]
                test_count += 1
                if bug_namespace[name](values) != expected:  # type: ignore[operator]
                    failing.append(f"{file}::{test}")
        (root / file).write_text("\n".join(lines))
    pipeline_tests = ["from metrics.engine import pipeline", ""]
    for number in range(max(4, functions // 10)):
        values = [rng.randint(0, 90) for _ in range(6)]
        expected = namespace["pipeline"](values)  # type: ignore[operator]
        assertion = f"    assert pipeline({values!r}) == {expected!r}"
        pipeline_tests += ["", f"def test_pipeline_{number}():", assertion, ""]
        test_count += 1
        if bug_namespace["pipeline"](values) != expected:  # type: ignore[operator]
            failing.append(f"tests/test_pipeline.py::test_pipeline_{number}")
    (root / "tests" / "test_pipeline.py").write_text("\n".join(pipeline_tests))
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "a large repository"]):
        subprocess.run([*GIT, *args], cwd=root, check=True, capture_output=True)
    return Repository(root, module.count("\n"), test_count, buggy_name, tuple(failing))


def stage_seconds(trace: list[dict]) -> dict[str, float]:
    """Seconds per step of the heal, summed over the step's events (validations add up)."""
    seconds: dict[str, float] = defaultdict(float)
    for event in trace:
        start, end = event.get("start"), event.get("end")
        timed = isinstance(start, (int, float)) and isinstance(end, (int, float))
        if timed and event.get("node") != "screen":
            seconds[event["node"]] += end - start
    return {node: round(value, 2) for node, value in seconds.items()}


def heal(repo: Repository, out: Path, max_minutes: float) -> Figures:
    load = os.getloadavg()[0]
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "selfheal", "heal", str(repo.path), "--sandbox", "local",
         "--out", str(out), "--max-minutes", f"{max_minutes:g}", "--memory", "off",
         "--python", sys.executable],
        capture_output=True, text=True,
    )  # fmt: skip
    wall = time.monotonic() - started
    report = json.loads((out / "report.json").read_text())
    trace = [json.loads(line) for line in (out / "trace.jsonl").read_text().splitlines() if line.strip()]
    metrics = report["metrics"]
    screened, screen_s = int(metrics.get("candidates_screened", 0)), float(metrics.get("screen_s", 0.0))
    coverage = next((e for e in trace if e.get("node") == "coverage"), {})
    worker = next((e for e in trace if e.get("node") == "screening_worker"), {})
    return Figures(
        status=report["status"],
        healed=report["status"] == "healed",
        exit_code=done.returncode,
        module_lines=repo.module_lines,
        tests=repo.tests,
        failing_before=len(report.get("failures_before", [])),
        wall_s=round(wall, 2),
        stages_s=stage_seconds(trace),
        candidates_screened=screened,
        screen_s=round(screen_s, 2),
        screen_s_per_candidate=round(screen_s / screened, 3) if screened else 0.0,
        coverage={
            key: coverage.get(key)
            for key in ("traced_failing", "traced_passing", "whole_suite", "suspects")
            if key in coverage
        }
        | {"screener": worker.get("screener")},
        patch=report.get("patch") or "",
        load_average=round(load, 2),
    )


def measure(
    work: Path, *, functions: int = 320, tests_per_function: int = 4, seed: int = 7, max_minutes: float = 10
) -> tuple[Repository, Figures]:
    repo = build(work / "repo", functions, tests_per_function, seed)
    return repo, heal(repo, work / "out", max_minutes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--functions", type=int, default=320)
    parser.add_argument("--tests-per-function", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-minutes", type=float, default=10)
    parser.add_argument("--keep", type=Path, help="build and heal here, and keep it (default: a temp folder)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="selfheal-scale-"))
    try:
        repo, figures = measure(
            work, functions=args.functions, tests_per_function=args.tests_per_function,
            seed=args.seed, max_minutes=args.max_minutes,
        )  # fmt: skip
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        repository = {**asdict(repo), "path": str(repo.path)}
        print(json.dumps({"repository": repository, "figures": asdict(figures)}))
        return 0 if figures.healed else 1
    print(f"repository: {repo.tests} tests, metrics/engine.py {repo.module_lines} lines, "
          f"bug in {repo.buggy_function} ({len(repo.failing)} failing)")  # fmt: skip
    print(f"load average at start: {figures.load_average} on {os.cpu_count()} cores")
    print(f"status: {figures.status} (exit {figures.exit_code}); wall {figures.wall_s}s")
    for node, seconds in sorted(figures.stages_s.items(), key=lambda item: -item[1]):
        print(f"  {node:<20} {seconds:8.2f}s")
    print(f"coverage: {figures.coverage}")
    print(f"candidates screened: {figures.candidates_screened}; repair steps {figures.screen_s}s, "
          f"{figures.screen_s_per_candidate}s per candidate")  # fmt: skip
    if figures.patch:
        print(figures.patch)
    return 0 if figures.healed else 1


if __name__ == "__main__":
    sys.exit(main())
