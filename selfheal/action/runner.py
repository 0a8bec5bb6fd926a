"""The runner's conventions: step outputs, the job summary, workflow-command annotations."""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from pathlib import Path


def write_outputs(env: Mapping[str, str], values: Mapping[str, str]) -> None:
    """Append `name=value` pairs to GITHUB_OUTPUT (heredoc form, safe for any value)."""
    path = env.get("GITHUB_OUTPUT")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as handle:
        for name, value in values.items():
            delimiter = f"selfheal_{uuid.uuid4().hex}"
            handle.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")


def write_summary(env: Mapping[str, str], markdown: str) -> None:
    path = env.get("GITHUB_STEP_SUMMARY")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(markdown.rstrip() + "\n")


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: str, message: str, *, file: str | None = None, line: int | None = None) -> str:
    """`::error file=…,line=…::message` — GitHub shows it on the file in the run and the PR."""
    props = []
    if file:
        props.append(f"file={escape_property(file)}")
        if line:
            props.append(f"line={line}")
    head = f"::{level} {','.join(props)}" if props else f"::{level}"
    return f"{head}::{escape_data(message)}"


def relative_to_workspace(env: Mapping[str, str], path: Path) -> str:
    """Paths in outputs are relative to GITHUB_WORKSPACE, where the next steps (upload-artifact) look."""
    workspace = env.get("GITHUB_WORKSPACE")
    if workspace:
        try:
            return os.path.relpath(path, workspace) if path.is_relative_to(workspace) else str(path)
        except ValueError:
            return str(path)
    return str(path)
