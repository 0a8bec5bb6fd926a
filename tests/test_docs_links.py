"""The README and the documentation site: every link lands, the README stays a page long, and the
site builds with `mkdocs build --strict`, its configuration reference written from the code."""

from __future__ import annotations

import argparse
import html
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from selfheal.cli.parsers import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]
REPO_URL = "https://github.com/selfheal/selfheal"

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
IMG_SRC = re.compile(r"""<img\b[^>]*?\bsrc=["']([^"']+)["']""")
OWN_URL = re.compile(re.escape(REPO_URL) + r"/(blob|tree)/main/([^)\s#\"'>]+)")
FENCE = re.compile(r"^\s*(```|~~~)")


def outside_fences(path: Path) -> list[str]:
    """The file's lines, those of fenced code blanked."""
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").split("\n"):
        if FENCE.match(line):
            fenced = not fenced
            lines.append("")
        else:
            lines.append("" if fenced else line)
    return lines


def prose(path: Path) -> list[str]:
    """The lines outside fenced code, inline code blanked too: a link-like text inside backticks is
    an example, not a link."""
    return [re.sub(r"`[^`]*`", "code", line) for line in outside_fences(path)]


def github_slug(heading: str) -> str:
    """The id GitHub gives a heading (the site's toc is set to give the same ones)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    ids, seen = set(), {}
    for line in outside_fences(path):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            slug = github_slug(m.group(1))
            n = seen.get(slug, 0)
            ids.add(slug if n == 0 else f"{slug}-{n}")
            seen[slug] = n + 1
    return ids


def links(path: Path) -> list[tuple[int, str]]:
    found = []
    for number, line in enumerate(prose(path), 1):
        found += [(number, m.group(1)) for m in LINK.finditer(line)]
        found += [(number, m.group(1)) for m in IMG_SRC.finditer(line)]
    return found


def where(path: Path, number: int) -> str:
    return f"{path.relative_to(ROOT)}:{number}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_names_a_file_of_the_repository(page: Path) -> None:
    broken = []
    for number, target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # a URL: the repository's own are checked below
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if ROOT not in resolved.parents and resolved != ROOT:
            broken.append(f"{where(page, number)}: {target} leaves the repository")
        elif not resolved.exists():
            broken.append(f"{where(page, number)}: {target} does not exist")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{where(page, number)}: {target}: no heading #{anchor} in {resolved.name}")
    assert not broken, "\n".join(broken)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_to_the_repository_on_github_name_paths_that_exist(page: Path) -> None:
    broken = []
    for number, target in links(page):
        m = OWN_URL.match(target)
        if target.startswith(REPO_URL + "/") and not m:
            broken.append(f"{where(page, number)}: {target} is not a blob/main or tree/main link")
        elif m:
            path = ROOT / m.group(2)
            exists = path.is_dir() if m.group(1) == "tree" else path.is_file()
            if not exists:
                broken.append(f"{where(page, number)}: {target}: no such {m.group(1)} in the checkout")
    assert not broken, "\n".join(broken)


def test_the_readme_fits_on_a_page() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; its details belong in docs/"


def test_the_readmes_test_command_is_the_one_ci_runs() -> None:
    commands = re.findall(r"```sh\n(.*?)\n```", README.read_text(encoding="utf-8"), re.S)
    assert len(commands) == 2 and commands[0].endswith("selfheal heal examples/intervals")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert commands[1] in ci


def test_the_readmes_workflow_is_an_excerpt_of_heal_yml() -> None:
    """Each line the excerpt shows stands in the template, in the same order; what it leaves out
    is marked by a comment."""
    [block] = re.findall(r"```yaml\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    template = (ROOT / ".github" / "workflows" / "heal.yml").read_text(encoding="utf-8").splitlines()
    yaml.safe_load(block)
    at = 0
    for line in block.splitlines():
        if not line.strip() or line.strip().startswith("#"):
            continue
        assert line in template[at:], f"not in heal.yml (or out of order): {line!r}"
        at = template.index(line, at) + 1


@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None,
    reason="mkdocs and mkdocs-material are not installed (pip install -e '.[test]' installs them)",
)
def test_the_site_builds_strict_with_the_options_the_code_defines(tmp_path: Path) -> None:
    site = tmp_path / "site"
    config = ROOT / "mkdocs.yml"
    build = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)]
    done = subprocess.run(
        build,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stdout + done.stderr

    reference = html.unescape((site / "configuration" / "index.html").read_text(encoding="utf-8"))
    [commands] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    heal = commands.choices["heal"]
    heal_options = [
        option
        for action in heal._actions
        if action.help != argparse.SUPPRESS and not isinstance(action, argparse._HelpAction)
        for option in action.option_strings
    ]
    assert len(heal_options) > 20
    missing = [option for option in heal_options if option not in reference]
    assert not missing, f"options of `selfheal heal` missing from the reference: {missing}"
    inputs = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"]
    assert [name for name in inputs if f">{name}<" not in reference] == []

    for page in sorted(DOCS.rglob("*.md")):
        built = site / ("index.html" if page.stem == "index" else f"{page.stem}/index.html")
        ids = set(re.findall(r'<h[1-6] id="([^"]+)"', built.read_text(encoding="utf-8")))
        assert anchors(page) <= ids, f"{page.name}: the site's heading ids differ from GitHub's"
