"""The classic fix patterns: a statement or an argument modelled on a sibling, a loop over part of
its sequence or a sibling attribute, a computed return instead of a constant, a sub-expression
removed, and augmented assignments changed across operator families. Each family's edits are
checked as the changed lines they make, best first, with their bounds."""

from __future__ import annotations

import textwrap

from selfheal.agent.repair.edits import SourceFile, apply_edits
from selfheal.agent.repair.iteration_templates import MAX_ITERATIONS, iterations
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
from selfheal.agent.repair.removal_templates import MAX_REMOVALS, removed_subexpressions
from selfheal.agent.repair.return_templates import MAX_RETURNS, return_expressions
from selfheal.agent.repair.scope import scope_at
from selfheal.agent.repair.sibling_templates import (
    MAX_INSERTS,
    sibling_arguments,
    sibling_statements,
)
from selfheal.agent.repair.templates import template_mutations

SOURCE = textwrap.dedent("""
    import math


    class Node:
        def __init__(self, name):
            self.name = name
            self.children = []
            self.parents = []


    def unique_names(records):
        seen = set()
        names = []
        for record in records:
            name = record.name
            alias = record.alias
            if alias in seen:
                continue
            seen.add(alias)
            names.append(name)
        return names


    def invoice(lines, fee):
        total = 0
        for line in lines:
            total += line.price
        total += fee.surcharge
        return total


    def first_over(values, limit):
        for value in values:
            if value > limit:
                return None
        return []


    def ancestors(node):
        return [other.name for other in node.children]


    def widest(words, width):
        return max(len(words[0]), width)


    def same_word(left: str, right: str):
        return left.strip() == right


    def price(base, fee, tax, count):
        gross = base + fee + tax
        return -gross * math.floor(count) * 2


    def pack(flags, bit, n):
        flags += bit
        n //= 2
        return flags, n
""").lstrip()


def _setup(text: str, source: str = SOURCE):
    src = SourceFile("m.py", source)
    parents = parent_map(src.tree)
    line = next(i for i, ln in enumerate(source.splitlines(), 1) if text in ln)
    statement = statement_at(src, line, parents)
    facts = FunctionFacts(src, enclosing_function(statement, parents))
    module = ModuleFacts(src)
    return src, statement, parents, facts, module, scope_at(src, statement, parents, facts, module)


def _changed(edits) -> str:
    new = apply_edits({"m.py": SOURCE}, edits)["m.py"]
    compile(new, "m.py", "exec")
    old = SOURCE.splitlines()
    return " | ".join(ln.strip() for ln in new.splitlines() if ln not in old)


def test_an_update_the_function_makes_for_one_name_is_offered_for_the_loops_other_names():
    src, statement, parents, facts, _module, scope = _setup("names.append(name)")
    made = list(sibling_statements(src, statement, parents, facts, scope))
    # the loop's own variable first, after the line before before it; a copy of the line itself
    # below another statement's; then the latest-bound locals
    assert [m.description for m in made] == [
        "insert `seen.add(record)` after line 20 (modelled on line 19)",
        "insert `seen.add(record)` before line 20 (modelled on line 19)",
        "insert `names.append(record)` after line 20 (modelled on line 20)",
        "insert `names.append(record)` before line 20 (modelled on line 20)",
        "insert `seen.add(name)` after line 20 (modelled on line 19)",
        "insert `seen.add(names)` after line 20 (modelled on line 19)",
        "insert `seen.add(records)` after line 20 (modelled on line 19)",
        "insert `seen.add(name)` before line 20 (modelled on line 19)",
    ]
    assert _changed(made[0].edits) == "seen.add(record)"
    assert [round(m.weight, 3) for m in made[:3]] == [1.0, 0.9, 0.8]
    assert all(m.family == "sibling-insert" for m in made) and len(made) == MAX_INSERTS


def test_a_total_updated_for_the_loop_gets_the_same_update_for_another_name():
    src, statement, parents, facts, _module, scope = _setup("total += fee.surcharge")
    changed = [_changed(m.edits) for m in sibling_statements(src, statement, parents, facts, scope)]
    assert changed[0] == "total += fee.price"


def test_a_statement_sharing_its_line_or_outside_a_function_gets_no_insertion():
    source = "import os\nprint(os.sep)\nfor x in [1]: print(x)\n"
    src = SourceFile("m.py", source)
    parents = parent_map(src.tree)
    for line in (2, 3):
        statement = statement_at(src, line, parents)
        facts = FunctionFacts(src, enclosing_function(statement, parents))
        module = ModuleFacts(src)
        scope = scope_at(src, statement, parents, facts, module)
        assert list(sibling_statements(src, statement, parents, facts, scope)) == []


def test_a_plain_argument_takes_the_transformation_of_its_sibling():
    src, statement, *_ = _setup("return max(len(words[0]), width)")
    made = list(sibling_arguments(src, statement, ModuleFacts(src)))
    assert [_changed(m.edits) for m in made] == ["return max(len(words[0]), len(width))"]
    assert made[0].description == (
        "`width` -> `len(width)` like `len(words[0])` in `max(len(words[0]), width)`"
    )
    src, statement, *_ = _setup("return left.strip() == right")
    made = list(sibling_arguments(src, statement, ModuleFacts(src)))
    assert [_changed(m.edits) for m in made] == ["return left.strip() == right.strip()"]
    assert made[0].family == "sibling-argument" and made[0].weight == 0.8


def test_a_module_function_is_a_transformation_and_an_attribute_of_self_is_not():
    source = "import math\n\ndef f(a, b):\n    return g(math.floor(a), b, self.size)\n"
    src = SourceFile("m.py", source)
    statement = statement_at(src, 4, parent_map(src.tree))
    made = [m.description for m in sibling_arguments(src, statement, ModuleFacts(src))]
    assert made == [
        "`b` -> `math.floor(b)` like `math.floor(a)` in `g(math.floor(a), b, self.size)`",
    ]


def test_a_loop_goes_over_part_of_its_sequence_and_over_the_classes_sibling_attributes():
    src, statement, _parents, _facts, module, scope = _setup("return [other.name for other in node.children]")
    made = list(iterations(src, statement, module, scope))
    assert [_changed(m.edits) for m in made] == [
        "return [other.name for other in node.children[1:]]",
        "return [other.name for other in node.children[:-1]]",
        "return [other.name for other in node.parents]",  # the next attribute before the previous
        "return [other.name for other in node.name]",
    ]
    assert [m.weight for m in made] == [1.0, 0.8, 0.9, 0.9]
    assert len(made) <= MAX_ITERATIONS


def test_a_set_is_never_sliced():
    source = "def f(items: set):\n    for x in items:\n        print(x)\n"
    src = SourceFile("m.py", source)
    parents = parent_map(src.tree)
    statement = statement_at(src, 2, parents)
    facts = FunctionFacts(src, enclosing_function(statement, parents))
    module = ModuleFacts(src)
    assert list(iterations(src, statement, module, scope_at(src, statement, parents, facts, module))) == []


def test_a_constant_return_becomes_a_value_in_scope_the_loops_first():
    src, statement, _parents, facts, _module, scope = _setup("return None")
    made = list(return_expressions(src, statement, facts, scope))
    assert [_changed(m.edits) for m in made] == ["return value", "return values", "return limit"]
    assert [m.weight for m in made] == [1.0, 1.0, 1.0]
    assert made[0].description == "`return None` -> `return value`"


def test_an_empty_list_returned_becomes_a_list_of_one_value():
    src, statement, _parents, facts, _module, scope = _setup("return []")
    changed = [_changed(m.edits) for m in return_expressions(src, statement, facts, scope)]
    assert changed == [
        "return value",
        "return values",
        "return limit",
        "return [value]",
        "return [values]",
        "return [limit]",
    ]
    assert len(changed) <= MAX_RETURNS


def test_a_computed_return_is_left_to_the_other_families():
    src, statement, _parents, facts, _module, scope = _setup("return total")
    assert list(return_expressions(src, statement, facts, scope)) == []


def test_addends_factors_and_signs_are_dropped_one_at_a_time_with_brackets_where_needed():
    src, statement, *_ = _setup("gross = base + fee + tax")
    assert [_changed(m.edits) for m in removed_subexpressions(src, statement)] == [
        "gross = base + fee",
        "gross = tax",
        "gross = base + tax",
        "gross = fee + tax",
    ]
    src, statement, *_ = _setup("return -gross * math.floor(count) * 2")
    made = list(removed_subexpressions(src, statement))
    changed = [_changed(m.edits) for m in made]
    assert changed[:3] == [
        "return -gross * math.floor(count)",
        "return -gross * 2",
        "return math.floor(count) * 2",
    ]
    assert "return gross * math.floor(count) * 2" in changed
    assert "return 2" not in changed  # a constant alone forgets every input
    assert all(m.family == "subexpression-removal" for m in made) and len(made) <= MAX_REMOVALS


def test_an_operand_keeps_brackets_only_where_it_would_bind_otherwise():
    source = "def f(a, b, c, d):\n    x = d * a + (b - c)\n    return d * (a + (b - c))\n"
    src = SourceFile("m.py", source)
    parents = parent_map(src.tree)
    changed = [m.edits[0].text for m in removed_subexpressions(src, statement_at(src, 2, parents))]
    assert changed == ["d * a", "(b - c)", "d", "a", "b"]
    changed = [m.edits[0].text for m in removed_subexpressions(src, statement_at(src, 3, parents))]
    # `(a + (b - c))` stays inside its own brackets, so what replaces it needs none
    assert changed == ["d", "(a + (b - c))", "a", "b - c", "b"]


def test_augmented_assignments_change_across_families_below_their_own_family():
    found = {}
    for text in ("flags += bit", "n //= 2"):
        src, statement, parents, facts, module, _scope = _setup(text)
        found[text] = {
            _changed(m.edits): m.weight
            for m in statement_mutations(src, statement, parents, facts, module, Hints())
            if m.family == "augmented-assignment"
        }
    assert found["flags += bit"] == {
        "flags -= bit": 1.0,
        "flags *= bit": 0.3,
        "flags |= bit": 0.3,
        "flags ^= bit": 0.2,
        "flags = bit": 0.4,
    }
    assert found["n //= 2"]["n >>= 2"] == 0.3
    assert found["n //= 2"]["n /= 2"] == 0.8


def test_every_pattern_family_is_ranked_by_a_prior_and_compiles():
    families = set()
    for text in (
        "names.append(name)",
        "total += fee.surcharge",
        "return None",
        "return []",
        "return [other.name for other in node.children]",
        "return left.strip() == right",
        "gross = base + fee + tax",
    ):
        src, statement, parents, facts, module, scope = _setup(text)
        for mutation in template_mutations(src, statement, parents, facts, module, scope):
            _changed(mutation.edits)
            families.add(mutation.family)
    new = {"sibling-insert", "sibling-argument", "iteration", "return-expression", "subexpression-removal"}
    assert new <= families
    assert all(family in PRIORS for family in families)
    assert max(PRIORS[f] for f in new) < PRIORS["arithmetic-operator"]


MIRROR_AND_CLASS = textwrap.dedent("""
    class Sessions:
        def __init__(self, clock):
            self._clock = clock
            self._seen = {}
            self._data = {}

        def put(self, sid, value):
            self._data[sid] = value
            self._seen[sid] = self._clock()

        def get(self, sid):
            if sid not in self._data:
                return None
            return self._data[sid]


    def distance_table(roads):
        table = {}
        for a, b, km in roads:
            table.setdefault(a, {})[b] = km
        return table


    def friends(pairs):
        graph = {}
        for a, b in pairs:
            graph.setdefault(a, set())
            if a != b:
                graph[a].add(b)
        return graph
""").lstrip()


def _inserts(source: str, text: str) -> list[str]:
    src, statement, parents, facts, _module, scope = _setup(text, source)
    return [m.description for m in sibling_statements(src, statement, parents, facts, scope)]


def test_a_symmetric_relation_gets_its_mirror_update_keys_swapped_never_a_key_and_a_value():
    made = _inserts(MIRROR_AND_CLASS, "table.setdefault(a, {})[b] = km")
    assert made[:2] == [
        "insert `table.setdefault(b, {})[a] = km` after line 20 (modelled on line 20)",
        "insert `table.setdefault(b, {})[a] = km` before line 20 (modelled on line 20)",
    ]
    assert not any("[a] = b" in d or "[km]" in d for d in made)
    made = _inserts(MIRROR_AND_CLASS, "graph[a].add(b)")
    assert "insert `graph[b].add(a)` after line 29 (modelled on line 29)" in made
    # a function called is not a name to swap: `set()` stays a call
    assert not any("set, " in d for d in made)


def test_an_update_of_self_another_method_makes_is_offered_where_its_names_are_in_scope():
    # nothing runs after a return: the update goes before it only
    assert _inserts(MIRROR_AND_CLASS, "return self._data[sid]") == [
        "insert `self._seen[sid] = self._clock()` before line 14 (modelled on line 9)",
    ]
