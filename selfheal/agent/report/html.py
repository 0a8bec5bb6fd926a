"""report.html: one self-contained page per heal, for a maintainer who would rather look than read.

    write_html(out_dir)          # from the folder's report.json, trace.jsonl, conversation.jsonl,
                                 # patch.diff and tests/
    render_html(run)             # the page's text, from a `RunFiles`

Built from the output folder alone, so `selfheal report RUN_DIR` renders any earlier run the same
way the heal did. Jinja2 templates (autoescaped: every text in the page came from the repository
or a model); no script, stylesheet, font or image is fetched: the charts are inline SVG, the
model's conversation sits in collapsed <details>. The page is scrubbed like every output.

It reads in a reviewer's order: the verdict and how sure it is (report.json's confidence, ready
for review or a draft, and why), what to look at before merging, the root cause and the diff;
then the evidence. Report text with Markdown in it (root causes, lessons, reasons) has its code
spans and bold rendered by `inline_markdown`, everything else escaped. The layout holds from a
phone's width up (tests/agent/report/test_html_layout.py looks at it in Chromium).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape  # Jinja2's own escaping

from selfheal.agent.exceptions import HealError
from selfheal.agent.report.htmlcharts import BAR_BOX, families, timeline
from selfheal.agent.report.htmlconversation import conversation
from selfheal.agent.report.htmlheat import heat, localize_excerpt, unranked_changes
from selfheal.agent.report.htmlsections import diff_lines, pinned, rules, sandbox_line, test_stages, warnings
from selfheal.agent.report.runfiles import RunFiles
from selfheal.sandbox.secrets import Scrubber, process_scrubber

HTML_FILE = "report.html"
HEADLINE = {
    "healed": "every verdict rule holds",
    "partial": "some failures fixed, nothing broken",
    "not_healed": "no candidate met the verdict",
    "nothing_to_heal": "no test fails",
    "error": "the heal could not complete",
}
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*", re.S)


def inline_markdown(text: object) -> Markup:
    """`text` as HTML: Markdown's code spans and **bold**, everything else escaped. The text came
    from a repository or a model: nothing in it may become markup of the page, so it is escaped
    first and only these two tags are put around what was escaped."""
    source = "" if text is None else str(text)
    parts, at = [], 0
    for match in CODE_SPAN.finditer(source):
        parts += [_bold(source[at : match.start()]), Markup("<code>%s</code>") % match.group(2).strip()]
        at = match.end()
    parts.append(_bold(source[at:]))
    return Markup("").join(parts)


def _bold(text: str) -> Markup:
    return Markup(BOLD.sub(r"<strong>\1</strong>", str(escape(text))))


@cache  # compiling the template costs more than rendering it; a bot renders many
def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("selfheal.agent.report", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["md"] = inline_markdown
    # one precision per kind of number across the page: scores and probabilities two decimals,
    # seconds one, dollars four
    env.filters["two"] = lambda value: f"{float(value):.2f}"
    env.filters["secs"] = lambda value: f"{float(value):.1f} s"
    env.filters["usd"] = lambda value: f"${float(value):.4f}"
    return env


def render_html(run: RunFiles) -> str:
    report = run.report
    prefix = f"{report['project_dir']}/" if report.get("project_dir") else ""
    localization = report.get("localization") or []
    template = _environment().get_template("report.html.j2")
    return template.render(
        report=report,
        headline=HEADLINE.get(str(report.get("status")), ""),
        confidence=report.get("confidence"),
        pinned=pinned(report),
        warnings=warnings(report),
        sandbox=sandbox_line(report.get("sandbox") or {}),
        isolation=[p for p in str((report.get("sandbox") or {}).get("isolation", "")).split("; ") if p],
        timeline=timeline(run.events),
        heat=heat(localization, localize_excerpt(run.events), run.patch, prefix),
        unranked=unranked_changes(localization, run.patch, prefix),
        families=families(run.events),
        bar_box=BAR_BOX,
        rules=rules(report.get("verdict")),
        diff=diff_lines(run.patch),
        test_files=run.test_files,
        test_stages=test_stages(run.events),
        recalled=(report.get("memory") or {}).get("recalled") or [],
        conversation=conversation(
            run.events, run.conversation, (report.get("model") or {}).get("usage") or {}
        ),
        metrics=report.get("metrics") or {},
    )


def write_html(out_dir: Path, scrub: Scrubber | None = None, report: dict[str, Any] | None = None) -> Path:
    """Render the folder's report.html beside its report.json (or from `report`); its path."""
    scrub = scrub or process_scrubber()
    target = out_dir / HTML_FILE
    text = scrub(render_html(RunFiles.read(out_dir, report)))
    try:
        # "replace": a lone surrogate from the repository or a model becomes "?", not a failed heal
        target.write_text(text, encoding="utf-8", errors="replace")
    except OSError as exc:
        raise HealError(f"could not write {target}: {exc.strerror or exc}") from exc
    return target
