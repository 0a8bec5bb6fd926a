"""Which plausible candidate ships (agent/preference.py): one that changes the computation before
one that only bypasses the failing path, and the pull request's word when only a bypass was found.

A scripted model (the fake Messages API, through the real anthropic client) answers twice in one
round: first with a guard that skips the trip the failing test trips on, then with the fix of the
comparison. Both pass every test; the fix ships. The embedded search on a word counter finds only
a guard: it ships, and the summary says what it is.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evaluation.cheats.harness import heal_with_scripted_claude
from selfheal.agent.config import build_config
from selfheal.agent.events import Trace
from selfheal.agent.loop import heal
from selfheal.agent.report.outputs import write_outputs
from selfheal.sandbox import LocalSandbox
from tests.agent.repair.test_overfit import CHUNKS, UTILS
from tests.conftest import report_errors

SPEED = '''\
def average_speed(trips):
    """Mean of distance / hours over the trips; a trip of no duration is left out."""
    speeds = []
    for distance, hours in trips:
        if hours < 0:
            continue
        speeds.append(distance / hours)
    return sum(speeds) / len(speeds) if speeds else 0.0
'''
SPEED_TESTS = """\
from travel.speed import average_speed


def test_speeds():
    assert average_speed([(10, 2), (30, 3)]) == 7.5


def test_no_trips():
    assert average_speed([]) == 0.0


def test_a_trip_of_no_duration_is_left_out():
    assert average_speed([(10, 2), (5, 0)]) == 5.0
"""
CONCLUSION = {
    "root_cause": "average_speed keeps trips of zero hours and divides by zero.",
    "location": {"file": "travel/speed.py", "line": 5, "function": "average_speed"},
    "confidence": 0.9,
    "strategy": "Leave out trips whose hours are not positive.",
    "evidence": ["average_speed([(10, 2), (5, 0)]) raised ZeroDivisionError"],
}
BYPASS = (
    "BYPASS: skip what fails\n\ntravel/speed.py\n<<<<<<< SEARCH\n        speeds.append(distance / hours)\n"
    "=======\n        if not hours:\n            continue\n        speeds.append(distance / hours)\n"
    ">>>>>>> REPLACE\n"
)
FIX = (
    "FIX: leave out trips of no duration\n\ntravel/speed.py\n<<<<<<< SEARCH\n        if hours < 0:\n"
    "=======\n        if hours <= 0:\n>>>>>>> REPLACE\n"
)


def test_a_fix_of_the_computation_ships_before_a_guard_that_skips_it(make_repo, tmp_path: Path) -> None:
    repo = make_repo({"travel/__init__.py": "", "travel/speed.py": SPEED, "tests/test_speed.py": SPEED_TESTS})
    result, trace, report = heal_with_scripted_claude(
        repo,
        [json.dumps(CONCLUSION), BYPASS, FIX],
        tmp_path,
        {"max_iterations": 1, "flake_reruns": 0},
        samples=2,
    )

    assert report["status"] == "healed"
    assert [f.description.split(":")[0] for f in result.fixes] == ["FIX"]
    assert "if hours <= 0:" in report["patch"]
    assert report["bypass"] == []
    [prefer] = [e for e in trace.events if e.node == "prefer"]
    order = [(o["candidate"].split(":")[0], o["bypass"]) for o in prefer.data["order"]]
    assert order == [("FIX", False), ("BYPASS", True)]
    summary = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert "Only a bypass was found" not in summary
    assert report["diagnosis"]["root_cause"] == CONCLUSION["root_cause"]  # no doubt to add


WORDS = '''\
def count_words(lines):
    """How often each word occurs in the lines."""
    counts = {}
    for line in lines:
        for word in line.split(" "):
            counts[word] = counts.get(word, 0) + 1
    return counts
'''
WORDS_TESTS = """\
from words.count import count_words


def test_one_line():
    assert count_words(["a b a"]) == {"a": 2, "b": 1}


def test_no_lines():
    assert count_words([]) == {}


def test_double_space():
    assert count_words(["a  b"]) == {"a": 1, "b": 1}
"""


def heal_by_search(repo: Path, out: Path) -> tuple[dict, Trace]:
    """A whole heal with the embedded search, its outputs written to `out`: report.json and trace."""
    config = build_config(repo, {"python": sys.executable, "flake_reruns": 0, "memory": "off"})
    trace = Trace()
    report = write_outputs(heal(config, LocalSandbox(), trace), trace, out)
    return report, trace


def test_when_only_a_bypass_passes_it_ships_and_the_pull_request_says_so(make_repo, tmp_path: Path) -> None:
    repo = make_repo({"words/__init__.py": "", "words/count.py": WORDS, "tests/test_count.py": WORDS_TESTS})
    report, trace = heal_by_search(repo, tmp_path / "out")

    assert report["status"] == "healed"
    assert "+            if not word:\n+                continue\n" in report["patch"]
    assert report["bypass"] == ["words/count.py: count_words"]
    assert report_errors(report) == []
    summary = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert "### ⚠️ Only a bypass was found" in summary
    assert report["diagnosis"]["root_cause"] == (
        "The patch would mean that in `count_words` (words/count.py:6) an empty or None input was not "
        "handled before use; its change: guard `if not word: continue` before line 6. Not established: "
        "it only skips the failing path in `words/count.py: count_words`, so the tests no longer run it."
    )
    assert "in `words/count.py: count_words`. No candidate that changes the computation" in summary
    [review] = [e for e in trace.events if e.node == "overfit_review" and e.data.get("status") != "started"]
    assert review.data["bypass"] == ["words/count.py: count_words"]


CACHE = '''\
import random


class Cache:
    """Keeps at most `limit` values; past it, random ones make room."""

    def __init__(self, limit):
        self.limit = limit
        self.items = {}

    def put(self, key, value):
        self.items[key] = value
        if len(self.items) > self.limit:
            self._evict()

    def get(self, key, default=None):
        return self.items.get(key, default)

    def _evict(self):
        for key in random.sample(self.items.keys(), len(self.items) - self.limit):
            del self.items[key]
'''
CACHE_TESTS = """\
from pkg.cache import Cache


def test_a_put_within_the_limit_is_kept():
    cache = Cache(limit=3)
    cache.put("a", 1)
    assert cache.get("a") == 1


def test_puts_past_the_limit_go_on():
    cache = Cache(limit=2)
    for i in range(10):
        cache.put(i, i * i)
    assert cache.get(9) == 81
"""


def test_deleting_the_call_the_failing_test_crashed_in_is_a_bypass_and_never_ready(
    make_repo, tmp_path: Path
) -> None:
    # random.sample refuses a dict's keys (3.11): the test crashes in _evict, through put's call
    repo = make_repo({"pkg/__init__.py": "", "pkg/cache.py": CACHE, "tests/test_cache.py": CACHE_TESTS})
    report, _ = heal_by_search(repo, tmp_path / "out")

    assert report["status"] == "healed"
    assert "-            self._evict()\n" in report["patch"]
    assert report["bypass"] == ["pkg/cache.py: Cache.put"]
    assert report["confidence"]["ready"] is False
    assert "it only skips the failing path" in report["confidence"]["reasons"]
    summary = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert "### ⚠️ Only a bypass was found" in summary
    assert report["diagnosis"]["root_cause"] == (
        "The patch would mean that in `Cache.put` (pkg/cache.py:14) an extra statement spoiled the result; "
        "its change: delete line 14 `self._evict()`. Not established: it only skips the failing path in "
        "`pkg/cache.py: Cache.put`, so the tests no longer run it."
    )
    assert report_errors(report) == []


# the tests of the package in tests/agent/repair/test_overfit.py, whose check `raises` runs the code
# under test
CHUNKS_TESTS = """\
from pkg.chunks import chunks
from pkg.utils import raises


def test_lists_of_the_size():
    assert chunks(2, [1, 2, 3]) == [[1, 2], [3]]


def test_the_last_is_padded_with_fill():
    assert chunks(2, [1, 2, 3], fill=0) == [[1, 2], [3, 0]]


def test_a_size_below_one_is_refused():
    assert raises(ValueError, lambda: chunks(-1, [1, 2, 3]))
"""


def test_a_patch_of_the_check_only_the_tests_call_ships_as_a_risk_and_is_never_ready(
    make_repo, tmp_path: Path
) -> None:
    # no single edit of `chunks` refuses -1; several of `raises` make it answer True
    repo = make_repo(
        {
            "pkg/__init__.py": "",
            "pkg/utils.py": UTILS,
            "pkg/chunks.py": CHUNKS,
            "tests/test_chunks.py": CHUNKS_TESTS,
        }
    )
    report, _ = heal_by_search(repo, tmp_path / "out")

    assert report["status"] == "healed"
    assert "+++ b/pkg/utils.py" in report["patch"] and "pkg/chunks.py" not in report["patch"]
    assert [(r["kind"], r["function"]) for r in report["overfit_risks"]] == [
        ("test_check", "pkg/utils.py: raises")
    ]
    confidence = report["confidence"]
    assert confidence["ready"] is False
    assert (
        confidence["reasons"][0]
        == "it changes the check a failing test asserts with, which only the tests call"
    )
    summary = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert "- `pkg/utils.py: raises` (test check): the failing test asserts what `raises` answers" in summary
    assert "Why not ready:\n\n- it changes the check a failing test asserts with" in summary
    root_cause = report["diagnosis"]["root_cause"]
    assert root_cause.startswith(
        "The patch would mean that in `raises` (pkg/utils.py:5) a constant was returned where a "
        "computed value was meant; its change: `return False` -> `return thunk`. Not established: "
        "possible overfit (test check) in `pkg/utils.py: raises`: the failing test asserts what `raises`"
    )
    assert report_errors(report) == []
