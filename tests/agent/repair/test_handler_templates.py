"""`except` clause edits: the exact clause a crash in a `try` body or a handler the failing test ran
gets, in rank order, and when none is made."""

from __future__ import annotations

import ast
import textwrap

import pytest

from selfheal.agent.localize.crashes import Crash
from selfheal.agent.repair.directed import directed_mutations
from selfheal.agent.repair.edits import SourceFile, apply_edits
from selfheal.agent.repair.evidence import FailureEvidence, failing_exception_names
from selfheal.agent.repair.handler_templates import catches, exception_names
from selfheal.agent.repair.mutation import FunctionFacts, enclosing_function, parent_map, statement_at

SOURCE = textwrap.dedent('''
    """Sequences and paths, one handler shape per function."""

    import json


    class PathError(Exception):
        """What this module raises for a bad path or target."""


    def append_to(target, value):
        try:
            target.append(value)
        except AttributeError as e:
            raise PathError("cannot append: %s" % e)


    def append_quietly(target, value):
        try:
            target.append(value)
        except (AttributeError, KeyError):
            return None
        return target


    def append_anything(target, value):
        try:
            target.insert(len(target), value)
        except Exception:
            raise PathError("cannot append")


    def lookup(table, key):
        try:
            return table[key]
        except LookupError:
            raise PathError(key)


    def decoded(text):
        try:
            return json.loads(text)
        except ValueError:
            raise PathError(text)


    def joined(parts):
        try:
            return "/".join(p for p in parts)
        except:  # noqa: E722
            raise PathError("invalid parts")


    def first_or_default(table, key, default):
        try:
            return table[key][0]
        except Exception:
            return default
''').lstrip()


def edits_at(text: str, named: tuple[str, ...] = (), crash: str | None = None) -> list[tuple[str, str]]:
    """(family, the changed lines) of the `exception-handler` mutations of the statement on the
    line holding `text`, best prior first; each mutant compiles."""
    line = next(i for i, ln in enumerate(SOURCE.splitlines(), 1) if text in ln)
    src = SourceFile("m.py", SOURCE)
    parents = parent_map(src.tree)
    statement = statement_at(src, line, parents)
    crashes = (Crash("m.py", line, crash, "boom", "t::x"),) if crash else ()
    facts = FunctionFacts(src, enclosing_function(statement, parents))
    found = []
    for mutation in directed_mutations(
        src, statement, parents, facts, FailureEvidence(crashes, named_exceptions=named), {"m.py": SOURCE}
    ):
        if mutation.family != "exception-handler":
            continue
        new = apply_edits({"m.py": SOURCE}, mutation.edits)["m.py"]
        compile(new, "m.py", "exec")
        changed = [ln.strip() for ln in new.splitlines() if ln not in SOURCE.splitlines()]
        found.append((mutation.prior, " | ".join(changed)))
    found.sort(key=lambda m: -m[0])
    return [(f"{prior:.2f}", lines) for prior, lines in found]


def test_an_exception_that_escaped_the_try_is_added_to_the_handler_that_converts_it():
    found = edits_at("target.append(value)", named=("PathError",), crash="TypeError")
    assert found[0] == ("1.00", "except (AttributeError, TypeError) as e:")


def test_a_handler_that_does_not_raise_what_the_test_names_is_widened_at_a_lower_rank():
    assert edits_at("target.append(value)", crash="TypeError")[0] == (
        "0.60",
        "except (AttributeError, TypeError) as e:",
    )
    # the second function: its tuple grows by one
    source_lines = SOURCE.splitlines()
    line = source_lines.index("def append_quietly(target, value):") + 3
    src = SourceFile("m.py", SOURCE)
    parents = parent_map(src.tree)
    statement = statement_at(src, line, parents)
    assert isinstance(statement, ast.Expr)
    crashes = (Crash("m.py", line, "TypeError", "boom", "t::x"),)
    mutations = [
        m
        for m in directed_mutations(
            src, statement, parents, FunctionFacts(src, None), FailureEvidence(crashes), {"m.py": SOURCE}
        )
        if m.family == "exception-handler"
    ]
    new = apply_edits({"m.py": SOURCE}, mutations[0].edits)["m.py"]
    assert "    except (AttributeError, KeyError, TypeError):\n        return None\n" in new
    assert len(mutations) == 1


def test_an_exception_raised_in_what_the_try_body_called_widens_its_handler():
    # the crash's deepest project frame is elsewhere; its traceback passes the `try` body's call
    line = next(i for i, ln in enumerate(SOURCE.splitlines(), 1) if "target.append(value)" in ln)
    src = SourceFile("m.py", SOURCE)
    parents = parent_map(src.tree)
    statement = statement_at(src, line, parents)
    elsewhere = Crash("other.py", 3, "TypeError", "boom", "t::x", through=(("m.py", line), ("other.py", 3)))
    evidence = FailureEvidence((elsewhere,), named_exceptions=("PathError",))
    assert evidence.crashes_at("m.py", statement) == []
    found = [
        (m.weight, apply_edits({"m.py": SOURCE}, m.edits)["m.py"].splitlines()[line])
        for m in directed_mutations(
            src, statement, parents, FunctionFacts(src, None), evidence, {"m.py": SOURCE}
        )
        if m.family == "exception-handler"
    ]
    assert found == [(1.0, "    except (AttributeError, TypeError) as e:")]


def test_exceptions_that_escaped_the_same_try_are_added_together_first():
    line = next(i for i, ln in enumerate(SOURCE.splitlines(), 1) if "target.append(value)" in ln)
    src = SourceFile("m.py", SOURCE)
    parents = parent_map(src.tree)
    statement = statement_at(src, line, parents)
    crashes = tuple(
        Crash("m.py", line, kind, "boom", f"t::{kind}") for kind in ("TypeError", "OverflowError")
    )
    evidence = FailureEvidence(crashes, named_exceptions=("PathError",))
    found = [
        (round(m.prior, 2), apply_edits({"m.py": SOURCE}, m.edits)["m.py"].splitlines()[line])
        for m in directed_mutations(
            src, statement, parents, FunctionFacts(src, None), evidence, {"m.py": SOURCE}
        )
        if m.family == "exception-handler"
    ]
    assert found == [
        (1.0, "    except (AttributeError, TypeError, OverflowError) as e:"),
        (0.9, "    except (AttributeError, TypeError) as e:"),
        (0.9, "    except (AttributeError, OverflowError) as e:"),
    ]


def test_no_widening_where_a_handler_already_takes_the_exception():
    assert edits_at("target.insert(len(target), value)", crash="TypeError") == []  # except Exception
    assert edits_at("return table[key]", named=("PathError",), crash="KeyError") == []  # LookupError


def test_no_widening_by_a_name_the_module_cannot_refer_to():
    # JSONDecodeError lives in json: `except (ValueError, JSONDecodeError)` would not run
    assert edits_at("return json.loads(text)", named=("PathError",), crash="JSONDecodeError") == []


def test_a_bare_handler_that_swallowed_a_keyboard_interrupt_takes_only_exceptions():
    found = edits_at('raise PathError("invalid parts")', named=("KeyboardInterrupt", "PathError"))
    assert found == [("1.00", "except Exception:  # noqa: E722")]


def test_a_broad_handler_lets_the_exception_the_test_expects_pass_through():
    found = edits_at("return default", named=("KeyError",))
    assert found == [("0.70", "except KeyError: | raise")]
    text = apply_edits(
        {"m.py": SOURCE},
        next(
            m.edits
            for m in directed_mutations(
                SourceFile("m.py", SOURCE),
                *_site("return default"),
                FailureEvidence(named_exceptions=("KeyError",)),
                {"m.py": SOURCE},
            )
            if m.family == "exception-handler"
        ),
    )["m.py"]
    # the clause sits right before the broad handler, at its indentation
    assert text.splitlines()[-5:] == [
        "        return table[key][0]",
        "    except KeyError:",
        "        raise",
        "    except Exception:",
        "        return default",
    ]


def test_no_narrowing_for_an_exception_the_handler_itself_raises_or_does_not_catch():
    assert edits_at('raise PathError("invalid parts")', named=("PathError",)) == []
    assert edits_at("raise PathError(key)", named=("ValueError",)) == []


def _site(text: str) -> tuple:
    src = SourceFile("m.py", SOURCE)
    line = next(i for i, ln in enumerate(SOURCE.splitlines(), 1) if text in ln)
    parents = parent_map(src.tree)
    statement = statement_at(src, line, parents)
    return statement, parents, FunctionFacts(src, enclosing_function(statement, parents))


@pytest.mark.parametrize(
    ("clause", "exception", "taken"),
    [
        ("except:", "KeyboardInterrupt", True),
        ("except Exception:", "KeyboardInterrupt", False),
        ("except Exception:", "TypeError", True),
        ("except LookupError:", "KeyError", True),
        ("except (ValueError, errors.PathError):", "PathError", True),
        ("except ValueError:", "TypeError", False),
        ("except BaseException:", "SystemExit", True),
    ],
)
def test_which_exceptions_a_handler_takes(clause, exception, taken):
    handler = ast.parse(f"try:\n    pass\n{clause}\n    pass\n").body[0].handlers[0]
    assert catches(handler, exception) is taken


def test_the_exceptions_a_failing_test_names_come_after_those_it_said_were_not_raised():
    tests = textwrap.dedent("""
        import unittest
        import pytest
        from m import PathError, joined


        def test_bad_parts():
            with pytest.raises(PathError):
                joined([1])


        class JoinTests(unittest.TestCase):
            def test_interrupts_pass_through(self):
                for kind in (KeyboardInterrupt, SystemExit):
                    with self.assertRaises(kind):
                        joined(self.parts(kind))
    """)
    assert exception_names(ast.parse(tests)) == ["PathError", "KeyboardInterrupt", "SystemExit"]
    found = failing_exception_names(
        {
            "tests/test_m.py::JoinTests::test_interrupts_pass_through": tests,
            "tests/test_m.py::test_bad_parts": tests,
        },
        ("ValueError",),
    )
    assert found == ("ValueError", "KeyboardInterrupt", "SystemExit", "PathError")
