"""Sibling methods: a call's method swapped for a related method of a class that defines it."""

from __future__ import annotations

import ast
import textwrap

from selfheal.agent.repair.edits import SourceFile, apply_edits
from selfheal.agent.repair.mutation import ModuleFacts
from selfheal.agent.repair.sibling_methods import related, sibling_method_mutations, siblings


def test_standard_types_offer_the_methods_next_door_nearest_first():
    assert siblings("time", ()) == ["timetz", "timestamp", "timetuple"]
    assert siblings("split", ()) == ["splitlines", "rsplit"]
    assert siblings("pop", ()) == ["popitem", "popleft"]
    assert siblings("format", ()) == ["format_map"]


def test_predicates_and_constructors_only_stand_in_for_their_own_kind():
    assert related("lower", "islower") == 0.0
    assert related("isoformat", "fromisoformat") == 0.0
    assert related("time", "timetz") == 1.0
    assert related("time", "ctime") == 0.9
    assert siblings("lower", ()) == []


def test_a_name_no_class_defines_has_no_siblings_and_excluded_names_are_left_out():
    assert siblings("frobnicate", ()) == []
    assert siblings("split", (), exclude=("rsplit",)) == ["splitlines"]


def test_the_files_own_classes_are_read_once_with_the_module_facts():
    source = textwrap.dedent(
        """
        class Ledger:
            def total(self):
                return sum(self.entries)

            def total_settled(self):
                return sum(e for e in self.entries if e > 0)

            def _private(self):
                pass


        def report(ledger):
            return f"{ledger.total():.2f}"
        """
    ).lstrip()
    src = SourceFile("ledger.py", source)
    module = ModuleFacts(src)
    assert module.classes == [frozenset({"total", "total_settled"})]
    call = next(
        n for n in ast.walk(src.tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "total"
    )
    mutations = list(sibling_method_mutations(src, call, tuple(module.classes), ("total",)))
    assert [m.description for m in mutations] == ["`.total(...)` -> `.total_settled(...)`"]
    patched = apply_edits({"ledger.py": source}, mutations[0].edits)["ledger.py"]
    assert '    return f"{ledger.total_settled():.2f}"' in patched.splitlines()
    assert mutations[0].family == "sibling-method"
    assert mutations[0].prior == 0.5
