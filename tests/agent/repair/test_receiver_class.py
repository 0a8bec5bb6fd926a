"""Receiver class: a method that names its own class asks the receiver for it instead."""

from __future__ import annotations

import textwrap

from selfheal.agent.repair.edits import SourceFile, apply_edits
from selfheal.agent.repair.mutation import (
    PRIORS,
    FunctionFacts,
    Hints,
    ModuleFacts,
    enclosing_function,
    parent_map,
    statement_at,
)
from selfheal.agent.repair.operators import statement_mutations
from selfheal.agent.report.lessons import FAMILY_MEANING

SOURCE = textwrap.dedent(
    """
    class Money:
        __slots__ = ("cents",)

        def __init__(self, cents):
            self.cents = cents

        def doubled(self):
            return Money(self.cents * 2)

        @classmethod
        def parse(cls, text):
            return Money(int(text))

        def __new__(this, cents=0):
            return super().__new__(Money)

        @staticmethod
        def zero():
            return Money(0)

        def halved(self):
            return Money.parse(str(self.cents // 2))

        def __eq__(self, other):
            return Money.__eq__(self, other)


    class Euro(Money):
        def negated(me):
            return Money(-me.cents)


    def total(items):
        return Money(sum(i.cents for i in items))
    """
).lstrip()


def receiver_edits(line_text: str) -> list[tuple[str, str]]:
    """(new line, description) of every receiver-class mutation of the statement on that line."""
    line = next(i for i, text in enumerate(SOURCE.splitlines(), 1) if text.strip() == line_text)
    src = SourceFile("money.py", SOURCE)
    parents = parent_map(src.tree)
    statement = statement_at(src, line, parents)
    facts = FunctionFacts(src, enclosing_function(statement, parents))
    found = []
    for mutation in statement_mutations(src, statement, parents, facts, ModuleFacts(src), Hints()):
        if mutation.family == "receiver-class":
            new = apply_edits({"money.py": SOURCE}, mutation.edits)["money.py"]
            compile(new, "money.py", "exec")
            found.append((new.splitlines()[line - 1].strip(), mutation.description))
    return found


def test_a_method_builds_the_receivers_class():
    assert receiver_edits("return Money(self.cents * 2)") == [
        (
            "return type(self)(self.cents * 2)",
            "`Money` -> `type(self)` (the receiver's class, so subclasses get their own)",
        )
    ]


def test_a_class_method_and_new_use_their_class_argument():
    assert [new for new, _ in receiver_edits("return Money(int(text))")] == ["return cls(int(text))"]
    assert [
        new for new, _ in receiver_edits("return super().__new__(Money)")
    ] == []  # an argument, not a call
    assert [new for new, _ in receiver_edits("return Money.parse(str(self.cents // 2))")] == [
        "return type(self).parse(str(self.cents // 2))"
    ]


def test_a_subclass_method_that_names_its_base_gets_its_own_class():
    assert [new for new, _ in receiver_edits("return Money(-me.cents)")] == ["return type(me)(-me.cents)"]


def test_no_receiver_no_edit():
    # a static method has no receiver, a module function no class
    assert receiver_edits("return Money(0)") == []
    assert receiver_edits("return Money(sum(i.cents for i in items))") == []


def test_a_base_method_called_on_purpose_is_left_alone():
    # through the receiver's class it would reach the override that is calling it
    assert receiver_edits("return Money.__eq__(self, other)") == []


def test_the_family_has_a_prior_and_a_meaning():
    assert PRIORS["receiver-class"] == 0.5
    assert FAMILY_MEANING["receiver-class"].startswith("a method named its own class")
