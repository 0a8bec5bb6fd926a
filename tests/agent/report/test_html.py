"""report.html: rendered from real heals (a search heal, a scripted model heal), looked at in a real
headless Chromium (Debian's package), self-contained, and small for a long search."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace
from selfheal.agent.localize.excerpt import suspect_excerpt
from selfheal.agent.loop import heal
from selfheal.agent.model.llm import Reply, ScriptedModel, ToolCall, Usage
from selfheal.agent.model.strategy import ModelSetup
from selfheal.agent.report.html import HTML_FILE, inline_markdown, render_html
from selfheal.agent.report.htmlcharts import BAR_BOX, DIGIT_W, bar_geometry
from selfheal.agent.report.htmlheat import changed_lines
from selfheal.agent.report.htmlsections import sandbox_line
from selfheal.agent.report.outputs import write_outputs
from selfheal.agent.report.runfiles import CONVERSATION_FILE, RunFiles
from selfheal.cli import main
from selfheal.sandbox import LocalSandbox
from tests.agent.localize.test_excerpt import SOURCE, suspects
from tests.agent.test_heal_model import BUGGY, CONCLUSION, FIXED, intervals_repo
from tests.conftest import git, write_tree

AGE = {
    "pkg/__init__.py": "",
    "pkg/age.py": "def is_adult(age):\n    return age > 18\n",
    "tests/test_age.py": "from pkg.age import is_adult\n\n\n"
    "def test_adult_at_18():\n    assert is_adult(18)\n\n\n"
    "def test_child_at_17():\n    assert not is_adult(17)\n",
}
DIFF_ADDED = (0xDA, 0xFB, 0xE1)  # the background of an added line of the diff
TIMELINE_BAR = (0x09, 0x69, 0xDA)  # a stage's bar on the timeline
ROLE_EDGE = (0x82, 0x50, 0xDF)  # the left edge of a model role's (collapsed) conversation
MODEL_SAID = (0xFB, 0xEF, 0xFF)  # the background of the model's answer in an opened conversation
TOOL_SAID = (0xEE, 0xF6, 0xFF)  # the background of a tool's result
# a secret as the process's environment holds it, and a GitHub token shape a test run printed
SECRET = "zq7-hunter2-0123456789"
PRINTED_TOKEN = "ghp_" + "Q" * 36
EXTERNAL = re.compile(r"""(?:src|href|action)\s*=\s*["']?(?!#)[^"'\s>]|url\(|@import|https?://""", re.I)


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def screenshot(page: Path, png: Path, height: int = 2600) -> Image.Image:
    """The page as headless Chromium draws it, with no network (a proxy nobody answers)."""
    browser = chromium()
    if browser is None:
        pytest.skip("no chromium: .ci/run installs Debian's chromium package")
    command = [
        browser, "--headless", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
        "--proxy-server=127.0.0.1:9", f"--window-size=1100,{height}", f"--screenshot={png}",
        f"--user-data-dir={png.parent / 'chromium-profile'}", page.resolve().as_uri(),
    ]  # fmt: skip
    if os.geteuid() == 0:
        command.insert(1, "--no-sandbox")  # Chromium's own sandbox refuses to start as root
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert png.is_file(), done.stderr[-2000:]
    return Image.open(png).convert("RGB")


def keep(png: Path) -> None:
    """A copy of the screenshot where SELFHEAL_SCREENSHOTS says, for a person to look at."""
    folder = os.environ.get("SELFHEAL_SCREENSHOTS")
    if folder:
        shutil.copy(png, Path(folder) / png.name)


def colours(image: Image.Image) -> Counter:
    return Counter({colour: count for count, colour in image.getcolors(maxcolors=1 << 24)})


def assert_drawn(image: Image.Image) -> Counter:
    """Not blank: many colours, most of the page not one flat colour; the diff and timeline drawn."""
    counts = colours(image)
    _, most = counts.most_common(1)[0]
    assert len(counts) > 50, "the page is (nearly) blank"
    assert most < 0.9 * image.width * image.height
    assert counts[DIFF_ADDED] > 1000, "no added line of the diff is drawn"
    assert counts[TIMELINE_BAR] > 200, "no stage bar of the timeline is drawn"
    return counts


def assert_self_contained(html: str) -> None:
    assert EXTERNAL.findall(html) == []
    assert "<script" not in html.lower()
    assert "default-src 'none'" in html


@pytest.fixture(scope="module")
def search_run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("search")
    repo = root / "repo"
    write_tree(repo, AGE)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    out = root / "out"
    assert main(["heal", str(repo), "--out", str(out), "--sandbox", "local", "--memory", "off"]) == 0
    return out


def test_the_search_heal_report_is_self_contained_and_shows_what_happened(search_run):
    html = (search_run / HTML_FILE).read_text(encoding="utf-8")
    assert_self_contained(html)
    assert '<div class="add">+    return age &gt;= 18</div>' in html
    assert '<div class="del">-    return age &gt; 18</div>' in html
    for section in ("Timeline", "Where it looked", "Candidates tried, per family", "Verification",
                    "New tests and their proof", "Lessons and memory"):  # fmt: skip
        assert f">{section}</h2>" in html
    assert "<code>comparison-operator</code>" in html
    assert 'aria-label="suspiciousness of pkg/age.py"' in html
    assert "The model's part" not in html  # no model ran
    # one suspect line: the strip and the source show it among its neighbours (the file has two)
    assert re.findall(r"<title>pkg/age.py:(\d+)", html) == ["1", "2"]
    unscored = '<span class="mark"></span><span class="ln">1</span><span class="score"></span>'
    assert unscored + "def is_adult(age):</div>" in html
    # the suspect line is the line the fix changed: marked in the strip and in the source
    assert "<title>pkg/age.py:2 is_adult, 0.49 (changed by the fix)</title>" in html
    assert html.count('<rect class="fixed" ') == 1
    assert (
        '<div class="changed" title="changed by the fix" '
        'style="background: #ffbdb8; border-left: 6px solid #ff2314">'
        '<span class="mark"><span>fix</span></span><span class="ln">2</span><span class="score">0.49</span>'
        "    return age &gt; 18</div>"
    ) in html
    # the verdict first: the confidence report.json states, and whether it is ready for review
    report = json.loads((search_run / "report.json").read_text(encoding="utf-8"))
    confidence = report["confidence"]
    assert confidence["ready"] is True
    assert f'<strong>Confidence {confidence["probability"]:.2f}</strong> · <span class="ready">ready' in html
    assert (
        html.index('class="verdict sure"') < html.index(">Root cause</h2>") < html.index(">The change</h2>")
    )
    assert html.index(">The change</h2>") < html.index(">Where it looked</h2>")
    # the root cause's Markdown rendered: no backtick left
    assert (
        '<p class="root-cause">In <code>is_adult</code> (pkg/age.py:2) a comparison used the wrong operator, '
        "so a boundary case fell on the wrong side; the fix: <code>&gt;</code> -&gt; <code>&gt;=</code> in "
        "<code>age &gt; 18</code>.</p>"
    ) in html
    assert "`" not in html.split('<ul class="lessons">')[1].split("</ul>")[0]
    # the rules by number and name; the sandbox in one line, its statement folded
    assert '<td data-label="rule">1 · failures pass</td>' in html
    assert '<td data-label="rule">5 · applies cleanly</td>' in html
    assert re.search(r'<details class="sandbox"><summary>sandbox: local · [^<]* · no network</summary>', html)
    assert "RLIMIT_NPROC" in html.split('<details class="sandbox">')[1].split("</details>")[0]
    assert "RLIMIT_NPROC" not in html.split('<details class="sandbox">')[0]
    # no test shipped, and the page says what the test writers did
    assert "No new test was shipped.</p>" in html
    assert re.search(r"<li>edge cases for is_adult: \d+ inputs probed, 0 test\(s\) written", html)
    assert (
        "<li>proof run: 0 fail before the fix and pass with it, 0 pass on both (guards), 0 discarded</li>"
        in html
    )


def test_selfheal_report_renders_a_run_folder_again(search_run, tmp_path, capsys):
    copy = tmp_path / "run"
    shutil.copytree(search_run, copy)
    (copy / HTML_FILE).unlink()
    assert main(["report", str(copy)]) == 0
    assert capsys.readouterr().out.strip() == str(copy / HTML_FILE)
    assert (copy / HTML_FILE).read_text(encoding="utf-8") == (search_run / HTML_FILE).read_text(
        encoding="utf-8"
    )
    assert main(["report", str(tmp_path / "nowhere")]) == 2


def test_the_search_heal_report_in_headless_chromium(search_run, tmp_path):
    image = screenshot(search_run / HTML_FILE, tmp_path / "search.png")
    assert_drawn(image)
    keep(tmp_path / "search.png")


def test_the_model_heal_report_shows_the_conversation_in_headless_chromium(tmp_path, monkeypatch):
    monkeypatch.setenv("SELFHEAL_TEST_API_KEY", SECRET)  # the process scrubber masks its value
    snippet = "from intervals.core import Interval, merge\nprint(merge([Interval(1, 3), Interval(3, 5)]))\n"
    snippet += 'print("ghp_" + "Q" * 36)'
    debugger = ScriptedModel([
        Reply("Let me run merge on touching intervals.",
              tool_calls=(ToolCall("toolu_1", "run_snippet", {"code": snippet}),), usage=Usage(900, 60)),
        Reply(json.dumps(CONCLUSION), usage=Usage(1400, 120)),
    ])  # fmt: skip
    generator = ScriptedModel([
        Reply(f"Merge touching intervals: compare with <= (the key {SECRET} is not needed).\n\n"
              "intervals/core.py\n<<<<<<< SEARCH\n"
              + BUGGY + "=======\n" + FIXED + ">>>>>>> REPLACE\n", usage=Usage(1100, 70)),
    ])  # fmt: skip
    repo = intervals_repo(tmp_path)
    trace = Trace()
    setup = ModelSetup(
        debugger=debugger, generator=generator, search_share=0.0, spec_tests=None, qa_adversarial=None,
        critic=None, judge=None, memory=None,
    )  # fmt: skip
    config = build_config(repo, {"python": sys.executable, "memory": False})
    result = heal(config, LocalSandbox(), trace, model=setup)
    assert result.status == "healed", result.error
    # kept as said (the tool really printed the token), scrubbed where it is written
    kept = json.dumps(result.conversation)
    assert PRINTED_TOKEN in kept and SECRET in kept
    out = tmp_path / "out"
    write_outputs(result, trace, out)

    written = (out / CONVERSATION_FILE).read_text(encoding="utf-8")
    calls = [json.loads(line) for line in written.splitlines()]
    assert [(c["role"], c["call"], c["conversation"]) for c in calls] == [
        ("debugger", 1, 1), ("debugger", 2, 1), ("generator", 1, 1),
    ]  # fmt: skip
    first, second, answer = calls
    assert [t["kind"] for t in first["turns"]] == ["system", "user", "assistant", "tool_call"]
    assert first["turns"][3]["tool"] == "run_snippet" and "merge([Interval(1, 3)" in first["turns"][3]["text"]
    # the second call adds only what is new to its conversation: the tool's result and the answer
    assert [t["kind"] for t in second["turns"]] == ["tool_result", "assistant"]
    assert second["turns"][0]["tool"] == "run_snippet"
    assert "Interval(start=1, end=3), Interval(start=3, end=5)" in second["turns"][0]["text"]
    assert second["turns"][1]["text"] == json.dumps(CONCLUSION)
    assert (second["tokens_in"], second["tokens_out"]) == (1400, 120)
    assert answer["turns"][-1]["kind"] == "assistant"
    assert answer["turns"][-1]["text"].startswith("Merge touching intervals: compare with <= (the key *** is")

    html = (out / HTML_FILE).read_text(encoding="utf-8")
    for text in (written, html):
        assert PRINTED_TOKEN not in text and SECRET not in text
        assert "***" in text
    assert_self_contained(html)
    assert "The model's part" in html
    assert "<summary>debugger — 2300 in / 180 out, $0.0000 · 2 call(s)</summary>" in html
    assert "<summary>generator — 1100 in / 70 out, $0.0000 · 1 call(s)</summary>" in html
    assert '<details class="role"><summary>debugger' in html  # collapsed until opened
    assert "Let me run merge on touching intervals." in html  # the debugger's words
    assert "Interval(start=1, end=3), Interval(start=3, end=5)" in html  # what its tool showed it
    assert (
        "Merge touching intervals: compare with &lt;= (the key *** is not needed)." in html
    )  # the generator's

    # `selfheal report` draws the same page again from the folder alone
    again = tmp_path / "again"
    shutil.copytree(out, again)
    (again / HTML_FILE).unlink()
    assert main(["report", str(again)]) == 0
    assert (again / HTML_FILE).read_text(encoding="utf-8") == html

    image = screenshot(out / HTML_FILE, tmp_path / "model.png", height=4000)
    counts = assert_drawn(image)
    assert counts[ROLE_EDGE] > 300, "no model role is drawn"
    assert counts[MODEL_SAID] == 0 and counts[TOOL_SAID] == 0  # collapsed: the texts are not shown
    keep(tmp_path / "model.png")
    # as a reader who opened both roles sees it
    opened = out / "opened.html"
    opened.write_text(html.replace('<details class="role">', '<details class="role" open>'), encoding="utf-8")
    image = screenshot(opened, tmp_path / "model-opened.png", height=5000)
    counts = colours(image)
    assert counts[MODEL_SAID] > 2000, "the model's answers are not drawn"
    assert counts[TOOL_SAID] > 2000, "the tool's result is not drawn"
    keep(tmp_path / "model-opened.png")


def test_a_report_of_1500_screenings_stays_under_two_megabytes(search_run):
    """The real heal's trace with its screenings repeated to 1,500 (each a real screen event of
    that heal, renumbered): the page grows with the screenings, not with anything else."""
    run = RunFiles.read(search_run)
    screens = [e for e in run.events if e["node"] == "screen"]
    others = [e for e in run.events if e["node"] != "screen"]
    assert screens
    long_screens = []
    for n in range(1500):
        event = dict(screens[n % len(screens)])
        event.update(n=n + 1, candidate=f"{event['candidate']} #{n}" + " x" * 60, family=f"family-{n % 25}")
        long_screens.append(event)
    html = render_html(RunFiles(run.report, others + long_screens, run.patch, run.test_files))
    size = len(html.encode("utf-8"))
    assert html.count("<title>#") == 1500  # every screening is on the timeline
    assert size < 2 * 1024 * 1024, size


def test_report_html_draws_one_suspect_line_among_its_neighbours():
    excerpt = suspect_excerpt(suspects(("a.py", 15)), {"a.py": SOURCE})
    report = {
        "status": "not_healed", "repo": "r", "provider": "none",
        "sandbox": {"backend": "local", "isolation": "x"},
        "localization": [{"file": "a.py", "line": 15, "function": "f", "score": 0.9}],
    }  # fmt: skip
    html = render_html(RunFiles(report, [{"node": "localize", "start": 1.0, "end": 1.1, "excerpt": excerpt}]))
    assert 'a.py</code> <span class="muted">lines 12\u201318' in html
    assert re.findall(r"<title>a\.py:(\d+)", html) == [str(n) for n in range(12, 19)]
    assert (
        '<span class="mark"></span><span class="ln">15</span><span class="score">0.90</span>line_15 = 15'
        in html
    )
    # unscored: the column stays
    assert (
        '<span class="mark"></span><span class="ln">12</span><span class="score"></span>line_12 = 12</div>'
        in html
    )


def test_a_count_label_never_reaches_past_the_chart():
    # the longest bar leaves room for its own label: 180 - (4 + 2 digits of 7 + 1) = 161
    assert bar_geometry(13, 13) == {"bar": 161.0, "label_x": 165.0}
    assert bar_geometry(1, 13) == {"bar": 12.4, "label_x": 16.4}
    for most in (1, 9, 10, 13, 99, 100, 999, 1000, 12345, 100_000):
        for count in sorted({1, max(most // 2, 1), most - 1 or 1, most}):
            geometry = bar_geometry(count, most)
            assert geometry["label_x"] + DIGIT_W * len(str(count)) <= BAR_BOX, (count, most)


def test_inline_markdown_renders_code_and_bold_and_escapes_everything_else():
    assert inline_markdown("swap operands: `old - new` -> `new - old`.") == (
        "swap operands: <code>old - new</code> -&gt; <code>new - old</code>."
    )
    assert inline_markdown("**Diagnosis:** `<b>` stays text") == (
        "<strong>Diagnosis:</strong> <code>&lt;b&gt;</code> stays text"
    )
    # a report's text never becomes markup, inside bold or code or outside both
    assert inline_markdown('<script>alert(1)</script> **<img src=x onerror="y">** `</code><i>`') == (
        "&lt;script&gt;alert(1)&lt;/script&gt; <strong>&lt;img src=x onerror=&#34;y&#34;&gt;</strong> "
        "<code>&lt;/code&gt;&lt;i&gt;</code>"
    )
    assert inline_markdown("`**not bold**` and ``a `tick` inside``") == (
        "<code>**not bold**</code> and <code>a `tick` inside</code>"
    )
    assert inline_markdown("an unclosed ` tick, 2 ** 3 ** 2") == "an unclosed ` tick, 2 ** 3 ** 2"
    assert inline_markdown(None) == ""


def test_the_lines_a_patch_changes_in_the_code_before_it():
    patch = (
        "diff --git a/app/pkg/m.py b/app/pkg/m.py\n--- a/app/pkg/m.py\n+++ b/app/pkg/m.py\n"
        "@@ -10,4 +10,4 @@ def f():\n     a = 1\n-    return a > 2\n+    return a >= 2\n     # end\n"
        "@@ -30,2 +30,4 @@ def g():\n     x = 1\n+    if not x:\n+        return 0\n     return 1 / x\n"
        "diff --git a/app/pkg/new.py b/app/pkg/new.py\n--- /dev/null\n+++ b/app/pkg/new.py\n"
        "@@ -0,0 +1 @@\n+NEW = 1\n"
    )
    assert changed_lines(patch, "app/") == {
        "pkg/m.py": {11: "changed by the fix", 30: "the fix adds lines after it"}
    }
    # a removed line that reads like a header is a removed line
    assert changed_lines("--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,1 @@\n--- x\n y\n") == {
        "m.py": {1: "changed by the fix"}
    }


def test_the_sandbox_in_one_line():
    facts = {
        "uid": 51102, "separate_user": True, "capabilities": [], "namespaces": ["mount", "pid", "net"],
        "network": False, "contained": True,
    }  # fmt: skip
    local = {"backend": "local", "network": False, "isolation": "uid 51102; ...", "facts": facts}
    assert sandbox_line(local) == "sandbox: local · another user · namespaces mount, pid, net · no network"
    assert sandbox_line({"backend": "docker", "network": False, "isolation": "a container"}) == (
        "sandbox: docker · no network"
    )
    exposed = {**facts, "separate_user": False, "capabilities": ["CAP_SYS_ADMIN"], "namespaces": [],
               "contained": False}  # fmt: skip
    assert sandbox_line({"backend": "local", "network": True, "facts": exposed}) == (
        "sandbox: local · capabilities CAP_SYS_ADMIN · no namespaces · network · not contained"
    )


def test_a_shaky_fix_reads_as_a_draft_with_its_reasons():
    """A report shaped like report.json, of a heal whose tests allow two fixes: the page says it is
    a draft, why, what the fixes are, and names the rule that failed."""
    report = {
        "status": "healed", "repo": "r", "provider": "none", "project_dir": "",
        "sandbox": {"backend": "local", "network": False, "isolation": "uid 1; namespaces: none"},
        "confidence": {"probability": 0.412, "ready": False, "threshold": 0.73, "measured_on": "m",
                       "reasons": ["the tests allow more than one fix: 2 groups of plausible patches "
                                   "behave differently on generated inputs"]},
        "disagreement": {"open": True, "plausible": 3, "probes": 12, "groups": [
            {"members": ["m.py:2: `>` -> `>=`"], "shipped": True, "refuted_by": None},
            {"members": ["m.py:2: constant 18 -> 17"], "shipped": False, "refuted_by": None}]},
        "overfit_risks": [{"function": "is_adult", "kind": "special_case", "detail": "compares with `18`"}],
        "verdict": {"status": "healed", "rules": [{"rule": 7, "holds": False, "detail": "d"}]},
        "localization": [{"file": "m.py", "line": 2, "function": "is_adult", "score": 0.3742}],
        "targets": [{"file": "m.py", "line": 2, "function": "is_adult", "suspiciousness": 0.3742}],
    }  # fmt: skip
    html = render_html(RunFiles(report))
    assert '<header class="verdict unsure">' in html
    assert (
        '<strong>Confidence 0.41</strong> · <span class="draft">not ready for review: a draft</span>' in html
    )
    assert "<p>Why not ready:</p>" in html
    assert "<h3>⚠ The tests allow more than one fix</h3>" in html
    assert "<li>fix 1 (shipped): m.py:2: <code>&gt;</code> -&gt; <code>&gt;=</code></li>" in html
    assert "<li>fix 2: m.py:2: constant 18 -&gt; 17</li>" in html
    assert "<li><code>is_adult</code> (special case): compares with <code>18</code></li>" in html
    assert '<td data-label="rule">7 · signed outcomes</td><td data-label="holds" class="no">no</td>' in html
    assert '<span class="score">0.37</span>' not in html  # no excerpt: the strip alone
    assert "<title>m.py:2 is_adult, 0.37</title>" in html
