"""A mutation is compiled and keyed on the top-level statements it touches (TopLevelSpans), so
its cost does not grow with the file; the whole file is used only where no such span holds it."""

from __future__ import annotations

import pytest

from selfheal.agent.repair.edits import Edit, TopLevelSpans, apply_edits
from selfheal.agent.repair.search import changed_text

TEXT = """import math

LIMIT = 3  # a limit


@property
def first(x):
    return x + 1



# a comment between statements


def second(x):
    if x > LIMIT:
        return x
    return -x
a = 1; b = 2
"""


def replacing(old: str, new: str, text: str = TEXT, path: str = "m.py") -> Edit:
    start = text.encode().index(old.encode())
    return Edit(path, start, start + len(old.encode()), new)


def test_an_edit_inside_a_function_gives_that_function_with_its_decorator():
    spans = TopLevelSpans({"m.py": TEXT})
    touched = spans.touched((replacing("x + 1", "x - 1"),))
    start = TEXT.index("@property")
    end = TEXT.index("    return x + 1\n") + len("    return x + 1")
    assert touched == {"m.py": (start, end, "@property\ndef first(x):\n    return x - 1")}


def test_two_edits_in_two_statements_give_the_span_from_the_first_to_the_last():
    spans = TopLevelSpans({"m.py": TEXT})
    touched = spans.touched((replacing("LIMIT = 3", "LIMIT = 4"), replacing("x > LIMIT", "x >= LIMIT")))
    (start, end, text) = touched["m.py"]
    assert (start, end) == (TEXT.index("LIMIT = 3"), TEXT.index("    return -x") + len("    return -x"))
    assert text.startswith("LIMIT = 4  # a limit\n") and "if x >= LIMIT:" in text
    assert "# a comment between statements" in text


def test_statements_sharing_a_line_are_spans_of_their_own():
    spans = TopLevelSpans({"m.py": TEXT})
    assert spans.touched((replacing("b = 2", "b = 3"),)) == {
        "m.py": (TEXT.index("b = 2"), TEXT.index("b = 2") + 5, "b = 3")
    }


def test_an_edit_outside_every_statement_or_in_a_broken_file_has_no_span():
    spans = TopLevelSpans({"m.py": TEXT, "broken.py": "def (:\n"})
    assert spans.touched((replacing("a comment", "another comment"),)) is None
    assert spans.touched((Edit("broken.py", 0, 3, "class"),)) is None


def test_overlapping_edits_are_refused_like_apply_edits_refuses_them():
    edits = (replacing("x + 1", "x"), replacing("+ 1", "+ 2"))
    with pytest.raises(ValueError, match=r"overlapping edits in m\.py"):
        TopLevelSpans({"m.py": TEXT}).touched(edits)
    with pytest.raises(ValueError, match=r"overlapping edits in m\.py"):
        apply_edits({"m.py": TEXT}, edits)


def test_changed_text_keys_the_span_or_falls_back_to_the_whole_file():
    spans = TopLevelSpans({"m.py": TEXT})
    start = TEXT.index("a = 1")
    assert changed_text(spans, {"m.py": TEXT}, (replacing("a = 1", "a = 0"),)) == {
        f"m.py:{start}:{start + 5}": "a = 0"
    }
    comment = (replacing("a comment", "another comment"),)
    assert changed_text(spans, {"m.py": TEXT}, comment) == apply_edits({"m.py": TEXT}, comment)


def test_a_span_compiles_exactly_when_the_whole_file_does():
    spans = TopLevelSpans({"m.py": TEXT})
    broken = (replacing("if x > LIMIT:", "if x > LIMIT"),)
    ((_, (_, _, text)),) = spans.touched(broken).items()
    with pytest.raises(SyntaxError):
        compile(text, "m.py", "exec")
    with pytest.raises(SyntaxError):
        compile(apply_edits({"m.py": TEXT}, broken)["m.py"], "m.py", "exec")
    # a `return` moved out of its function fails alone as it fails in the file
    dedented = (replacing("    return -x", "return -x"),)
    ((_, (_, _, text)),) = spans.touched(dedented).items()
    with pytest.raises(SyntaxError):
        compile(text, "m.py", "exec")
