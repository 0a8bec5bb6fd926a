"""Heal the bundled examples with a real model doing the repair (the search switched off) and count
what its answers were worth: the robustness check for weak models.

    SELFHEAL_LLAMACPP_MODEL=/path/model.gguf python evaluation/model_run.py --provider llamacpp
    python evaluation/model_run.py --provider ollama --examples intervals

Per example: status, who made the fix, debugger steps and tool calls, whether the diagnosis was
valid or degraded, generator answers and how many did not apply, tokens, wall seconds. A run must
end cleanly whatever the model says; the search takes over when the model's repair fails.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace
from selfheal.agent.loop import heal
from selfheal.agent.model.llm import ProviderSettings
from selfheal.agent.model.strategy import setup_for
from selfheal.sandbox import LocalSandbox

ROOT = Path(__file__).resolve().parents[1]


def copy_example(name: str, into: Path) -> Path:
    repo = into / name
    shutil.copytree(ROOT / "examples" / name, repo, ignore=shutil.ignore_patterns(".selfheal", "__pycache__"))
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "example"]):
        subprocess.run(
            ["git", "-c", "user.name=b", "-c", "user.email=b@example.com", *args], cwd=repo, check=True
        )
    return repo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--provider", required=True, choices=("anthropic", "ollama", "llamacpp"))
    parser.add_argument("--examples", default="", help="comma-separated (default: all)")
    parser.add_argument("--samples", type=int, default=3)
    args = parser.parse_args()
    names = [n for n in args.examples.split(",") if n] or sorted(
        p.name for p in (ROOT / "examples").iterdir() if (p / "tests").is_dir()
    )
    setup = setup_for(ProviderSettings(provider=args.provider))
    assert setup is not None
    setup = replace(setup, search_share=0.0, samples=args.samples)
    header = f"{'example':<11}{'status':<12}{'fix by':<11}{'steps':>6}{'tools':>6}  {'diagnosis':<10}"
    print(header + f"{'answers':>8}{'unapplied':>10}{'tokens':>14}{'wall s':>8}")
    totals = {
        role: [0, 0] for role in ("spec_tests", "qa_adversarial", "debugger", "generator", "memory", "critic")
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            repo = copy_example(name, Path(tmp))
            trace = Trace()
            started = time.monotonic()
            result = heal(build_config(repo, {"python": sys.executable}), LocalSandbox(), trace, model=setup)
            wall = time.monotonic() - started
            nodes = {e.node: e.data for e in trace.events}
            debug, gen = nodes.get("debugger", {}), nodes.get("generator", {})
            diagnosis = "degraded" if debug.get("degraded") else ("valid" if debug else "-")
            by = result.fixes[0].strategy if result.fixes else "-"
            tokens = f"{result.metrics.tokens_in}+{result.metrics.tokens_out}"
            steps, calls = debug.get("steps", 0), debug.get("tool_calls", 0)
            answers, unapplied = gen.get("answers", 0), gen.get("not_applied", 0)
            print(
                f"{name:<11}{result.status:<12}{by:<11}{steps:>6}{calls:>6}  "
                f"{diagnosis:<10}{answers:>8}{unapplied:>10}{tokens:>14}{wall:>8.1f}"
            )
            if gen.get("model_stopped"):
                print(f"{'':<11}{gen['model_stopped'][:150]}")
            counts = answer_counts(trace)
            for role, (valid, degraded) in counts.items():
                totals[role][0] += valid
                totals[role][1] += degraded
            said = ", ".join(f"{role} {v}/{d}" for role, (v, d) in counts.items())
            print(f"{'':<11}answers valid/degraded: {said or 'none'}", flush=True)
            shipped = [t for t in result.verdict.new_tests] if result.verdict else []
            print(f"{'':<11}new tests shipped: {len(shipped)}; discarded: {len(result.tests.discarded)}")
    print("\nmodel answers per role: valid / degraded (degraded = no usable answer after salvage and retry)")
    for role, (valid, degraded) in totals.items():
        print(f"  {role:<15}{valid:>4} valid {degraded:>4} degraded")
    return 0


def answer_counts(trace: Trace) -> dict[str, tuple[int, int]]:
    """Every model answer of one heal, valid or degraded, per role, from its trace."""
    counts: dict[str, list[int]] = {}

    def add(role: str, degraded: bool) -> None:
        counts.setdefault(role, [0, 0])[1 if degraded else 0] += 1

    for event in trace.events:
        data = event.data
        if event.end is None:
            continue
        if event.node == "debugger":
            add("debugger", bool(data.get("degraded")))
        elif event.node == "generator":
            for _ in range(data.get("answers", 0) - data.get("not_applied", 0)):
                add("generator", False)
            for _ in range(data.get("not_applied", 0)):
                add("generator", True)
        elif event.node == "qa":
            for answer in data.get("answers", []):
                add(answer["role"], bool(answer["degraded"]))
        elif event.node == "memory":
            add("memory", bool(data.get("degraded")))
        elif event.node == "critic":
            add("critic", data.get("decision") == "no usable answer")
    return {role: (v, d) for role, (v, d) in counts.items()}


if __name__ == "__main__":
    sys.exit(main())
