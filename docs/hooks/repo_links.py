"""MkDocs hook: links from the docs to the repository's own files.

The pages link the repository's files relatively (`../evaluation/results/cheats.json`), so that
they work where the Markdown is read, on GitHub or in a checkout. The site holds only `docs/`, so
at build time such a link becomes the file's page on GitHub (`<repo_url>/blob/main/<path>`, or
`/tree/main/<path>` for a folder), and an image is copied into the site beside the pages, since a
GitHub page is no image. A link to a path that does not exist is left alone, so that
`mkdocs build --strict` reports it.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

BRANCH = "main"  # the branch the published site describes (the Pages workflow builds on pushes to it)
IMAGES_UNDER = "repo-files"  # where the site keeps the repository's images its pages show
LINK = re.compile(r"(?P<image>!?)(?P<text>\[(?:[^\[\]]|\[[^\]]*\])*\])\((?P<target>[^)\s]+)\)")
IMG_SRC = re.compile(r"""(?P<lead><img\b[^>]*?\bsrc=)(?P<quote>["'])(?P<target>[^"']+)(?P=quote)""")
FENCE = re.compile(r"^\s*(```|~~~)")


def _repo_path(config: Any, page_uri: str, target: str) -> str | None:
    """The repository-relative path `target` names from the page, when it lies outside docs/ and
    exists; None for anything else (a page of the site, a URL, an anchor, a missing file)."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith(("#", "/")):
        return None
    path = target.split("#", 1)[0]
    if not path:
        return None
    root = Path(config.config_file_path).resolve().parent
    docs = Path(config.docs_dir).resolve()
    resolved = (docs / posixpath.dirname(page_uri) / path).resolve()
    if docs in resolved.parents or resolved == docs or root not in resolved.parents:
        return None
    if not resolved.exists():
        return None
    return resolved.relative_to(root).as_posix()


def _images(markdown: str) -> list[str]:
    targets = [m.group("target") for m in LINK.finditer(markdown) if m.group("image")]
    return targets + [m.group("target") for m in IMG_SRC.finditer(markdown)]


def on_files(files: Files, config: Any) -> Files:
    """Copy in every repository image a page shows, so the site serves it."""
    wanted: set[str] = set()
    for file in list(files.documentation_pages()):
        markdown = Path(file.abs_src_path).read_text(encoding="utf-8")
        for target in _images(_outside_fences(markdown)):
            path = _repo_path(config, file.src_uri, target)
            if path is not None:
                wanted.add(path)
    root = Path(config.config_file_path).resolve().parent
    for path in sorted(wanted):
        files.append(File.generated(config, f"{IMAGES_UNDER}/{path}", abs_src_path=str(root / path)))
    return files


def _outside_fences(markdown: str) -> str:
    kept, fenced = [], False
    for line in markdown.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
            kept.append("")
            continue
        kept.append("" if fenced else line)
    return "\n".join(kept)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    repo_url = (config.repo_url or "").rstrip("/")
    if not repo_url:
        raise PluginError("repo_links hook: mkdocs.yml needs repo_url to link the repository's files")
    page_uri = page.file.src_uri
    root = Path(config.config_file_path).resolve().parent

    def image(path: str) -> str:
        return posixpath.relpath(f"{IMAGES_UNDER}/{path}", posixpath.dirname(page_uri) or ".")

    def web(path: str, fragment: str) -> str:
        kind = "tree" if (root / path).is_dir() else "blob"
        return f"{repo_url}/{kind}/{BRANCH}/{path}{fragment}"

    def link(m: re.Match[str]) -> str:
        target = m.group("target")
        path = _repo_path(config, page_uri, target)
        if path is None:
            return m.group(0)
        fragment = "#" + target.split("#", 1)[1] if "#" in target else ""
        new = image(path) if m.group("image") else web(path, fragment)
        return f"{m.group('image')}{m.group('text')}({new})"

    def img(m: re.Match[str]) -> str:
        path = _repo_path(config, page_uri, m.group("target"))
        if path is None:
            return m.group(0)
        return f"{m.group('lead')}{m.group('quote')}{image(path)}{m.group('quote')}"

    out, fenced = [], False
    for line in markdown.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            line = IMG_SRC.sub(img, LINK.sub(link, line))
        out.append(line)
    return "\n".join(out)
