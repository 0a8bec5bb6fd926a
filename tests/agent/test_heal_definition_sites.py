"""Whole heals whose fix is in a definition that runs at import: a class's compiled pattern,
which coverage never blames, read by the method the failing test runs.

Through the public API with the local sandbox and real pytest; `heal_repo` checks the proof
obligations, then each test the concrete fix.
"""

from __future__ import annotations

import pytest

from tests.agent.test_heal_bug_shapes import heal_repo
from tests.conftest import diff_lines

pytestmark = pytest.mark.slow


def test_a_class_pattern_too_narrow_for_a_dashed_key_is_widened_where_it_is_compiled(
    make_repo, run_heal, tmp_path
):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "settings/__init__.py": "",
            "settings/reader.py": r'''
            """Settings files: one `key = value` per line."""

            import re


            class SettingsReader:
                LINE = re.compile(r"^(\w+)[ \t]*=[ \t]*(.*)$", re.MULTILINE)

                def read(self, text: str) -> dict[str, str]:
                    settings = {}
                    found = self.LINE.search(text)
                    while found:
                        settings[found.group(1)] = found.group(2).strip()
                        found = self.LINE.search(text, found.end())
                    return settings
            ''',
            "tests/test_reader.py": '''
            import textwrap

            from settings.reader import SettingsReader


            def test_plain_keys():
                text = textwrap.dedent("""
                    name = demo
                    size = 3
                    """)
                assert SettingsReader().read(text) == {"name": "demo", "size": "3"}


            def test_values_keep_inner_spaces():
                assert SettingsReader().read("title = a b c\\n") == {"title": "a b c"}


            def test_keys_with_dashes():
                text = textwrap.dedent("""
                    max-size = 3
                    name = demo
                    """)
                assert SettingsReader().read(text) == {"max-size": "3", "name": "demo"}
            ''',
        },
        failing={"tests/test_reader.py::test_keys_with_dashes"},
    )
    assert [f.family for f in result.fixes] == ["regex-edit"]
    removed, added = diff_lines(result.patch)
    assert removed == ['    LINE = re.compile(r"^(\\w+)[ \\t]*=[ \\t]*(.*)$", re.MULTILINE)']
    assert added == ['    LINE = re.compile(r"^([\\w-]+)[ \\t]*=[ \\t]*(.*)$", re.MULTILINE)']
