"""Screening that agrees with the real run when tests share module state (agent/prepare.py's
`start_screener`, run/screen.py's `OrderedScreener`).

The price rules are registered by a test of another file that runs first in the real run. The
screening worker runs the failing test on its own, where the registry is empty: every candidate,
the fix included, fails there with a KeyError. The heal notices the worker's failure is not the
real run's, finds that the test needs the tests that ran before it, screens it in a fresh process
after them, and ships the fix.
"""

from __future__ import annotations

import sys

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace, describe_finished
from selfheal.agent.loop import heal
from selfheal.sandbox import LocalSandbox

REPO = {
    "shop/__init__.py": "",
    "shop/registry.py": '''\
        """Named price rules, registered once at start-up and looked up by name."""

        _rules = {}


        def register(name, rule):
            _rules[name] = rule


        def apply(name, price):
            return _rules[name](price)
        ''',
    "shop/rules.py": """\
        from shop.registry import register


        def install():
            register("half", lambda price: price / 2)
            register("plus_tax", lambda price: round(price / 1.2, 2))
        """,
    "tests/test_1_install.py": """\
        from shop import rules
        from shop.registry import apply


        def test_install_registers_half():
            rules.install()
            assert apply("half", 10) == 5
        """,
    "tests/test_2_rules.py": """\
        from shop.registry import apply


        def test_plus_tax_adds_twenty_percent():
            assert apply("plus_tax", 10) == 12.0


        def test_half_of_nothing():
            assert apply("half", 0) == 0
        """,
}
TARGET = "tests/test_2_rules.py::test_plus_tax_adds_twenty_percent"
HALF = "tests/test_2_rules.py::test_half_of_nothing"


def test_a_test_that_needs_what_earlier_tests_left_is_screened_after_them(make_repo) -> None:
    repo = make_repo(REPO)
    trace = Trace()
    result = heal(build_config(repo, {"python": sys.executable, "memory": "off"}), LocalSandbox(), trace)

    assert result.status == "healed"
    assert [f.description for f in result.fixes] == ["shop/rules.py:6: `/` -> `*` in `price / 1.2`"]
    [worker] = [e for e in trace.events if e.node == "screening_worker" and "screener" in e.data]
    assert worker.data["screener"] == "fork-worker+ordered"
    # the worker's KeyError against the real AssertionError; and, when the worker ran it before the
    # test that fills the registry, the half rule's test too: each is screened after its prefix
    assert TARGET in worker.data["ordered"]
    assert set(worker.data["ordered"]) <= {TARGET, HALF}
    assert worker.data["disagreements"] == len(worker.data["ordered"])
    assert result.metrics.screener == "fork-worker+ordered"
    assert any("depend on what earlier tests leave behind" in note for note in result.notes)
    assert "screened in a fresh process after them" in (describe_finished(worker) or "")


def test_a_failed_comparison_the_worker_words_without_its_exception_name_is_not_a_disagreement(
    make_repo,
) -> None:
    # with a double quote in its `+  where` line, pytest in the fork-worker words this failed
    # comparison `assert {...} == {...}`, the real run `AssertionError: assert ...`: the same
    # failure, so the heal keeps the plain worker instead of a fresh pytest process per candidate
    repo = make_repo(
        {
            "tally/__init__.py": "",
            "tally/levels.py": '''\
                """Counts of log lines by level."""


                def counts(lines):
                    found = {}
                    for line in lines:
                        level = line.split()[0]
                        found[level] = found.get(level, 1) + 1
                    return found
                ''',
            "tests/test_levels.py": """\
                from tally.levels import counts


                def test_no_lines():
                    assert counts([]) == {}


                def test_counts_by_level():
                    assert counts(['INFO user said "hi"', "INFO b", "ERROR c"]) == {"INFO": 2, "ERROR": 1}
                """,
        }
    )
    trace = Trace()
    result = heal(build_config(repo, {"python": sys.executable, "memory": "off"}), LocalSandbox(), trace)

    assert result.status == "healed"
    [worker] = [e for e in trace.events if e.node == "screening_worker" and "screener" in e.data]
    assert worker.data["screener"] == "fork-worker"
    assert "disagreements" not in worker.data
    assert result.metrics.screener == "fork-worker"
