"""report.html holds its layout on a phone and on a laptop: three real heals (healed by the search,
partial, healed by a scripted model), loaded in headless Chromium (Debian's package) 390 and 1200
CSS pixels wide, where nothing but a scroll container's content is wider than the window, no
fixed-width box's text spills out of it, and no chart's text is drawn outside its SVG or too small
to read (evaluation/report_layout_probe.js measures; evaluation/report_screenshots.py drives it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evaluation.report_screenshots import PARTIAL, REPORTS, WIDTHS, chromium, probe_layout
from selfheal.agent.report.html import HTML_FILE

pytestmark = pytest.mark.skipif(chromium() is None, reason="no chromium: .ci/run installs Debian's package")

# a page with each fault the probe looks for, and a wide block inside a scroll container (allowed)
FAULTY = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><style>body { margin: 0; font: 14px sans-serif; }</style></head>
<body>
<div id="wide" style="width: 600px">a block wider than a phone</div>
<div style="overflow-x: auto"><div id="scrolled" style="width: 900px">wide, in a scroll container</div></div>
<span id="gutter" style="display: inline-block; width: 2ch">0.3742</span>
<svg id="bars" width="100" height="20" viewBox="0 0 100 20"><text x="90" y="14">13</text></svg>
<svg id="timeline" width="50" height="10" viewBox="0 0 500 100"><text x="0" y="50">baseline</text></svg>
<details><summary>closed</summary><div id="folded" style="width: 700px">wide once opened</div></details>
</body></html>
"""


class Reports:
    """The three heals' report pages, each healed the first time a test asks for it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.pages: dict[str, Path] = {}

    def page(self, name: str) -> Path:
        if name not in self.pages:
            folder = self.root / name
            folder.mkdir()
            self.pages[name] = REPORTS[name](folder) / HTML_FILE
        return self.pages[name]


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> Reports:
    return Reports(tmp_path_factory.mktemp("reports"))


def test_the_probe_finds_each_fault(tmp_path):
    page = tmp_path / "faulty" / "report.html"
    page.parent.mkdir()
    page.write_text(FAULTY, encoding="utf-8")
    layout = probe_layout(page, 390, tmp_path)
    assert layout.width == 390
    laid_out = [p for p in layout.problems if p.startswith("as laid out: ")]
    opened = [p for p in layout.problems if p.startswith("details opened: ")]
    expected = [
        r"as laid out: the page is 600 px wide in a 390 px window",
        r"as laid out: div#wide spans 0\.0 to 600\.0 px of 390",
        r"as laid out: the text of span#gutter \(0\.3742\) spills out of its \d+ px box",
        r'as laid out: "13" lies outside its SVG\'s viewBox',
        r'as laid out: "13" is drawn outside its SVG',
        r'as laid out: "baseline" is drawn \d\.\d px high',
    ]
    assert len(laid_out) == len(expected), laid_out
    for problem, pattern in zip(laid_out, expected, strict=True):
        assert re.fullmatch(pattern, problem), problem
    # opened, the folded block overflows too; the scroll container's content never counts
    assert "details opened: div#folded spans 0.0 to 700.0 px of 390" in opened
    assert len(opened) == len(expected) + 1
    assert not [p for p in layout.problems if "scrolled" in p]


def test_the_three_reports_are_a_sure_fix_a_partial_one_and_a_models(reports):
    healed = reports.page("healed").read_text(encoding="utf-8")
    assert '<header class="verdict sure">' in healed
    assert '<span class="ready">ready for review</span>' in healed
    assert "<code>tests/test_selfheal_percent_change.py::test_percent_change_" in healed
    partial = reports.page("partial").read_text(encoding="utf-8")
    assert '<span class="status partial">partial</span>' in partial
    assert '<span class="draft">not ready for review: a draft</span>' in partial
    assert '<p>Why not ready:</p><ul class="reasons"><li>only part of the failing tests pass</li>' in partial
    long_id = "tests/test_members.py::" + PARTIAL["tests/test_members.py"].split("def ")[3].split("(")[0]
    assert len(long_id) > 100  # wider than a phone, in any font
    assert f'<li><code>{long_id}</code> — <span class="no">still fails</span></li>' in partial
    model = reports.page("model").read_text(encoding="utf-8")
    assert '<h2 id="model">The model\'s part</h2>' in model
    assert "<summary>debugger — 2300 in / 180 out, $0.0000 · 2 call(s)</summary>" in model
    # the debugger's root cause, its Markdown rendered
    assert "stay apart because the comparison is <code>&lt;</code>.</p>" in model


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", list(REPORTS))
def test_the_report_holds_its_layout(reports, name, width, tmp_path):
    layout = probe_layout(reports.page(name), width, tmp_path)
    assert layout.width == width
    assert layout.problems == ()
    assert layout.height > 2000  # the whole report was laid out, not an error page
