"""The source around the suspect lines, as the localize step puts it in the trace for report.html
(drawn there: tests/agent/report/test_html.py)."""

from __future__ import annotations

from selfheal.agent.localize.excerpt import MAX_LINE_CHARS, suspect_excerpt
from selfheal.agent.localize.spectrum import Localization, SuspiciousLine

SOURCE = "".join(f"line_{n} = {n}\n" for n in range(1, 31))


def suspects(*where: tuple[str, int]) -> Localization:
    lines = tuple(
        SuspiciousLine(path, line, 0.9 - i / 10, 0.5, 1.0, "f") for i, (path, line) in enumerate(where)
    )
    return Localization(lines, (), True)


def test_a_suspect_line_comes_with_three_lines_either_side_within_the_file():
    long_line = "x = '" + "y" * 300 + "'\n"
    excerpt = suspect_excerpt(
        suspects(("a.py", 15), ("a.py", 2), ("b.py", 2), ("gone.py", 4)),
        {"a.py": SOURCE, "b.py": "one = 1\n" + long_line + "three = 3\n"},
    )
    assert excerpt["a.py"]["lines"] == 30
    assert list(excerpt["a.py"]["text"]) == [str(n) for n in (1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17, 18)]
    assert excerpt["a.py"]["text"]["15"] == "line_15 = 15"
    assert excerpt["b.py"]["lines"] == 3 and list(excerpt["b.py"]["text"]) == ["1", "2", "3"]
    assert len(excerpt["b.py"]["text"]["2"]) == MAX_LINE_CHARS and excerpt["b.py"]["text"]["2"].endswith("…")
    assert "gone.py" not in excerpt  # a file the heal has no source of
