"""From outcomes on both versions to test cases and open risks.

A pinned test is an input on which the base and the patched code behave differently, asserting
what the patched code does: the fix's change of behaviour, shown on inputs nobody wrote a test
for. Docstring examples that hold on the patched code become tests with the docstring as the
oracle. A crash or a hang of the patched code on a valid-looking input, with an exception the
function does not declare, is an open risk, never a test: pinning a crash would bless it.
"""

from __future__ import annotations

import ast
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping

from selfheal.agent.newtests.cases import TestCase
from selfheal.agent.newtests.edgecases.probes import Probe
from selfheal.agent.newtests.edgecases.runner import CRASHED, EXAMPLE, RAISES, TIMEOUT, VALUE, Outcome
from selfheal.agent.newtests.edgecases.target import Example, FunctionInfo

MAX_LINE = 300  # a pinned assert longer than this is noise, not a readable test
MAX_RISKS = 5
_SINGLETONS = {"None", "True", "False"}
_TOO_GENERAL = {"BaseException", "Exception", "object"}


def changed(
    probes: Iterable[Probe],
    base: Mapping[int, Outcome],
    patched: Mapping[int, Outcome],
    declared: frozenset[str],
) -> list[Probe]:
    """Inputs the fix changed and a test can pin, best first: new inputs only (the existing tests
    already make their calls), distinct input shapes before repeats, shortest first."""
    found = []
    for probe in probes:
        before, after = base[probe.id], patched[probe.id]
        if probe.existing or before.key is None or after.key is None or before.key == after.key:
            continue
        if _pinnable(after, declared) and len(_assertion(probe, after)) <= MAX_LINE:
            found.append(probe)
    found.sort(key=lambda p: (len(_assertion(p, patched[p.id])), p.id))
    # diverse first: a new input shape, then a new result, then a shape seen once (shortest first)
    chosen: list[Probe] = []
    labels: Counter[str] = Counter()
    results: set[str] = set()
    for tier in range(3):
        for probe in found:
            result = patched[probe.id].text + patched[probe.id].exception
            skip = (
                probe in chosen
                or (tier == 0 and labels[probe.label] > 0)
                or (tier == 1 and result in results)
                or labels[probe.label] > 1
            )
            if not skip:
                chosen.append(probe)
                labels[probe.label] += 1
                results.add(result)
    return chosen


def _pinnable(outcome: Outcome, declared: frozenset[str]) -> bool:
    if outcome.imports is None:
        return False
    if outcome.kind == VALUE:
        return True
    return outcome.kind == RAISES and outcome.exception_import is not None and _declared(outcome, declared)


def _declared(outcome: Outcome, declared: frozenset[str]) -> bool:
    """The exception or a base of it is one the function names; `raise Exception(...)` somewhere
    does not make every TypeError a declared one."""
    kinds = set(outcome.mro or (outcome.exception,)) - _TOO_GENERAL
    return bool(kinds & declared)


def _call(probe: Probe, outcome: Outcome) -> str:
    return f"list({probe.text})" if outcome.wrap == "list" else probe.text


def _assertion(probe: Probe, outcome: Outcome) -> str:
    if outcome.kind == RAISES:
        return f"with pytest.raises({outcome.exception}): {probe.text}"
    operator = "is" if outcome.text in _SINGLETONS else "=="
    return f"assert {_call(probe, outcome)} {operator} {_expected(outcome)}"


def _expected(outcome: Outcome) -> str:
    """The patched result; a fraction as pytest.approx, so that a harmless change in the last
    bits (a different but equivalent order of operations) does not fail the test."""
    if outcome.wrap == "" and _is_fraction(outcome.text):
        return f"pytest.approx({outcome.text})"
    return outcome.text


def _is_fraction(text: str) -> bool:
    try:
        number = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return type(number) is float and math.isfinite(number) and not number.is_integer()


def pinned_case(probe: Probe, outcome: Outcome, name: str, target: str) -> TestCase:
    if outcome.kind == RAISES:
        code = (
            f"def {name}():\n"
            f"    # expected: the patched code raises {outcome.exception} here"
            " (pins the behaviour the fix changed)\n"
            f"    with pytest.raises({outcome.exception}):\n"
            f"        {probe.text}\n"
        )
        imports = {"import pytest", *(outcome.imports or ()), outcome.exception_import or ""}
    else:
        code = (
            f"def {name}():\n"
            "    # expected: what the patched code returns (pins the behaviour the fix changed)\n"
            f"    {_assertion(probe, outcome)}\n"
        )
        imports = set(outcome.imports or ()) | ({"import pytest"} if "pytest.approx" in code else set())
    return TestCase(
        name=name,
        code=code,
        origin="embedded",
        reason=f"behaviour the fix changed: {short(probe.text)}",
        imports=tuple(sorted(i for i in imports if i)),
        target=target,
    )


def decision_case(probe: Probe, outcome: Outcome, name: str, fix: str) -> TestCase | None:
    """A test that decides for one of several fixes the tests allow: the input where that fix's
    result differs from the others', asserting its result. None when a test cannot state it."""
    if outcome.imports is None or (outcome.kind == RAISES and outcome.exception_import is None):
        return None
    if outcome.kind not in (VALUE, RAISES) or len(_assertion(probe, outcome)) > MAX_LINE:
        return None
    comment = f"    # decides for: {short(fix, 90)}\n"
    if outcome.kind == RAISES:
        code = f"def {name}():\n{comment}    with pytest.raises({outcome.exception}):\n        {probe.text}\n"
        imports = {"import pytest", *outcome.imports, outcome.exception_import or ""}
    else:
        code = f"def {name}():\n{comment}    {_assertion(probe, outcome)}\n"
        imports = set(outcome.imports) | ({"import pytest"} if "pytest.approx" in code else set())
    return TestCase(
        name=name, code=code, origin="embedded", reason=f"decides between the fixes: {short(probe.text)}",
        imports=tuple(sorted(i for i in imports if i)),
    )  # fmt: skip


def example_case(example: Example, outcome: Outcome, name: str, target: str, function: str) -> TestCase:
    if example.raises:
        body = f"    with pytest.raises({example.raises}):\n        {example.expr}\n"
        imports = {"import pytest", *(outcome.imports or ())}
    else:
        operator = "is" if example.want in _SINGLETONS else "=="
        body = f"    assert {example.expr} {operator} {example.want}\n"
        imports = set(outcome.imports or ())
    return TestCase(
        name=name,
        code=f"def {name}():\n    # an example from the docstring of {function}\n{body}",
        origin="embedded",
        reason="docstring example",
        imports=tuple(sorted(i for i in imports if i)),
        target=target,
        oracle=f"the docstring of {function}",
    )


def example_usable(outcome: Outcome) -> bool:
    return outcome.kind == EXAMPLE and outcome.ok and outcome.imports is not None


def risks(
    info: FunctionInfo,
    probes: Iterable[Probe],
    base: Mapping[int, Outcome],
    patched: Mapping[int, Outcome],
    declared: frozenset[str],
    call_timeout: float,
) -> list[str]:
    """The patched code crashing or hanging on valid-looking inputs: one line per kind of failure."""
    found: dict[tuple[str, ...], str] = {}
    for probe in sorted(probes, key=lambda p: (len(p.text), p.id)):
        after = patched[probe.id]
        if not probe.typed or after.key is None or after.key in found:
            continue
        if after.kind == RAISES and not _declared(after, declared) and after.exception != probe.expects:
            what = f"raises {after.exception}"
        elif after.kind == TIMEOUT:
            what = f"does not return within {call_timeout:g}s"
        elif after.kind == CRASHED:
            what = "crashes the interpreter"
        else:
            continue
        same = base[probe.id].key == after.key
        found[after.key] = f"`{short(probe.text)}` {what} on the patched code" + (
            " (as on the base code)" if same else ""
        )
    return list(found.values())[:MAX_RISKS]


def example_risk(example: Example, outcome: Outcome) -> str | None:
    """A docstring example that does not hold on the patched code."""
    if outcome.kind == EXAMPLE and not outcome.ok:
        claimed = f"raises {example.raises}" if example.raises else f"== {example.want}"
        got = short(outcome.text, 40)
        return f"docstring example `{short(example.expr)}` gives {got} on the patched code, not {claimed}"
    if outcome.kind in (TIMEOUT, CRASHED):
        return f"docstring example `{short(example.expr)}` does not finish on the patched code"
    return None


def short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Names:
    """Unique, readable test names: test_<function>_<what the input looks like>[_2]."""

    def __init__(self, info: FunctionInfo) -> None:
        owner = _snake(info.owner.name) + "_" if info.owner else ""
        self.prefix = f"test_{owner}{_snake(info.name)}"
        self.taken: set[str] = set()

    def make(self, label: str) -> str:
        stem = f"{self.prefix}_{_snake(label)}"[:72].rstrip("_")
        name, number = stem, 2
        while name in self.taken:
            name = f"{stem}_{number}"
            number += 1
        self.taken.add(name)
        return name


def _snake(text: str) -> str:
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text).lower()
    return re.sub(r"[^a-z0-9]+", "_", text).strip("_") or "value"
