"""Definitions that run at import (module and class level) as repair sites of the statements
that read them, and regex guidance that reads the failing inputs as the program does."""

from __future__ import annotations

import textwrap

from selfheal.agent.localize.spectrum import Localization, SuspiciousLine, Target
from selfheal.agent.repair.mutation import Hints
from selfheal.agent.repair.search import SearchStrategy
from selfheal.agent.repair.strategy import RepairContext

SOURCE = textwrap.dedent(r"""
    import re


    class Reader:
        LINE = re.compile(r"^(\w+)\s*=\s*(.*)$", re.MULTILINE)

        def read(self, text):
            settings = {}
            found = self.LINE.search(text)
            while found:
                settings[found.group(1)] = found.group(2).strip()
                found = self.LINE.search(text, found.end())
            return settings


    class DashedReader(Reader):
        def keys(self, text):
            return [m.group(1) for m in self.LINE.finditer(text)]


    class Other:
        LINE = "unrelated"
""").lstrip()
TEST = textwrap.dedent('''
    import textwrap

    def test_keys_with_dashes():
        text = textwrap.dedent("""
            max-size = 3
            name = demo
            """)
        assert Reader().read(text) == {"max-size": "3", "name": "demo"}
''')
TARGET = "tests/test_reader.py::test_keys_with_dashes"


def context(*suspect_lines: int) -> RepairContext:
    lines = tuple(
        SuspiciousLine(file="reader.py", line=n, score=1.0, ochiai=1.0, traceback=0.0, function="Reader.read")
        for n in suspect_lines
    )
    localization = Localization(
        lines=lines, targets=(Target("reader.py", "Reader.read", suspect_lines[0], 1.0),), had_coverage=True
    )
    return RepairContext(
        sources={"reader.py": SOURCE}, localization=localization, targets=(TARGET,), passing=(),
        coverage=None, durations={}, hints=Hints(), seed=0,
        baseline_messages={TARGET: "assert {'name': 'demo'} == {'max-size': '3', 'name': 'demo'}"},
        target_tests={TARGET: TEST},
    )  # fmt: skip


def regex_edits_at_line_5(candidates) -> list[str]:
    return [c.description.split(": ", 2)[-1] for c in candidates if c.family == "regex-edit" and c.line == 5]


def test_a_class_pattern_read_through_a_local_the_suspect_uses_is_edited_at_its_definition():
    # Line 11 only reads `found`; `found` is made by `self.LINE.search(...)`, the class's pattern.
    candidates = SearchStrategy().candidates(context(11))
    edits = regex_edits_at_line_5(candidates)
    assert "`\\w` also takes '-'" in edits
    site = next(c for c in candidates if c.line == 5)
    assert site.function == "<module>"
    # the definition is a site at a discount of the statement reading it
    assert max(c.score for c in candidates if c.line == 5) < max(c.score for c in candidates if c.line == 11)


def test_without_a_suspect_reading_it_the_class_pattern_is_no_site():
    candidates = SearchStrategy().candidates(context(13))  # `return settings`
    assert regex_edits_at_line_5(candidates) == []


def test_a_subclass_reads_its_base_classs_pattern_not_a_same_named_attribute_of_another_class():
    lines = SOURCE.splitlines()
    keys_line = next(n for n, text in enumerate(lines, 1) if "finditer" in text)
    candidates = SearchStrategy().candidates(context(keys_line))
    assert "`\\w` also takes '-'" in regex_edits_at_line_5(candidates)
    other_line = next(n for n, text in enumerate(lines, 1) if 'LINE = "unrelated"' in text)
    assert not [c for c in candidates if c.line == other_line]


def test_the_edit_that_changes_what_the_multiline_pattern_finds_in_the_dedented_input_ranks_first():
    # Read without re.MULTILINE, or on the test's indented text, no edit changes what `^...$`
    # finds, and every edit would rank alike.
    candidates = SearchStrategy().candidates(context(11))
    candidates = [c for c in candidates if c.family == "regex-edit" and c.line == 5]
    best = max(c.score for c in candidates)
    top = [c.description.split(": ", 2)[-1] for c in candidates if c.score == best]
    assert "`\\w` also takes '-'" in top
    widened_space = next(c for c in candidates if c.description.endswith("`\\s` also takes '-'"))
    assert widened_space.score == best / 2  # changes nothing the input shows: halved
