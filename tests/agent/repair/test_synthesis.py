"""Expression synthesis: the exact candidates a statement gets from what is in scope, in rank order."""

from __future__ import annotations

import textwrap

from selfheal.agent.repair.edits import SourceFile, apply_edits
from selfheal.agent.repair.mutation import (
    PRIORS,
    FunctionFacts,
    ModuleFacts,
    enclosing_function,
    parent_map,
    statement_at,
)
from selfheal.agent.repair.synthesis import synthesized_mutations
from selfheal.agent.repair.value_evidence import ValueEvidence

SOURCE = textwrap.dedent('''
    """One bug shape per function."""

    STEP = 5


    def row(label, value, width):
        prefix = f"{label}: "
        used = len(prefix)
        return prefix + str(value).ljust(width)


    class Fader:
        def __init__(self, floor, ceiling):
            self.floor = floor
            self.ceiling = ceiling
            self.level = floor

        def raise_by(self, steps):
            self.level = self.level + steps
            return self.level


    def warmest(readings):
        best = 0
        for reading in readings:
            if reading > best:
                best = reading
        return best


    def distinct(addresses):
        seen = set()
        kept = []
        for address in addresses:
            key = address.strip().lower()
            if key in seen:
                continue
            kept.append(address.strip())
        return kept


    def paid(invoices):
        total = 0
        owed = {}
        for invoice in invoices:
            amount = invoice.amount
            if invoice.open:
                owed[invoice.number] = amount
        return total
''').lstrip()


NO_EVIDENCE = ValueEvidence()


def synthesized(needle: str, evidence: ValueEvidence = NO_EVIDENCE, limit: int = 24) -> list[tuple]:
    """(family, weight, changed lines) of each candidate for the statement on the line holding
    `needle`, each mutant compiled."""
    src = SourceFile("m.py", SOURCE)
    parents = parent_map(src.tree)
    line = next(i for i, ln in enumerate(SOURCE.splitlines(), 1) if needle in ln)
    statement = statement_at(src, line, parents)
    facts = FunctionFacts(src, enclosing_function(statement, parents))
    found = []
    for mutation in synthesized_mutations(src, statement, parents, facts, ModuleFacts(src), evidence, limit):
        assert mutation.family in PRIORS
        new = apply_edits({"m.py": SOURCE}, mutation.edits)["m.py"]
        compile(new, "m.py", "exec")
        changed = [ln.strip() for ln in new.splitlines() if ln not in SOURCE.splitlines()]
        found.append((mutation.family, round(mutation.weight, 2), " | ".join(changed)))
    return found


def test_arguments_are_adjusted_by_in_scope_numbers_first_and_text_is_left_alone():
    found = synthesized("str(value).ljust")
    assert len(found) == 24  # the cap per statement
    assert {family for family, _, _ in found} == {"synthesis-adjust", "synthesis-clamp"}
    assert [line for _, _, line in found[:8]] == [
        "return prefix + str(value).ljust(width - used)",
        "return prefix + str(value - used).ljust(width)",
        "return prefix + str(value).ljust(width + used)",
        "return prefix + str(value + used).ljust(width)",
        "return prefix + str(value).ljust(width - STEP)",
        "return prefix + str(value - STEP).ljust(width)",
        "return prefix + str(value).ljust(width + STEP)",
        "return prefix + str(value + STEP).ljust(width)",
    ]
    # the returned text itself is never given a number or a clamp
    assert not any(
        line.startswith(("return min(", "return max(")) or line.endswith(" 1") for _, _, line in found
    )


def test_a_value_is_clamped_by_the_attributes_its_class_assigns():
    lines = [
        line
        for family, _, line in synthesized("self.level = self.level + steps")
        if family == "synthesis-clamp"
    ]
    assert lines == [
        "self.level = min(self.level + steps, self.floor)",
        "self.level = max(self.level + steps, self.floor)",
        "self.level = min(self.level + steps, self.ceiling)",
        "self.level = max(self.level + steps, self.ceiling)",
        "self.level = min(self.level + steps, STEP)",
        "self.level = max(self.level + steps, STEP)",
        "self.level = min(self.level + steps, 0)",
        "self.level = max(self.level + steps, 0)",
    ]


def test_a_clamp_ranks_first_when_the_expected_value_is_a_bound_the_test_used():
    at_bound = ValueEvidence(mismatches=((13, 10),), numbers=(0, 10, 6, 7))
    ranked = synthesized("self.level = self.level + steps", at_bound)
    assert ranked[0] == ("synthesis-clamp", 1.0, "self.level = min(self.level + steps, self.floor)")
    assert {family for family, weight, _ in ranked if weight == 1.0} == {"synthesis-clamp"}


def test_a_starting_value_gets_the_other_neutral_values():
    assert synthesized("best = 0") == [
        ("synthesis-neutral", 0.3, "best = None"),
        ("synthesis-neutral", 0.3, 'best = float("-inf")'),
        ("synthesis-neutral", 0.3, 'best = float("inf")'),
        ("synthesis-neutral", 0.3, "best = 1"),
    ]
    assert {w for _, w, _ in synthesized("best = 0", ValueEvidence(mismatches=((0, -3),)))} == {1.0}


def test_a_set_tested_for_a_value_gets_that_value_added():
    assert synthesized("kept.append(address.strip())") == [
        ("synthesis-update", 0.6, "seen.add(key)"),
        ("synthesis-replace", 0.3, "kept.append(key)"),
        ("synthesis-update", 0.3, "seen.add(address)"),
        ("synthesis-update", 0.3, "kept.append(address)"),
    ]
    after_key = synthesized("key = address.strip().lower()")
    assert after_key == [
        ("synthesis-update", 0.6, "seen.add(key)"),
        ("synthesis-update", 0.36, "kept.append(key)"),
        ("synthesis-update", 0.3, "seen.add(address)"),
        ("synthesis-update", 0.3, "kept.append(address)"),
    ]


def test_an_accumulator_and_a_dict_are_updated_with_values_bound_nearby():
    lines = [
        line for family, _, line in synthesized("amount = invoice.amount") if family == "synthesis-update"
    ]
    # `owed[invoice.number] = amount` is already there: not offered again
    assert lines == ["total += amount", "owed[invoice.number] = invoice"]
    assert synthesized("for invoice in invoices") == [
        ("synthesis-update", 0.36, "owed[invoice.number] = invoice"),
    ]


def test_each_statement_is_capped():
    assert len(synthesized("self.level = self.level + steps", limit=5)) == 5
    assert synthesized("self.level = self.level + steps", limit=0) == []


def test_a_statement_outside_a_function_gets_nothing():
    assert synthesized("STEP = 5") == []


def test_a_value_ending_in_a_number_is_not_moved_by_one_the_literal_families_move_the_number():
    source = "def to_f(c):\n    return c * 9 / 5 + 31\n"
    src = SourceFile("m.py", source)
    parents = parent_map(src.tree)
    statement = statement_at(src, 2, parents)
    facts = FunctionFacts(src, enclosing_function(statement, parents))
    found = [
        apply_edits({"m.py": source}, m.edits)["m.py"].splitlines()[1].strip()
        for m in synthesized_mutations(
            src, statement, parents, facts, ModuleFacts(src), ValueEvidence(((31.0, 32.0),)), 24
        )
    ]
    assert "return c * 9 / 5 + 31 + 1" not in found
    assert "return c * 9 / 5 + 31 - 1" not in found
