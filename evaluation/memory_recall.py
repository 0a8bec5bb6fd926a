"""Does the memory of an earlier heal make the next heal of a similar bug cheaper?

For each scenario: a small repository with two functions of one shape. The first heal fixes a
bug in one (memory on: its record lands in the repository's .selfheal/memory.jsonl). The fix is
committed and the same kind of bug is put into the other function. That second bug is then
healed twice from the same commit: with memory off, and with memory on (recalling the first
heal). Printed per scenario: the screenings until the first plausible candidate (from each run's
trace.jsonl), candidates screened in all, the status, and what was recalled.

    python evaluation/memory_recall.py [--scenarios clamp,window,rate] [--keep DIR]

Every heal is `python -m selfheal heal` with the local sandbox, as a user would run it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

GIT = [
    "git",
    "-c",
    "user.name=selfheal-eval",
    "-c",
    "user.email=eval@selfheal.invalid",
    "-c",
    "commit.gpgsign=false",
]


@dataclass(frozen=True)
class Scenario:
    name: str
    module: str  # with {first} and {second}: the buggy or the correct line of each function
    right: tuple[str, str]  # the correct lines
    wrong: tuple[str, str]  # the buggy lines
    tests: str


SCENARIOS = {
    "clamp": Scenario(
        "clamp",
        '''"""Limits of gauges."""


def clamp_percent(value):
    """value kept within 0..100."""
    low = 0
    {first}


def clamp_volume(level, ceiling=11):
    """level kept within 0..ceiling."""
    low = 0
    {second}
''',
        ("return max(low, min(value, 100))", "return max(low, min(level, ceiling))"),
        ("return max(low, max(value, 100))", "return max(low, max(level, ceiling))"),
        """from gauges.limits import clamp_percent, clamp_volume


def test_clamp_percent_keeps_a_value_inside():
    assert clamp_percent(42) == 42


def test_clamp_percent_caps_a_value_above():
    assert clamp_percent(150) == 100


def test_clamp_percent_raises_a_value_below():
    assert clamp_percent(-5) == 0


def test_clamp_volume_keeps_a_level_inside():
    assert clamp_volume(7) == 7


def test_clamp_volume_caps_a_level_above():
    assert clamp_volume(30) == 11


def test_clamp_volume_raises_a_level_below():
    assert clamp_volume(-1) == 0
""",
    ),
    "window": Scenario(
        "window",
        '''"""Moving windows over readings."""


def window_sums(readings, size):
    """Sum of every run of `size` consecutive readings."""
    sums = []
    for start in range({first}):
        sums.append(sum(readings[start : start + size]))
    return sums


def window_peaks(readings, size):
    """Largest reading of every run of `size` consecutive readings."""
    peaks = []
    for start in range({second}):
        peaks.append(max(readings[start : start + size]))
    return peaks
''',
        ("len(readings) - size + 1", "len(readings) - size + 1"),
        ("len(readings) - size", "len(readings) - size"),
        """from gauges.limits import window_peaks, window_sums


def test_window_sums_of_three():
    assert window_sums([1, 2, 3, 4], 2) == [3, 5, 7]


def test_window_sums_of_one_window():
    assert window_sums([1, 2, 3], 3) == [6]


def test_window_sums_empty_when_too_short():
    assert window_sums([1], 2) == []


def test_window_peaks_of_three():
    assert window_peaks([1, 5, 2, 4], 2) == [5, 5, 4]


def test_window_peaks_of_one_window():
    assert window_peaks([3, 1, 2], 3) == [3]


def test_window_peaks_empty_when_too_short():
    assert window_peaks([1], 2) == []
""",
    ),
    "rate": Scenario(
        "rate",
        '''"""Rates of counters."""


def hit_rate(hits, misses):
    """Share of lookups that hit, 0.0 when there were none."""
    total = hits + misses
    if total == 0:
        return 0.0
    {first}


def error_rate(errors, requests):
    """Share of requests that failed, 0.0 when there were none."""
    total = requests
    if total == 0:
        return 0.0
    {second}
''',
        ("return hits / total", "return errors / total"),
        ("return total / hits", "return total / errors"),
        """from gauges.limits import error_rate, hit_rate


def test_hit_rate_of_half():
    assert hit_rate(5, 5) == 0.5


def test_hit_rate_of_all():
    assert hit_rate(4, 0) == 1.0


def test_hit_rate_of_nothing():
    assert hit_rate(0, 0) == 0.0


def test_error_rate_of_a_quarter():
    assert error_rate(1, 4) == 0.25


def test_error_rate_of_none_failed():
    assert error_rate(0, 3) == 0.0


def test_error_rate_of_nothing():
    assert error_rate(0, 0) == 0.0
""",
    ),
}


@dataclass(frozen=True)
class Heal:
    status: str
    first_plausible: int | None
    screened: int
    recalled: list[str]
    helped: list[bool]
    wall_s: float


def write_repo(root: Path, scenario: Scenario, first: str, second: str) -> None:
    (root / "gauges").mkdir(parents=True, exist_ok=True)
    (root / "tests").mkdir(exist_ok=True)
    (root / "gauges" / "__init__.py").write_text("", encoding="utf-8")
    (root / "gauges" / "limits.py").write_text(
        scenario.module.format(first=first, second=second), encoding="utf-8"
    )
    (root / "tests" / "test_limits.py").write_text(scenario.tests, encoding="utf-8")


def commit(root: Path, message: str) -> None:
    subprocess.run([*GIT, "-C", str(root), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(root), "commit", "-qm", message], check=True)


def heal(repo: Path, out: Path, memory: str) -> Heal:
    command = [sys.executable, "-m", "selfheal", "heal", str(repo), "--sandbox", "local", "--out", str(out),
               "--memory", memory, "--seed", "0"]  # fmt: skip
    subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    first = None
    for line in (out / "trace.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event.get("node") == "screen" and event.get("plausible"):
            first = int(event["n"])
            break
    recalled = (report.get("memory") or {}).get("recalled") or []
    return Heal(
        status=report["status"],
        first_plausible=first,
        screened=int(report["metrics"].get("candidates_screened", 0)),
        recalled=[r["id"] for r in recalled],
        helped=[bool(r["helped"]) for r in recalled],
        wall_s=float(report["metrics"]["wall_s"]),
    )


def run_scenario(scenario: Scenario, work: Path) -> tuple[Heal, Heal, Heal]:
    repo = work / scenario.name / "repo"
    shutil.rmtree(repo.parent, ignore_errors=True)
    repo.mkdir(parents=True)
    subprocess.run([*GIT, "init", "-q", str(repo)], check=True)
    write_repo(repo, scenario, scenario.wrong[0], scenario.right[1])
    commit(repo, "the first bug")
    first = heal(repo, repo.parent / "heal-1", "on")
    write_repo(repo, scenario, scenario.right[0], scenario.wrong[1])  # the first fixed, the second broken
    commit(repo, "the first bug fixed, a similar one in the other function")
    without = heal(repo, repo.parent / "heal-2-memory-off", "off")
    with_memory = heal(repo, repo.parent / "heal-2-memory-on", "on")
    return first, without, with_memory


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--scenarios", default=",".join(SCENARIOS), help="comma-separated: " + ", ".join(SCENARIOS)
    )
    parser.add_argument("--keep", metavar="DIR", help="keep the repositories and run folders here")
    args = parser.parse_args(argv)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="selfheal-memory-eval-"))
    header = (
        f"{'scenario':<10} {'heal':<18} {'status':<11} {'1st plausible':>13} {'screened':>9} {'wall s':>7}"
    )
    print(header + "  recalled")
    try:
        for name in args.scenarios.split(","):
            first, without, with_memory = run_scenario(SCENARIOS[name], work)
            for label, run in (
                ("1st bug", first),
                ("2nd, memory off", without),
                ("2nd, memory on", with_memory),
            ):
                recalled = (
                    ", ".join(
                        f"{rid} ({'helped' if ok else 'did not help'})"
                        for rid, ok in zip(run.recalled, run.helped, strict=True)
                    )
                    or "-"
                )
                print(
                    f"{name:<10} {label:<18} {run.status:<11} {run.first_plausible or '-':>13} "
                    f"{run.screened:>9} {run.wall_s:>7.1f}  {recalled}"
                )
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
