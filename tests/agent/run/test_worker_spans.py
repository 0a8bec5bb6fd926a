"""The screening worker applies a candidate by the top-level statements it touches: the base is
parsed once, and a candidate's parse covers its own span, whatever the module's length."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import selfheal.agent.run.runtime as runtime

WORKER_FILE = Path(runtime.__file__).parent / "selfheal_screen_worker.py"
spec = importlib.util.spec_from_file_location("selfheal_screen_worker_under_test", WORKER_FILE)
worker = importlib.util.module_from_spec(spec)
spec.loader.exec_module(worker)

BASE = '''"""A module."""

LIMIT = 3


def first(x):
    return x + 1


@staticmethod
def second(x):
    if x > LIMIT:
        return x
    return -x


class Third:
    def method(self):
        return "third"
'''


def names(statements) -> list[str]:
    return [getattr(s, "name", None) or ast.unparse(s).split("\n")[0] for s in statements]


def changed(path: str, new: str) -> tuple[list, list]:
    worker._remember_base(path, BASE)
    return worker._changed_statements(path, BASE, new)


def test_an_edit_inside_a_function_parses_that_function_alone_at_its_own_lines():
    old, new = changed("/m.py", BASE.replace("if x > LIMIT:", "if x >= LIMIT:"))
    assert names(old) == names(new) == ["second"]
    # the decorator's line, and the line of the comparison, as in the whole file
    assert (new[0].decorator_list[0].lineno, new[0].body[0].lineno, new[0].end_lineno) == (10, 12, 14)
    assert ast.unparse(new[0].body[0].test) == "x >= LIMIT"


def test_an_inserted_line_takes_the_statement_it_lands_in():
    old, new = changed("/m.py", BASE.replace("    return x + 1\n", "    x += 1\n    return x + 1\n"))
    assert names(old) == names(new) == ["first"]
    assert [(s.lineno, s.end_lineno) for s in new] == [(6, 8)]


def test_a_new_top_level_statement_comes_with_the_one_it_follows():
    old, new = changed("/m.py", BASE.replace("LIMIT = 3\n", "LIMIT = 3\nFLOOR = 0\n"))
    assert names(old) == ["LIMIT = 3"]
    assert names(new) == ["LIMIT = 3", "FLOOR = 0"]
    assert [s.lineno for s in new] == [3, 4]


def test_a_change_outside_every_statement_falls_back_to_the_whole_module():
    base = "A = 1\n\n\n# note\n\n\nB = 2\n"
    worker._remember_base("/c.py", base)
    old, new = worker._changed_statements("/c.py", base, base.replace("# note", "# changed"))
    assert names(old) == names(new) == ["A = 1", "B = 2"]


def test_an_unknown_base_is_parsed_whole_and_no_change_is_no_statement():
    worker._BASE_CACHE.clear()
    old, new = worker._changed_statements("/other.py", BASE, BASE.replace("x + 1", "x + 2"))
    assert len(old) == len(new) == len(ast.parse(BASE).body) == 5
    assert changed("/m.py", BASE) == ([], [])


def test_a_candidate_costs_no_parse_of_the_rest_of_a_long_module():
    long_base = BASE + "".join(f"\n\ndef filler_{i}(x):\n    return x * {i}\n" for i in range(3000))
    worker._remember_base("/long.py", long_base)
    old, new = worker._changed_statements("/long.py", long_base, long_base.replace("x * 1500\n", "x * 15\n"))
    assert names(old) == names(new) == ["filler_1500"]
    assert new[0].lineno == long_base[: long_base.index("def filler_1500")].count("\n") + 1


def module_from(name: str, source: str, tmp_path: Path):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    module_spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module, str(path)


def test_a_new_function_keeps_the_modules_future_annotations(tmp_path):
    # `Decimal` is imported for type checkers only: evaluated, the annotation would raise NameError
    source = (
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from decimal import Decimal\n"
        "\n"
        "def total(prices: list[Decimal]) -> Decimal:\n"
        "    return sum(prices) + 1\n"
    )
    module, path = module_from("priced", source, tmp_path)
    added = source + "\n\ndef mean(prices: list[Decimal]) -> Decimal:\n    return total(prices) / 2\n"
    worker._apply_to_module(module, path, source, added)
    assert module.mean.__annotations__ == {"prices": "list[Decimal]", "return": "Decimal"}


def test_a_module_without_the_future_import_evaluates_its_annotations_as_the_real_run_does(tmp_path):
    # The worker's own file has `from __future__ import annotations`; a statement compiled for
    # another module must not inherit it (a dataclass or singledispatch reads the evaluated types).
    source = "def double(x: int) -> int:\n    return x * 3\n"
    module, path = module_from("plain", source, tmp_path)
    added = source + "\n\ndef triple(x: int) -> int:\n    return x * 3\n"
    worker._apply_to_module(module, path, source, added)
    assert module.triple.__annotations__ == {"x": int, "return": int}
