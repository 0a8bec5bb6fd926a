"""`selfheal bench`: the benchmark of a clone, run as its own process."""

from __future__ import annotations

import sys
from pathlib import Path

from selfheal.cli.exits import EXIT_BAD_INPUT, fail


def run_bench(argv: list[str]) -> int:
    """`selfheal bench`: evaluation/ sits in a clone, not in the package, and nothing in selfheal may
    import it, so the benchmark runs as its own process. It is `python -m evaluation.bench` with the
    clone on sys.path rather than as the working directory, so relative paths (--json out.json) mean
    what they mean where the user typed them."""
    import subprocess

    here = Path.cwd().resolve()
    candidates = [here, *here.parents, Path(__file__).resolve().parents[2]]
    root = next((d for d in candidates if (d / "evaluation" / "bench" / "__main__.py").is_file()), None)
    if root is None:
        return fail(
            "selfheal bench runs from a clone of the repository: the tasks and the runner (evaluation/) "
            "are not part of the installed package. git clone the repository, then from its folder: "
            "pip install -e '.[bench]' && selfheal bench --subset smoke",
            EXIT_BAD_INPUT,
        )
    boot = (
        "import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); "
        "runpy.run_module('evaluation.bench', run_name='__main__', alter_sys=True)"
    )
    try:
        return subprocess.run([sys.executable, "-c", boot, str(root), *argv]).returncode
    except KeyboardInterrupt:
        return 130
