from __future__ import annotations

import logging
import threading

import pytest

from selfheal.agent.model.llm import MeteredProvider, Price, Reply, ScriptedModel, Usage, UsageLedger
from selfheal.agent.model.llm.accounting import priced_usage


def test_the_ledger_sums_per_call_and_per_role():
    ledger = UsageLedger()
    ledger.record("debugger", "anthropic", Reply("a", usage=Usage(100, 10, 0.01), model="m1"))
    ledger.record("debugger", "anthropic", Reply("b", usage=Usage(200, 20, 0.02), model="m1"))
    ledger.record(
        "generator", "ollama", Reply("c", usage=Usage(50, 5, 0.0), model="m2", stop_reason="max_tokens")
    )

    assert ledger.total == Usage(350, 35, pytest.approx(0.03))
    assert ledger.by_role() == {
        "debugger": Usage(300, 30, pytest.approx(0.03)),
        "generator": Usage(50, 5, 0.0),
    }
    assert ledger.calls() == 3 and ledger.calls("debugger") == 2
    assert ledger.entries[2].stop_reason == "max_tokens" and ledger.entries[2].provider == "ollama"
    assert ledger.as_dict() == {
        "total": {"calls": 3, "tokens_in": 350, "tokens_out": 35, "cost_usd": 0.03},
        "by_role": {
            "debugger": {"calls": 2, "tokens_in": 300, "tokens_out": 30, "cost_usd": 0.03},
            "generator": {"calls": 1, "tokens_in": 50, "tokens_out": 5, "cost_usd": 0.0},
        },
    }


def test_the_ledger_takes_records_from_many_threads():
    ledger = UsageLedger()

    def work() -> None:
        for _ in range(200):
            ledger.record("generator", "x", Reply("", usage=Usage(1, 1, 0.001)))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert ledger.calls() == 1600 and ledger.total.tokens_in == 1600


def test_a_metered_provider_records_each_reply_under_its_role():
    ledger = UsageLedger()
    model = ScriptedModel([Reply("x", usage=Usage(3, 4, 0.5)), "y"])
    metered = MeteredProvider(model, "critic", ledger)

    assert metered.name == "scripted"
    assert metered.complete([], max_tokens=10).text == "x"
    assert metered.complete([], max_tokens=10).text == "y"
    assert ledger.by_role() == {"critic": Usage(3, 4, 0.5)}
    assert ledger.calls("critic") == 2


def test_priced_usage_counts_cached_input_and_warns_once_for_unpriced_models(caplog):
    caplog.set_level(logging.WARNING)

    usage = priced_usage(Price(2.0, 10.0), "m", 1000, 100, cache_write=1000, cache_read=1000)
    assert usage.tokens_in == 3000
    assert usage.cost_usd == pytest.approx((1000 * 2 + 100 * 10 + 1000 * 2.5 + 1000 * 0.2) / 1e6)

    for _ in range(3):
        assert priced_usage(None, "mystery-model-xyz", 5, 5) == Usage(5, 5, 0.0)
    assert caplog.text.count("no price for model 'mystery-model-xyz'") == 1
    priced_usage(None, "local-model-xyz", 5, 5, warn_unpriced=False)
    assert "local-model-xyz" not in caplog.text
