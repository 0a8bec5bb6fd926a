"""`python -m evaluation.pr_screenshot`: the body of the pull request selfheal opens, as a picture.

The bundled `pricing` example is healed by the search (local sandbox, as in
`evaluation.report_screenshots`); its summary.md is the pull request's body (the Action and the bot
publish it as it is, with a link to the run's artifact appended). It is rendered here with
Python-Markdown and a stylesheet close to GitHub's, in headless Chromium 900 CSS pixels wide, and
written to docs/images/pr-body.png for the README. It is a local rendering of the body, not a
screenshot of github.com.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import markdown

from evaluation.report_screenshots import healed_report, screenshot

ROOT = Path(__file__).resolve().parents[1]
PICTURE = ROOT / "docs" / "images" / "pr-body.png"
WIDTH = 900
STYLE = """
body { font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif;
       color: #1f2328; margin: 0; padding: 24px 32px; background: #fff; }
.frame { border: 1px solid #d1d9e0; border-radius: 6px; padding: 16px 24px; }
.head { font-weight: 600; color: #59636e; border-bottom: 1px solid #d1d9e0;
        margin: -16px -24px 16px; padding: 8px 24px; background: #f6f8fa; border-radius: 6px 6px 0 0; }
h1, h2, h3 { border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; margin: 1em 0 .5em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; } h3 { font-size: 1.1em; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; background: #eff1f3;
       padding: .2em .4em; border-radius: 6px; }
pre { background: #f6f8fa; padding: 12px; border-radius: 6px; overflow: hidden; }
pre code { background: none; padding: 0; }
table { border-collapse: collapse; } th, td { border: 1px solid #d1d9e0; padding: 4px 10px; }
details summary { cursor: pointer; }
"""


def render(summary: str, title: str) -> str:
    body = markdown.markdown(summary, extensions=["tables", "fenced_code"])
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        f'<style>{STYLE}</style></head><body><div class="frame">'
        f'<div class="head">{title}</div>{body}</div></body></html>'
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=PICTURE, help="the PNG to write")
    parser.add_argument("--height", type=int, default=1300, help="CSS pixels of the body shown")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        out = healed_report(root)
        page = root / "pr-body.html"
        page.write_text(
            render(
                (out / "summary.md").read_text(encoding="utf-8"),
                "pull request description (summary.md of the heal)",
            ),
            "utf-8",
        )
        args.out.parent.mkdir(parents=True, exist_ok=True)
        screenshot(page, args.out, WIDTH, args.height, root)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
