"""`python -m evaluation.report_screenshots`: report.html as a reviewer sees it, in headless Chromium
(Debian's `chromium`) at a phone's width and a laptop's, for three real heals, written to
docs/images/report/ (docs/getting-started.md shows them).

    healed    the bundled `pricing` example, healed by the search with new tests (local sandbox)
    partial   two failing tests, one a mutation fixes and one none can (status partial)
    model     the bundled `intervals` example, healed by a scripted model's edit

The same reports and the same probe serve tests/agent/report/test_html_layout.py: `probe_layout`
loads a copy of the page with a script added (the report itself runs none: its
Content-Security-Policy allows no script) and reads back what the script measured, by Chromium's
`--dump-dom`: whether the page or any element outside a scroll container is wider than the
window, whether a fixed-width box's text spills out of it, and whether an SVG's text is drawn
outside the SVG or too small to read.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from selfheal.agent.config import build_config
from selfheal.agent.events import Trace
from selfheal.agent.loop import heal
from selfheal.agent.model.llm import Reply, ScriptedModel, ToolCall, Usage
from selfheal.agent.model.strategy import ModelSetup
from selfheal.agent.report.html import HTML_FILE
from selfheal.agent.report.outputs import write_outputs
from selfheal.agent.report.result import HealResult
from selfheal.sandbox import LocalSandbox
from tests.agent.test_heal_model import BUGGY, CONCLUSION, FIXED, intervals_repo
from tests.conftest import EXAMPLES, git, write_tree

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images" / "report"
WIDTHS = (390, 1200)  # a phone (iPhone 12-15) and a laptop window, in CSS pixels
OPTIONS = {"python": sys.executable, "memory": False}  # memory off: no heal recalls another
PROBE_ID = "selfheal-layout-probe"
# What the probe measures in the report's window and document, run once as the page lays out and
# once with every <details> opened. It runs in a wrapper page around the report's frame: the
# report runs no script (its Content-Security-Policy allows none), and headless Chromium makes no
# window narrower than 500 pixels, a frame as narrow as asked.
PROBE = (Path(__file__).parent / "report_layout_probe.js").read_text(encoding="utf-8")
WRAPPER = """<!DOCTYPE html>
<html><head><meta charset="utf-8">
<style>body {{ margin: 0; }} iframe {{ border: 0; display: block; }}</style></head>
<body><iframe id="report" width="{width}" height="{height}" src="{page}"></iframe>
{script}</body></html>
"""
RUN_PROBE = """<script>
%s
function done(frame) {
  const out = document.createElement("pre");
  out.id = "%s";
  out.textContent = JSON.stringify(probe(frame.contentWindow, frame.contentDocument));
  document.body.appendChild(out);
}
const frame = document.getElementById("report");
const loaded = frame.contentDocument;
if (loaded && loaded.readyState === "complete" && loaded.URL !== "about:blank") done(frame);
else frame.addEventListener("load", function () { done(frame); });
</script>
""" % (PROBE, PROBE_ID)  # noqa: UP031 (the script's braces are JavaScript's)


@dataclass(frozen=True)
class Layout:
    width: int  # of the window, as the page saw it
    height: int  # of the page, as laid out (details closed)
    problems: tuple[str, ...]


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _command(browser: str, width: int, height: int, profile: Path, *action: str) -> list[str]:
    """Headless Chromium with no network (a proxy nobody answers); the wrapper page, a file, may
    read the report's frame, a file too."""
    command = [
        browser, "--headless", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
        "--allow-file-access-from-files", "--force-device-scale-factor=1", "--proxy-server=127.0.0.1:9",
        f"--window-size={width},{height}", f"--user-data-dir={profile}", *action,
    ]  # fmt: skip
    if os.geteuid() == 0:
        command.insert(1, "--no-sandbox")  # Chromium's own sandbox refuses to start as root
    return command


def _wrapper(page: Path, width: int, height: int, workdir: Path, script: str = "") -> Path:
    wrapper = workdir / f"frame-{width}-{page.parent.name}.html"
    text = WRAPPER.format(
        width=width, height=height, page=html.escape(page.resolve().as_uri()), script=script
    )
    wrapper.write_text(text, encoding="utf-8")
    return wrapper


def _browser() -> str:
    browser = chromium()
    if browser is None:
        raise RuntimeError("no chromium: install Debian's chromium package")
    return browser


def probe_layout(page: Path, width: int, workdir: Path) -> Layout:
    """What the probe finds wrong with `page` in a window `width` pixels wide."""
    wrapper = _wrapper(page, width, 900, workdir, RUN_PROBE)
    command = _command(
        _browser(), max(width, 500), 900, workdir / "chromium-profile", "--dump-dom", wrapper.as_uri()
    )
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    start = done.stdout.find(f'<pre id="{PROBE_ID}">')
    if start < 0:
        raise RuntimeError(f"the probe did not run: {done.stderr[-2000:]}")
    body = done.stdout[start:].split(">", 1)[1].split("</pre>", 1)[0]
    found = json.loads(html.unescape(body))
    return Layout(found["width"], found["height"], tuple(found["problems"]))


def screenshot(page: Path, png: Path, width: int, height: int, workdir: Path) -> Path:
    """The whole page (`height` as the probe measured it) at `width`, as a small PNG."""
    wrapper = _wrapper(page, width, height, workdir)
    command = _command(
        _browser(), width, height, workdir / "chromium-profile", f"--screenshot={png}", wrapper.as_uri()
    )
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    if not png.is_file():
        raise RuntimeError(f"no screenshot: {done.stderr[-2000:]}")
    image = Image.open(png).convert("RGB").crop((0, 0, width, height))
    # a palette of 256 colours keeps a page of text and flat colours sharp at a third of the size
    image.quantize(256).save(png, optimize=True)
    return png


def _committed(repo: Path) -> Path:
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "example")
    return repo


def _outputs(result: HealResult, trace: Trace, out: Path) -> Path:
    write_outputs(result, trace, out)
    return out


def healed_report(root: Path) -> Path:
    """The `pricing` example healed by the search: localization over two files, new tests."""
    repo = root / "pricing"
    shutil.copytree(EXAMPLES / "pricing", repo, ignore=shutil.ignore_patterns(".selfheal", "__pycache__"))
    trace = Trace()
    result = heal(build_config(_committed(repo), OPTIONS), LocalSandbox(), trace)
    return _outputs(result, trace, root / "healed")


PARTIAL = {
    "members/__init__.py": "",
    "members/age.py": "def is_adult(age):\n    return age > 18\n",
    "members/greet.py": 'def greeting(name):\n    return "hi " + name\n',
    "tests/test_members.py": "from members.age import is_adult\nfrom members.greet import greeting\n\n\n"
    "def test_adult_at_18():\n    assert is_adult(18)\n\n\n"
    "def test_child_at_17():\n    assert not is_adult(17)\n\n\n"
    "def test_greeting_addresses_the_member_by_name_with_a_capital_and_an_exclamation_mark():\n"
    '    assert greeting("Ada") == "Hello, Ada!"\n',
}


def partial_report(root: Path) -> Path:
    """One failure a mutation fixes (`>` for `>=`), one no mutation can (a new greeting)."""
    repo = root / "members"
    write_tree(repo, PARTIAL)
    trace = Trace()
    result = heal(build_config(_committed(repo), OPTIONS), LocalSandbox(), trace)
    return _outputs(result, trace, root / "partial")


def model_report(root: Path) -> Path:
    """The `intervals` example healed by a scripted model: the debugger runs a snippet and
    concludes, the generator's edit is screened and verified like any candidate."""
    snippet = "from intervals.core import Interval, merge\nprint(merge([Interval(1, 3), Interval(3, 5)]))"
    debugger = ScriptedModel([
        Reply("Let me run merge on touching intervals.",
              tool_calls=(ToolCall("toolu_1", "run_snippet", {"code": snippet}),), usage=Usage(900, 60)),
        Reply(json.dumps(CONCLUSION), usage=Usage(1400, 120)),
    ])  # fmt: skip
    generator = ScriptedModel([
        Reply("Merge touching intervals: compare with `<=`.\n\nintervals/core.py\n<<<<<<< SEARCH\n"
              + BUGGY + "=======\n" + FIXED + ">>>>>>> REPLACE\n", usage=Usage(1100, 70)),
    ])  # fmt: skip
    setup = ModelSetup(
        debugger=debugger, generator=generator, search_share=0.0, spec_tests=None, qa_adversarial=None,
        critic=None, judge=None, memory=None,
    )  # fmt: skip
    repo = intervals_repo(root)
    trace = Trace()
    result = heal(build_config(repo, OPTIONS), LocalSandbox(), trace, model=setup)
    return _outputs(result, trace, root / "model")


REPORTS: dict[str, Callable[[Path], Path]] = {
    "healed": healed_report,
    "partial": partial_report,
    "model": model_report,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--out", type=Path, default=IMAGES, help="where the PNG files go")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    failed = False
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        for name, make in REPORTS.items():
            folder = work / name
            folder.mkdir()
            page = make(folder) / HTML_FILE
            for width in WIDTHS:
                layout = probe_layout(page, width, work)
                png = screenshot(page, args.out / f"{name}-{width}.png", width, layout.height, work)
                shown = png.relative_to(ROOT) if png.is_relative_to(ROOT) else png
                print(f"{shown}: {width}x{layout.height}")
                for problem in layout.problems:
                    print(f"  layout: {problem}")
                failed = failed or bool(layout.problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
