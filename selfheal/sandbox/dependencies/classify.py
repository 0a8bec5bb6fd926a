"""Each line of a requirements file and each declared entry, classified as pip would read it: a
name for the package index, a local path, or a place of the repository's choosing (refused
unless the operator allows it)."""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from selfheal.sandbox.dependencies.pipfile import (
    ENV_VAR,
    OptionError,
    break_args_options,
    decode,
    line_parser,
    logical_lines,
)
from selfheal.sandbox.exceptions import SetupRefused

VCS_PREFIXES = ("git+", "hg+", "svn+", "bzr+")

ALLOW_FLAG = "--allow-direct-requirements"
HOW_TO_ALLOW = (
    f"the operator allows them with {ALLOW_FLAG} (the Action's input allow-direct-requirements, "
    f"the bot server's {ALLOW_FLAG})"
)
SHOWN_REFUSALS = 5
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_INDEX_OPTIONS = {
    "index_url": "another package index (--index-url)",
    "extra_index_urls": "another package index (--extra-index-url)",
    "find_links": "a place pip would search for packages (--find-links)",
    "trusted_hosts": "a host pip would trust without checking its certificate (--trusted-host)",
}


@dataclass(frozen=True)
class Refusal:
    where: str  # "requirements.txt line 3", "pyproject.toml [project] dependencies"
    entry: str  # the line or entry, credentials in URLs masked
    reason: str
    allowable: bool  # the operator's switch allows it (another index, a VCS checkout, a URL)


def read_requirement_files(
    workspace: Path, names: tuple[str, ...], *, allow_direct: bool = False
) -> tuple[dict[str, str], list[str], list[Refusal]]:
    """The requirement files `names` and those they include (`-r`, `-c`), each as pip is to
    read it, by path; the local paths they name; and the lines refused.

    The text kept for pip is the file's logical lines, classified, at their own line numbers:
    no comment (pip honours a PEP 263 line in a comment), nothing joined or expanded later."""
    texts: dict[str, str] = {}
    local: list[str] = []
    refusals: list[Refusal] = []
    pending = list(names)
    while pending:
        name = pending.pop(0)
        path = (workspace / name).resolve()
        if name in texts or not path.is_file() or workspace.resolve() not in path.parents:
            continue
        physical = decode(path.read_bytes()).splitlines()
        kept = [""] * len(physical)
        for number, line in logical_lines(physical):
            where = f"{name} line {number}"
            verdict = _classify_line(line, name, where, allow_direct)
            refusals += verdict.refusals
            pending += verdict.included
            local += verdict.local
            if verdict.keep:
                kept[number - 1] = line
        texts[name] = "\n".join(kept) + "\n"
    return texts, local, refusals


@dataclass(frozen=True)
class _Verdict:
    keep: bool
    local: tuple[str, ...] = ()
    included: tuple[str, ...] = ()  # files to read next, by path in the workspace
    refusals: tuple[Refusal, ...] = ()


def _classify_line(line: str, name: str, where: str, allow_direct: bool) -> _Verdict:
    shown = masked(line)
    variable = ENV_VAR.search(line)
    if variable:
        # pip would fill it from the set-up container's environment, which is selfheal's (and the
        # image's), never the repository's to read
        reason = f"reads {variable.group(0)} from the set-up's environment"
        return _Verdict(False, refusals=(Refusal(where, shown, reason, False),))
    args, options_text = break_args_options(line)
    try:
        options = line_parser().parse_args(shlex.split(options_text))[0]
    except (ValueError, OptionError) as exc:
        reason = f"options selfheal cannot read ({exc}); pip is handed only lines it classified"
        return _Verdict(False, refusals=(Refusal(where, shown, reason, False),))
    refusals = [
        Refusal(where, shown, reason, True)
        for dest, reason in _INDEX_OPTIONS.items()
        if getattr(options, dest) and not allow_direct
    ]
    included = []
    for target in [*options.requirements, *options.constraints]:
        if _SCHEME.match(target):
            if not allow_direct:
                refusals.append(Refusal(where, shown, "a requirements file fetched from a URL", True))
            continue
        # pip reads an included file's path from the including file's folder: the copies keep
        # the layout, so the line stays as it is
        included_name = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
        if included_name.startswith(("../", "/")) or included_name == "..":
            # its copy would land outside the copies' folder, and pip would read what is there
            reason = "includes a file outside the repository's folder"
            refusals.append(Refusal(where, shown, reason, False))
            continue
        included.append(included_name)
    local = []
    for editable in options.editables:
        kind, path = _classify_editable(editable)
        if kind == "local":
            local.append(path)
        elif not allow_direct:
            refusals.append(Refusal(where, shown, _KIND_REASONS[kind], True))
    if args:
        kind, path = classify_requirement(args)
        if kind == "local":
            local.append(path)
        elif kind != "index" and not allow_direct:
            refusals.append(Refusal(where, shown, _KIND_REASONS[kind], True))
    keep = not local and not refusals
    return _Verdict(keep, tuple(local), tuple(included), tuple(refusals))


_KIND_REASONS = {
    "vcs": "a version-control checkout, fetched and built with the network",
    "url": "a direct URL, downloaded from where the repository says",
}


def classify_requirement(text: str) -> tuple[str, str]:
    """What pip makes of a requirement (no options): ("index", ""), ("local", path[extras]),
    ("vcs", "") or ("url", "")."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        requirement = None
    if requirement is not None:
        if requirement.url is None:
            return "index", ""
        kind, path = _url_kind(requirement.url)
        extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras and path else ""
        return kind, path + extras
    # not PEP 508: a URL, a path, or something pip refuses itself
    head = text.split(";", 1)[0].strip()
    if head.lower().startswith(VCS_PREFIXES) or _SCHEME.match(head):
        return _url_kind(head)
    if head.startswith((".", "/")) or "/" in head or "\\" in head:
        return "local", head
    return "index", ""


def _classify_editable(text: str) -> tuple[str, str]:
    """pip takes `-e` as a local project, or as a VCS URL (`git:` meaning `git+git:`)."""
    lowered = text.lower()
    if lowered.startswith(VCS_PREFIXES) or lowered.startswith(("git:", "hg:", "svn:", "bzr:")):
        return "vcs", ""
    if _SCHEME.match(text):
        return _url_kind(text)
    return "local", text


def _url_kind(url: str) -> tuple[str, str]:
    lowered = url.lower()
    if lowered.startswith(VCS_PREFIXES):
        return "vcs", ""
    if lowered.startswith("file:"):
        path = url[len("file:") :]
        if path.startswith("//"):  # file://host/path: only the local host's paths are files
            path = path[2:].removeprefix("localhost")
        return "local", unquote(path) or "."
    if _SCHEME.match(url):
        return "url", ""
    return "local", url


def declared(
    where: str, entries: list, allow_direct: bool
) -> tuple[list[str], list[tuple[str, str]], list[Refusal]]:
    """Entries of pyproject.toml (or a build backend's metadata), which pip gets as arguments:
    each must be a PEP 508 requirement, or pip would read it as an option or a path. The entries
    for pip, the local paths among them (entry, path), and what is refused."""
    from packaging.requirements import InvalidRequirement, Requirement

    kept: list[str] = []
    local: list[tuple[str, str]] = []
    refusals: list[Refusal] = []
    for entry in entries:
        text = entry if isinstance(entry, str) else repr(entry)
        try:
            Requirement(text)
        except InvalidRequirement:
            reason = "not a PEP 508 requirement (pip would read it as an option or a path)"
            refusals.append(Refusal(where, masked(text), reason, False))
            continue
        kind, path = classify_requirement(text)
        if kind == "index":
            kept.append(text)
        elif kind == "local":
            local.append((text, path))
        elif allow_direct:
            kept.append(text)
        else:
            refusals.append(Refusal(where, masked(text), _KIND_REASONS[kind], True))
    return kept, local, refusals


def declared_requirements(where: str, entries: list, *, allow_direct: bool = False) -> list[str]:
    """What a build backend reported its project requires, for pip with a network: raises
    SetupRefused for what the operator did not allow; a local path is the repository's own code
    (built without a network, or not at all) and is left out."""
    kept, _, refusals = declared(where, entries, allow_direct)
    refuse(refusals)
    return kept


def refuse(refusals: list[Refusal]) -> None:
    """Raise SetupRefused naming every refused line (the first few) and what would allow them."""
    if not refusals:
        return
    shown = "; ".join(f"{r.where}: {r.entry!r}: {r.reason}" for r in refusals[:SHOWN_REFUSALS])
    if len(refusals) > SHOWN_REFUSALS:
        shown += f"; and {len(refusals) - SHOWN_REFUSALS} more"
    tail = []
    if any(r.allowable for r in refusals):
        tail.append(
            "the set-up downloads only from the operator's package index (pip's own configuration "
            f"in the sandbox's image); another index, a VCS checkout or a URL: {HOW_TO_ALLOW}"
        )
    if not all(r.allowable for r in refusals):
        tail.append("what selfheal cannot classify it never hands to pip, whatever the operator allows")
    raise SetupRefused(f"dependency setup refused before pip was asked for it: {shown}. {'; '.join(tail)}")


def masked(text: str) -> str:
    """The line as shown in a message: no user or password of a URL, at most 160 characters."""
    masked = re.sub(r"(?<=://)[^/@\s]+@", "***@", text)
    return masked if len(masked) <= 160 else masked[:157] + "..."
