"""MkDocs hook: the configuration reference, written from the code that defines the settings.

`docs/configuration.md` holds a hand-written introduction and markers such as
`<!-- generated: cli-options -->`; on every build each marker is replaced by tables read from the
definitions themselves: the argparse parsers of `selfheal/cli/parsers.py` (and `evaluation/bench`'s,
which `selfheal bench` hands its arguments to), `HealConfig` and the `[tool.selfheal]` keys of
`selfheal/agent/config.py`, and `action.yml` with the `ActionInputs` it is parsed into. A marker
that is missing or unknown fails the build, so the page cannot quietly lose a table.
"""

from __future__ import annotations

import argparse
import dataclasses
import html
import importlib
import re
import sys
from pathlib import Path
from typing import Any

import yaml
from mkdocs.exceptions import PluginError

PAGE = "configuration.md"
MARKER = re.compile(r"<!-- generated: ([a-z-]+) -->")
# `selfheal bench` passes its arguments through unparsed to the benchmark's own parser, which
# lives in the clone's evaluation/ package, not in selfheal
DELEGATED = {"selfheal bench": "evaluation.bench.cli"}
# the subcommands whose flags fill HealConfig (build_config): where a flag is not given, the typed
# configuration's default is what the heal uses
CONFIG_BACKED = {"selfheal heal"}

_root: Path | None = None


def on_config(config: Any) -> Any:
    global _root
    _root = Path(config.config_file_path).resolve().parent
    # the page describes this checkout's code, whatever selfheal the environment has installed
    if str(_root) not in sys.path:
        sys.path.insert(0, str(_root))
    selfheal = importlib.import_module("selfheal")
    where = Path(selfheal.__file__).resolve()
    if _root not in where.parents:
        raise PluginError(f"configuration hook: selfheal is imported from {where}, not from {_root}")
    return config


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    makers = {
        "cli-options": cli_options,
        "pyproject-keys": pyproject_keys,
        "action-inputs": action_inputs,
        "action-outputs": action_outputs,
    }
    found = MARKER.findall(markdown)
    unknown = sorted(set(found) - set(makers))
    missing = sorted(set(makers) - set(found))
    if unknown or missing:
        raise PluginError(f"{PAGE}: unknown markers {unknown}, missing markers {missing}")
    return MARKER.sub(lambda m: makers[m.group(1)](), markdown)


# -- rendering ---------------------------------------------------------------------------------


def text(value: str) -> str:
    """Prose for a table cell: `code` spans stay code, anything else that Markdown would read as
    markup (or as the cell's end) is shown as written."""
    parts = re.split(r"(`[^`]+`)", " ".join(value.split()))
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(code(part[1:-1]))
        else:
            out.append(re.sub(r"([\\`*_\[\]|])", r"\\\1", html.escape(part, quote=False)))
    return "".join(out)


def code(value: str) -> str:
    # a code span shows its text as written; Python-Markdown's tables do not split a cell at a `|`
    # inside one (raw <code> would not do: Markdown still reads emphasis in it)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", value)), default=0) + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, tuple | list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    return str(value)


# -- the command line --------------------------------------------------------------------------


def cli_options() -> str:
    cli = importlib.import_module("selfheal.cli.parsers")
    heal_config = importlib.import_module("selfheal.agent.config").HealConfig
    config_defaults = {
        f.name: f.default for f in dataclasses.fields(heal_config) if f.default is not dataclasses.MISSING
    }
    parts = []
    for prog, summary, parser in subcommands(cli.build_parser()):
        if prog in DELEGATED:
            stub = parser
            parser = importlib.import_module(DELEGATED[prog]).build_parser()
            if not any(a.nargs == argparse.REMAINDER for a in stub._actions):
                raise PluginError(f"{prog} parses its own options now: drop it from DELEGATED")
        defaults = config_defaults if prog in CONFIG_BACKED else {}
        rows = [option_row(parser, action, defaults) for action in options(parser)]
        parts.append(f"### `{prog}`\n\n{text(parser.description or summary)}")
        if rows:
            parts.append(table(("option", "default", "meaning"), rows))
    return "\n\n".join(parts)


def subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """Every leaf command under `parser` as (its prog, its one-line help, its parser), in order."""
    found = []
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
        for name, sub in action.choices.items():
            nested = subcommands(sub)
            found += nested or [(sub.prog, helps.get(name, ""), sub)]
    return found


SKIPPED = (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.help != argparse.SUPPRESS and not isinstance(a, SKIPPED)]


def option_row(parser: argparse.ArgumentParser, action: argparse.Action, defaults: dict) -> tuple[str, ...]:
    choices = "{" + ",".join(map(str, action.choices)) + "}" if action.choices else None
    if not action.option_strings:
        shown = action.metavar or choices or action.dest
    elif action.nargs == 0:
        shown = ", ".join(action.option_strings)
    else:
        shown = ", ".join(action.option_strings) + " " + (action.metavar or choices or action.dest.upper())
    help_text = parser._get_formatter()._expand_help(action) if action.help else ""
    if action.option_strings and action.nargs == 0:
        default = "on" if action.default else "off"  # a flag: given or not
    elif action.default is not None:
        value = action.default
        default = code(value if isinstance(value, str) else toml_value(value))
    elif defaults.get(action.dest) is not None:
        value = defaults[action.dest]
        if isinstance(value, bool) and action.choices and {"on", "off"} <= set(action.choices):
            value = "on" if value else "off"
        default = code(value if isinstance(value, str) else toml_value(value))
    else:
        default = "—"
    return (code(shown), default, text(help_text))


# -- [tool.selfheal] ---------------------------------------------------------------------------


def pyproject_keys() -> str:
    config = importlib.import_module("selfheal.agent.config")
    fields = {f.name: f for f in dataclasses.fields(config.HealConfig)}
    kinds = [
        (config._INT_KEYS, "integer"),
        (config._FLOAT_KEYS, "number"),
        (config._TUPLE_KEYS, "string or list of strings"),
        (config._STR_KEYS, "string"),
    ]
    rows = []
    for key in sorted(config._FILE_KEYS):
        name = key.replace("_", "-")
        if key == "llm":
            rows.append((code(name), "—", "table", "—", "see [Models per role](models.md#models-per-role)"))
            continue
        default = fields[key].default
        kind = next((label for keys, label in kinds if key in keys), "boolean")  # as _coerce reads them
        bound = config.UPPER_BOUNDS.get(key)
        rows.append(
            (
                code(name),
                "—" if default is None else code(toml_value(default)),
                kind,
                "—" if bound is None else code(toml_value(bound)),
                repository_rule(config, key, default, kind),
            )
        )
    head = (
        "The keys a repository's `pyproject.toml` may set under `[tool.selfheal]` (dashes or "
        "underscores), with the default `HealConfig` gives each, the upper bound every caller is "
        "held to, and what selfheal does with a value the repository sets (a note in the report "
        "says so when it changes one):"
    )
    header = ("key", "default", "type", "at most", "set by the repository")
    return head + "\n\n" + table(header, rows)


def repository_rule(config: Any, key: str, default: Any, kind: str) -> str:
    """What selfheal does with a value from the repository that would loosen its limits, found by
    handing one to the code that contains the repository's settings, and why, in the words of the
    note it writes into the report."""
    if kind == "boolean":
        probe: Any = not default
    elif kind in ("integer", "number"):
        probe = (default or 1) * 2
    elif kind == "string":
        probe = "x"
    else:
        probe = ("x",)
    kept, notes = config._contain_repo_settings({key: probe})
    if not notes:
        return "used as set"
    why = text(notes[0].split(": ", 1)[1])
    if key not in kept:
        setting = f"{key.replace('_', '-')} = {toml_value(probe)}" if kind == "boolean" else ""
        return (code(setting) + " " if setting else "") + "ignored: " + why
    if kept[key] == default:
        return "lowered to the default when above it: " + why
    return "the defaults are kept: " + why


# -- the Action --------------------------------------------------------------------------------


def _action_yml() -> dict:
    assert _root is not None
    return yaml.safe_load((_root / "action.yml").read_text(encoding="utf-8"))


def action_inputs() -> str:
    inputs_module = importlib.import_module("selfheal.action.inputs")
    typed = {f.name: f.type for f in dataclasses.fields(inputs_module.ActionInputs)}
    rows = []
    for name, spec in _action_yml()["inputs"].items():
        default = str(spec.get("default", ""))
        rows.append(
            (
                code(name),
                code(default) if default else "—",
                code(str(typed[name.replace("-", "_")])),
                text(str(spec.get("description", ""))),
            )
        )
    head = (
        "Inputs of `uses: selfheal/selfheal@v1`, from `action.yml`; an empty value means selfheal's "
        "own default (or the repository's `[tool.selfheal]` setting). *Read as* is the field of "
        "`ActionInputs` the input is parsed into."
    )
    return head + "\n\n" + table(("input", "default", "read as", "meaning"), rows)


def action_outputs() -> str:
    rows = [
        (code(name), text(str(spec.get("description", ""))))
        for name, spec in _action_yml()["outputs"].items()
    ]
    return table(("output", "meaning"), rows)
