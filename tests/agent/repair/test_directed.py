"""Directed families: the exact edits a crash, a regex or a string literal gets, in rank order."""

from __future__ import annotations

import textwrap

from selfheal.agent.localize.crashes import Crash
from selfheal.agent.repair.directed import directed_mutations
from selfheal.agent.repair.edits import SourceFile, apply_edits
from selfheal.agent.repair.evidence import FailureEvidence, failing_inputs
from selfheal.agent.repair.mutation import PRIORS, FunctionFacts, enclosing_function, parent_map, statement_at

SOURCE = textwrap.dedent('''
    """A module with one bug shape per line."""

    import re

    WORD = re.compile("\\bcat\\b")
    CODE = re.compile(r"[A-Z]{2}-\\d+")


    def spread(values):
        lowest = min(values)
        return max(values) - lowst


    def count(words):
        counts = {}
        for word in words:
            counts[word] += 1
        return counts


    def steps(values):
        out = []
        for i in range(len(values)):
            out.append(values[i + 1] - values[i])
        return out


    def first_name(row):
        return row["name"].split()[0]


    def price(amount, *, decimals=2):
        return round(amount, decimals)


    def total(amount, tax):
        return price(amount, 2) + price(tax, decimal=2)


    def label(key, value, ratio):
        line = ", ".join([key, value])
        return f"{line}: {ratio:.1f}" + "abcdefghijklmnopqrstuvwxyz"[:1] + str(3.1416)
''').lstrip()


def edits_at(text: str, crash: tuple[str, str] | None = None, inputs: tuple[str, ...] = ()) -> list[tuple]:
    """(family, the changed lines) of every directed mutation of the statement on the line that
    holds `text`, best prior first; each mutant compiles."""
    line = next(i for i, ln in enumerate(SOURCE.splitlines(), 1) if text in ln)
    src = SourceFile("m.py", SOURCE)
    parents = parent_map(src.tree)
    statement = statement_at(src, line, parents)
    crashes = (Crash("m.py", line, crash[0], crash[1], "t::x"),) if crash else ()
    facts = FunctionFacts(src, enclosing_function(statement, parents))
    found = []
    for mutation in directed_mutations(
        src, statement, parents, facts, FailureEvidence(crashes, inputs), {"m.py": SOURCE}
    ):
        assert mutation.family in PRIORS
        new = apply_edits({"m.py": SOURCE}, mutation.edits)["m.py"]
        compile(new, "m.py", "exec")
        changed = [ln.strip() for ln in new.splitlines() if ln not in SOURCE.splitlines()]
        found.append((mutation.prior, mutation.family, " | ".join(changed)))
    found.sort(key=lambda m: -m[0])  # stable: the search's order at one site
    return [m[1:] for m in found]


def test_a_name_error_is_fixed_by_the_in_scope_name_spelt_almost_the_same() -> None:
    found = edits_at("- lowst", ("NameError", "name 'lowst' is not defined"))
    assert found[0] == ("crash-name", "return max(values) - lowest")
    assert ("crash-name", "lowst = min(values)") in found  # or the binding takes the read name


def test_a_key_error_in_an_augmented_assignment_starts_the_count_at_zero() -> None:
    found = edits_at("counts[word] += 1", ("KeyError", "'the'"))
    assert found[0] == ("crash-bound", "counts[word] = counts.get(word, 0) + 1")


def test_an_index_error_shortens_the_loops_range_first() -> None:
    found = edits_at("values[i + 1]", ("IndexError", "list index out of range"))
    assert found[0] == ("crash-bound", "for i in range(len(values) - 1):")
    assert (
        "crash-bound",
        "out.append((values[i + 1] if i + 1 < len(values) else None) - values[i])",
    ) in found


def test_a_subscript_of_none_gets_a_guard_and_a_get() -> None:
    found = edits_at('row["name"]', ("TypeError", "'NoneType' object is not subscriptable"))
    assert found[0] == ("crash-none", "if row is None: | return None")
    key_error = edits_at('row["name"]', ("KeyError", "'name'"))
    assert key_error[0] == ("crash-bound", 'return row.get("name").split()[0]')
    assert ("crash-bound", 'return row.get("name", "").split()[0]') in key_error


def test_calls_are_adapted_to_the_callees_signature() -> None:
    keyword = edits_at("decimal=2", ("TypeError", "price() got an unexpected keyword argument 'decimal'"))
    assert keyword[0] == ("crash-arity", "return price(amount, 2) + price(tax, decimals=2)")
    extra = edits_at("decimal=2", ("TypeError", "price() takes 1 positional argument but 2 were given"))
    assert extra[0] == ("crash-arity", "return price(amount, decimals=2) + price(tax, decimal=2)")
    assert ("crash-arity", "return price(amount) + price(tax, decimal=2)") in extra


def test_a_non_raw_word_boundary_and_a_fixed_count_are_regex_edits() -> None:
    word = edits_at("WORD = ", inputs=("a cat sat",))
    assert word[0] == ("regex-edit", 'WORD = re.compile(r"\\bcat\\b")')
    code = [e for f, e in edits_at("CODE = ", inputs=("AB-12", "ABC-7")) if f == "regex-edit"]
    assert 'CODE = re.compile(r"[A-Z]{2,}-\\d+")' in code[:3]  # "ABC-7" is the failing input it changes


def test_the_failing_input_ranks_regex_edits_that_change_what_it_finds() -> None:
    guided = edits_at("CODE = ", inputs=("AB-12 or ab-12",))
    unguided_order = [e for _, e in edits_at("CODE = ")]
    assert [e for _, e in guided] != unguided_order
    assert guided[0][1] == 'CODE = re.compile(r"[A-Za-z]{2}-\\d+")'


def test_separators_formats_and_named_constants_follow_the_inputs() -> None:
    found = edits_at('", ".join', inputs=("a; b: 2.50",))
    assert found[0] == ("separator", 'line = "; ".join([key, value])')
    label = edits_at("ratio:.1f", inputs=("a; b: 2.50",))
    assert (
        "format-field",
        'return f"{line}: {ratio:.2f}" + "abcdefghijklmnopqrstuvwxyz"[:1] + str(3.1416)',
    ) in label
    constants = [e for f, e in label if f == "named-constant"]
    assert (
        'import math | return f"{line}: {ratio:.1f}" + "abcdefghijklmnopqrstuvwxyz"[:1] + str(math.pi)'
        in constants
    )
    assert any("string.ascii_letters" in e and e.startswith("import string") for e in constants)


def test_failing_inputs_are_the_test_functions_strings_and_the_constants_it_reads() -> None:
    text = textwrap.dedent("""
        import pytest

        SAMPLE = "x-1"
        OTHER = "unused"


        class TestTags:
            @pytest.mark.parametrize("tag", ["#a-b"])
            def test_tag(self, tag):
                assert parse(tag, SAMPLE) == "a-b"
    """)
    assert failing_inputs({"tests/t.py::TestTags::test_tag[#a-b]": text}) == ("tag", "a-b", "#a-b", "x-1")
