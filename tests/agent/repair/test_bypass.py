"""The bypass review: a patch that only skips the failing path, told apart from one that changes
the computation (agent/repair/bypass.py)."""

from __future__ import annotations

import pytest

from selfheal.agent.repair.bypass import bypassed_functions, changed_functions

BASE = """\
def f(items, k):
    out = []
    for x in items:
        v = x.get(k)
        out.append(v * 2)
    return out


def g(a):
    return a + 1
"""

BYPASSES = {
    "a guard that continues": (
        "        v = x.get(k)\n",
        "        if not x:\n            continue\n        v = x.get(k)\n",
    ),
    "a guard that returns": ("    out = []\n", "    if not items:\n        return []\n    out = []\n"),
    "a guard around what was there": (
        "        out.append(v * 2)\n",
        "        if v is not None:\n            out.append(v * 2)\n",
    ),
    "a bare early return": ("    return out\n", "    return out\n    return out\n"),
    "a guard that breaks, inside the loop": (
        "        out.append(v * 2)\n",
        "        out.append(v * 2)\n        if len(out) > 3:\n            break\n",
    ),
}
COMPUTATIONS = {
    "an operator": ("v * 2", "v * 3"),
    "a value in the guard's branch and elsewhere": ("a + 1", "a + 2"),
    "a deleted statement": ("        out.append(v * 2)\n", ""),
    "a conditional expression": ("return a + 1", "return a + 1 if a else 0"),
    "a guard that raises": (
        "    out = []\n",
        "    if not items:\n        raise ValueError(items)\n    out = []\n",
    ),
    "a guard with an else branch": (
        "        out.append(v * 2)\n",
        "        if v is not None:\n            out.append(v * 2)\n"
        "        else:\n            out.append(0)\n",
    ),
    "a new module-level name": ("def g(a):", "LIMIT = 3\n\n\ndef g(a):"),
}


@pytest.mark.parametrize("name", BYPASSES)
def test_a_patch_that_only_skips_code_is_a_bypass(name: str) -> None:
    old, new = BYPASSES[name]
    assert bypassed_functions({"m.py": BASE}, {"m.py": BASE.replace(old, new, 1)}) == ("m.py: f",)


@pytest.mark.parametrize("name", COMPUTATIONS)
def test_a_patch_that_changes_the_computation_is_none(name: str) -> None:
    old, new = COMPUTATIONS[name]
    assert bypassed_functions({"m.py": BASE}, {"m.py": BASE.replace(old, new, 1)}) == ()


def test_a_bypass_beside_a_change_of_the_computation_elsewhere_is_none() -> None:
    patched = BASE.replace("    out = []\n", "    if not items:\n        return []\n    out = []\n").replace(
        "a + 1", "a + 2"
    )
    assert bypassed_functions({"m.py": BASE}, {"m.py": patched}) == ()


def test_an_unchanged_patch_and_a_changed_condition_of_an_existing_guard() -> None:
    guarded = BASE.replace("    out = []\n", "    if not items:\n        return []\n    out = []\n")
    assert bypassed_functions({"m.py": guarded}, {"m.py": guarded}) == ()
    # `if not items` -> `if items is None`: the guard was there; its condition is the computation
    changed = guarded.replace("not items", "items is None")
    assert bypassed_functions({"m.py": guarded}, {"m.py": changed}) == ()


def test_guards_in_two_methods_name_both() -> None:
    base = "class C:\n    def a(self, x):\n        return x.y\n\n    def b(self, x):\n        return x.z\n"
    guard_a = "        if x is None:\n            return None\n        return x.y\n"
    guard_b = "        if not x:\n            return 0\n        return x.z\n"
    patched = base.replace("        return x.y\n", guard_a).replace("        return x.z\n", guard_b)
    assert bypassed_functions({"c.py": base}, {"c.py": patched}) == ("c.py: C.a", "c.py: C.b")


def test_changed_functions_names_each_changed_function_once() -> None:
    patched = BASE.replace("v * 2", "v * 3").replace("a + 1", "a + 2")
    assert changed_functions({"m.py": BASE}, {"m.py": patched}) == [("m.py", "f"), ("m.py", "g")]
    assert changed_functions({"m.py": BASE}, {"m.py": BASE}) == []
    assert changed_functions({"m.py": BASE}, {"m.py": "def f(:\n"}) == []


CACHE = """\
class Parser:
    def parse(self, text):
        result = self._do_parse(text)
        self._cache[text] = result
        if len(self._cache) > self.limit:
            self._trim()
        total = len(result)
        total += 1
        return result
"""
TRIM_CALL = 6  # `self._trim()`: the failing test's traceback passes it on its way into _trim


def test_deleting_the_statement_the_failing_test_crashed_through_is_a_bypass() -> None:
    as_pass = CACHE.replace("            self._trim()\n", "            pass\n")
    crashed = {"p.py": frozenset({TRIM_CALL})}
    assert bypassed_functions({"p.py": CACHE}, {"p.py": as_pass}, crashed) == ("p.py: Parser.parse",)
    # the `if` around it deleted as well: its lines hold the one the traceback passes
    whole_if = CACHE.replace("        if len(self._cache) > self.limit:\n            self._trim()\n", "")
    assert bypassed_functions({"p.py": CACHE}, {"p.py": whole_if}, crashed) == ("p.py: Parser.parse",)
    # without the traceback, the same deletions change the computation
    assert bypassed_functions({"p.py": CACHE}, {"p.py": as_pass}) == ()
    assert bypassed_functions({"p.py": CACHE}, {"p.py": whole_if}) == ()


def test_a_statement_deleted_off_the_failing_path_changes_the_computation() -> None:
    # the failing test crashed through `self._trim()`; the patch deletes `total += 1` instead
    stray = CACHE.replace("        total += 1\n", "")
    assert bypassed_functions({"p.py": CACHE}, {"p.py": stray}, {"p.py": frozenset({TRIM_CALL})}) == ()
    # a deletion on the path beside a change of the computation elsewhere is no bypass either
    both = CACHE.replace("            self._trim()\n", "            pass\n")
    both = both.replace("total += 1", "total += 2")
    assert bypassed_functions({"p.py": CACHE}, {"p.py": both}, {"p.py": frozenset({TRIM_CALL})}) == ()
