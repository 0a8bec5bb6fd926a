"""How pip reads a requirements file, line by line, before it acts on one: so that a line is
classified as pip will read it."""

from __future__ import annotations

import codecs
import optparse
import re

# What pip's requirements-file reader does before it parses a line (pip/_internal/req/req_file.py),
# so that a line is classified as pip will read it: comments, continuations, ${VAR}.
_COMMENT = re.compile(r"(^|\s+)#.*$")
ENV_VAR = re.compile(r"\$\{[A-Z0-9_]+\}")
# pip decodes a requirements file by its BOM (in this order), else by a PEP 263 line
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF32, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
)  # fmt: skip
_CODING = re.compile(rb"coding[:=]\s*([-\w.]+)")


def decode(data: bytes) -> str:
    """The file's text as pip would decode it. What cannot be decoded is replaced rather than
    refused: pip reads the UTF-8 copy written from this text, never the file itself."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(encoding, errors="replace")
    for line in data.split(b"\n")[:2]:
        found = _CODING.search(line) if line[:1] == b"#" else None
        if found:
            try:
                return data.decode(found.group(1).decode("ascii"), errors="replace")
            except LookupError:
                break
    return data.decode("utf-8", errors="replace")


def logical_lines(physical: list[str]) -> list[tuple[int, str]]:
    """pip's join_lines and ignore_comments: (number of the first line, the line) for every line
    that is not empty once continuations are joined and comments taken out."""
    joined: list[tuple[int, str]] = []
    pending: list[str] = []
    first = 0
    for number, line in enumerate(physical, start=1):
        if not line.endswith("\\") or _COMMENT.match(line):
            if _COMMENT.match(line):
                line = " " + line
            if pending:
                joined.append((first, "".join([*pending, line])))
                pending = []
            else:
                joined.append((number, line))
        else:
            if not pending:
                first = number
            pending.append(line.strip("\\"))
    if pending:
        joined.append((first, "".join(pending)))
    stripped = [(number, _COMMENT.sub("", line).strip()) for number, line in joined]
    return [(number, line) for number, line in stripped if line]


def break_args_options(line: str) -> tuple[str, str]:
    """pip's split of a line into its requirement and its options: at the first word that
    starts with a dash."""
    tokens = line.split(" ")
    for index, token in enumerate(tokens):
        if token.startswith("-"):
            return " ".join(tokens[:index]), " ".join(tokens[index:])
    return line, ""


class OptionError(Exception):
    pass


class _LineParser(optparse.OptionParser):
    def error(self, msg: str) -> None:  # type: ignore[override]
        raise OptionError(msg)

    def exit(self, status: int = 0, msg: str | None = None) -> None:  # type: ignore[override]
        raise OptionError(msg or "")


def line_parser() -> optparse.OptionParser:
    """The options pip reads in a requirements file, with pip's names: optparse takes an
    abbreviation (`--extra` for `--extra-index-url`) and a value joined to its option (`-ihttp://…`)
    here as pip does."""
    parser = _LineParser(add_help_option=False)
    add = parser.add_option
    add("-i", "--index-url", "--pypi-url", dest="index_url")
    add("--extra-index-url", dest="extra_index_urls", action="append", default=[])
    add("--no-index", action="store_true")
    add("-c", "--constraint", dest="constraints", action="append", default=[])
    add("-r", "--requirement", dest="requirements", action="append", default=[])
    add("-e", "--editable", dest="editables", action="append", default=[])
    add("-f", "--find-links", dest="find_links", action="append", default=[])
    add("--no-binary", action="append")
    add("--only-binary", action="append")
    add("--prefer-binary", action="store_true")
    add("--require-hashes", action="store_true")
    add("--pre", action="store_true")
    add("--trusted-host", dest="trusted_hosts", action="append", default=[])
    add("--use-feature", action="append")
    add("--global-option", action="append")
    add("--hash", action="append")
    add("-C", "--config-settings", action="append")
    return parser
