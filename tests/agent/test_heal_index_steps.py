"""A whole heal whose fix steps a walked position back after deleting the element there.

Through the public API with the local sandbox and real pytest; `heal_repo` checks the proof
obligations, then the test the concrete fix.
"""

from __future__ import annotations

import pytest

from tests.agent.test_heal_bug_shapes import heal_repo
from tests.conftest import diff_lines

pytestmark = pytest.mark.slow


def test_deleting_in_a_walk_by_position_steps_the_position_back(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "prose/__init__.py": "",
            "prose/blanks.py": '''
            """Tidying of text lines before they are typeset."""


            def drop_blank_lines(lines: list[str]) -> list[str]:
                """Remove every blank line, in place; the others keep their order."""
                i = 0
                while i < len(lines):
                    if not lines[i].strip():
                        del lines[i]
                    i += 1
                return lines
            ''',
            "tests/test_blanks.py": """
            from prose.blanks import drop_blank_lines


            def test_single_blank_lines():
                assert drop_blank_lines(["a", "", "b", " ", "c"]) == ["a", "b", "c"]


            def test_blank_lines_in_a_row():
                assert drop_blank_lines(["a", "", "", "b"]) == ["a", "b"]
            """,
        },
        failing={"tests/test_blanks.py::test_blank_lines_in_a_row"},
    )
    removed, added = diff_lines(result.patch)
    assert [f.family for f in result.fixes] == ["index-step"], (removed, added)
    assert (removed, added) == ([], ["            i -= 1"])
