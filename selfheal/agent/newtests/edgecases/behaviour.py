"""How much behaviour a candidate changes: the same generated inputs on the base and on each version.

    behaviour_changes(session, python, path=..., function=..., base_text=..., variants=[...],
                      existing_tests=...) -> [inputs whose outcome changed, or None] per variant

DESIGN's choice among plausible patches: prefer the one that changes the least behaviour on
inputs outside the failing ones. Two patches that both make the failing test pass differ in what
else they change; the inputs are the edge-case generator's (the tests' values and their
neighbours, annotation edges, seeded random ones), and an outcome is what the probe script sees:
the value's repr, the exception type, a timeout.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from selfheal.agent.newtests.edgecases.generate import plan_probe_job
from selfheal.agent.newtests.edgecases.runner import ProbeRun, run_probes
from selfheal.sandbox import Session
from selfheal.sandbox.exceptions import WorkspaceTrap


def behaviour_changes(
    session: Session,
    python: str,
    *,
    path: str,
    function: str,
    base_text: str,
    variants: Sequence[str],
    existing_tests: Mapping[str, str],
    module: str | None = None,
    source_dirs: Sequence[str] | None = None,
    timeout: float = 20.0,
    call_timeout: float = 0.5,
    seed: int = 0,
    max_probes: int = 60,
) -> list[int | None]:
    """For each variant text of `path`, the number of inputs of `function` whose outcome differs
    from the base text's; None where it could not be told (no inputs, the function not
    importable). The file's previous content is put back whatever happens."""
    unknown: list[int | None] = [None] * len(variants)
    planned = plan_probe_job(
        path=path, function=function, text=base_text, existing_tests=existing_tests, module=module,
        source_dirs=source_dirs, seed=seed, max_probes=max_probes, call_timeout=call_timeout,
    )  # fmt: skip
    original = session.read_file(path)
    if isinstance(planned, str) or original is None:
        return unknown

    job, dirs = planned.job, planned.dirs

    def run(text: str) -> ProbeRun:
        session.write_file(path, text)
        return run_probes(session, python, job, timeout=timeout, hash_seed=0, source_dirs=dirs)

    try:
        base = run(base_text)
        if base.target is None:
            return unknown
        counts: list[int | None] = []
        for text in variants:
            version = run(text)
            if version.target is None:
                counts.append(None)
                continue
            counts.append(
                sum(
                    1
                    for probe_id, outcome in base.outcomes.items()
                    if outcome.key is not None and version.outcomes[probe_id].key != outcome.key
                )
            )
        return counts
    except WorkspaceTrap:
        return unknown
    finally:
        session.write_file(path, original, force=True)
