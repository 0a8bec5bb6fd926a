"""Among candidates that all meet the verdict, one without overfit risks wins over one that may only
fit the tests: a scripted model (the fake Messages API) first answers with the failing test's input
special-cased, then with the real fix; both pass every test."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from evaluation.cheats.harness import API_KEY, BUGGY_RETURN, CONCLUSION, FakeClaude, _message, make_repo
from selfheal.agent.config import build_config, choose_sandbox_for
from selfheal.agent.events import Trace
from selfheal.agent.loop import heal
from selfheal.agent.model.llm import ProviderSettings
from selfheal.agent.model.strategy import setup_for
from selfheal.agent.report.outputs import write_outputs

pytestmark = pytest.mark.slow


def _answer(title: str, body: str) -> str:
    return f"{title}\n\nshop/pricing.py\n<<<<<<< SEARCH\n{BUGGY_RETURN}=======\n{body}>>>>>>> REPLACE\n"


SPECIAL_CASED = _answer(
    "SPECIAL: the tested prices answered",
    "    if list(prices) == [10.0, 20.0]:\n        return 33.0\n" + BUGGY_RETURN,
)
REAL_FIX = _answer("REAL: the tax applied", "    return round(sum(prices) * (1 + tax), 2)\n")


def test_a_candidate_without_overfit_risks_wins_over_an_earlier_one_with_them(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pytest")
    fake = FakeClaude(
        tmp_path / "fake",
        [_message(json.dumps(CONCLUSION)), _message(SPECIAL_CASED), _message(REAL_FIX)],
    )
    try:
        env = {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": fake.url}
        setup = replace(
            setup_for(ProviderSettings(provider="anthropic"), env),
            search_share=0.0, spec_tests=None, qa_adversarial=None, critic=None, memory=None,
            parallel=1, samples=2,
        )  # fmt: skip
        config = build_config(
            repo, {"python": sys.executable, "sandbox": "local", "max_iterations": 1, "flake_reruns": 0}
        )
        sandbox, _ = choose_sandbox_for(config)
        trace = Trace()
        result = heal(config, sandbox, trace, model=setup)
        report = write_outputs(result, trace, tmp_path / "out")
    finally:
        fake.stop()

    assert report["status"] == "healed"
    assert [f.description.split(":")[0] for f in result.fixes] == ["REAL"]
    assert report["overfit_risks"] == []
    assert "round(sum(prices) * (1 + tax), 2)" in report["patch"]
    # the overfit review put the special case after the fix before either was validated
    [prefer] = [e for e in trace.events if e.node == "prefer"]
    order = [(o["candidate"].split(":")[0], o["overfit_risk"]) for o in prefer.data["order"]]
    assert order == [("REAL", False), ("SPECIAL", True)]
    assert [e for e in trace.events if e.node == "choose"] == []  # one validation was enough
