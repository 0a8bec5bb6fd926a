"""Which repository the last heal run from a folder healed: `.selfheal/last-heal` in that folder.

`selfheal heal examples/intervals`, run from a clone's root, writes its outputs under the root's
./.selfheal/runs/ and its record into examples/intervals/.selfheal/memory.jsonl, the healed
repository's own memory. `selfheal memory`, run where the heal was, reads the repository this
file names, beside the runs, rather than the folder's own (empty) memory.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from selfheal.agent.exceptions import HealError
from selfheal.agent.report.outputs import runs_folder

LAST_HEAL = "last-heal"


def note_last_heal(base: Path, repo: Path) -> None:
    """Name `repo` as the one the last heal from `base` healed. Written whole or not at all,
    and never through a link: runs_folder refuses a `.selfheal` that is one, and the rename
    replaces a link where the file is rather than following it."""
    folder = runs_folder(base).parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{LAST_HEAL}-", dir=folder)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(f"{repo.resolve()}\n")
        os.replace(temporary, folder / LAST_HEAL)
    except OSError as exc:
        raise HealError(f"could not note the healed repository in {folder / LAST_HEAL}: {exc}") from exc


def last_healed(base: Path) -> Path | None:
    """The repository the last heal from `base` healed, when it noted one that is still there."""
    path = base / ".selfheal" / LAST_HEAL
    if path.is_symlink() or not path.is_file():
        return None
    try:
        repo = Path(path.read_text(encoding="utf-8").strip())
    except (OSError, UnicodeDecodeError):
        return None
    return repo if repo.is_absolute() and repo.is_dir() else None
