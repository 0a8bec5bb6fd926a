"""Benchmark tasks and subsets: read from `evaluation/tasks/`, checked before anything runs.

A task is a folder `<id>/` holding `task.toml` (metadata), `repo/` (the buggy project with its
visible tests) and `hidden/test_*.py` (reference tests the heal never sees). `subsets.toml` names
subsets as `[name] tasks = [...]`; `full` is every task unless the file says otherwise.

Content checks that need pytest runs (which tests fail at base, whether solution.diff fixes them)
belong to `evaluation/tasks/check_tasks.py`; here a task is checked for what the runner relies on,
so a malformed one stops the run with a message naming the file and the key instead of a traceback
in a worker.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from pathlib import Path

TASKS_DIR = Path(__file__).resolve().parents[1] / "tasks"
FULL = "full"
LAYOUTS = ("flat", "overlay")
REFERENCE_MODES = ("files", "functions")

# key -> type that task.toml must give it (non-empty)
REQUIRED: dict[str, type] = {
    "id": str,
    "category": str,
    "difficulty": str,
    "summary": str,
    "bug": str,
    "kind": list,
    "test_command": str,
    "visible_failing": list,
}


class TaskError(ValueError):
    """A task or subset definition the runner cannot use; the message says where and why."""


@dataclass(frozen=True)
class Task:
    id: str
    category: str
    difficulty: str
    summary: str
    bug: str
    kind: tuple[str, ...]
    test_command: str
    visible_failing: tuple[str, ...]
    folder: Path
    # "flat": hidden/*.py run from `_hidden/`; "overlay": hidden/ mirrors repo paths (the fixed
    # release's test files of a real bug) and its files run in place, over the repo's own
    hidden_layout: str = "flat"
    hidden_args: tuple[str, ...] = ()  # pytest arguments of the overlay run: deselections, ini overrides
    # "files": the patch must equal solution.diff file by file; "functions": every function either
    # patch touches must equal the fixed release's (a release changes more than the one fix)
    reference_mode: str = "files"
    reference_ignore: tuple[str, ...] = ()  # functions the release changed besides the fix

    @property
    def repo(self) -> Path:
        return self.folder / "repo"

    @property
    def hidden_tests(self) -> tuple[Path, ...]:
        if self.hidden_layout == "overlay":
            return tuple(sorted(p for p in (self.folder / "hidden").rglob("*") if p.is_file()))
        return tuple(sorted((self.folder / "hidden").glob("*.py")))

    def digest(self) -> str:
        """A short hash of what the task is (task.toml, repo/, hidden/): two results of one task
        compare only when it did not change between them."""
        sha = hashlib.sha256()
        parts = [
            self.folder / "task.toml",
            *(self.folder / "repo").rglob("*"),
            *(self.folder / "hidden").rglob("*"),
        ]
        for path in sorted(p for p in parts if p.is_file() and not _is_cache(p)):
            sha.update(path.relative_to(self.folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
        return sha.hexdigest()[:12]


def _is_cache(path: Path) -> bool:
    return path.suffix == ".pyc" or any(part in ("__pycache__", ".pytest_cache") for part in path.parts)


def load_task(folder: Path) -> Task:
    """The task in `folder`; TaskError listing every problem found."""
    problems: list[str] = []
    meta_path = folder / "task.toml"
    meta: dict = {}
    try:
        meta = tomllib.loads(meta_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        problems.append("task.toml is missing")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        problems.append(f"task.toml is not valid TOML: {exc}")
    if meta:
        for key, kind in REQUIRED.items():
            value = meta.get(key)
            if value is None:
                problems.append(f"task.toml: missing key {key!r}")
            elif not isinstance(value, kind) or not value:
                problems.append(f"task.toml: {key!r} must be a non-empty {kind.__name__}, not {value!r}")
            elif kind is list and not all(isinstance(item, str) and item for item in value):
                problems.append(f"task.toml: {key!r} must list non-empty strings")
        if isinstance(meta.get("id"), str) and meta["id"] != folder.name:
            problems.append(f"task.toml: id {meta['id']!r} differs from the folder name {folder.name!r}")
    if not (folder / "repo").is_dir():
        problems.append("repo/ (the buggy project) is missing")
    elif (folder / "repo" / "_hidden").exists():
        problems.append("repo/_hidden exists; that name is where the runner puts the hidden tests")
    layout = meta.get("hidden_layout", "flat")
    if layout not in LAYOUTS:
        problems.append(f"task.toml: hidden_layout must be one of {', '.join(LAYOUTS)}, not {layout!r}")
    mode = meta.get("reference_mode", "files")
    if mode not in REFERENCE_MODES:
        problems.append(
            f"task.toml: reference_mode must be one of {', '.join(REFERENCE_MODES)}, not {mode!r}"
        )
    pattern = "**/test*.py" if layout == "overlay" else "test*.py"
    if not sorted((folder / "hidden").glob(pattern)):
        problems.append("hidden/ holds no test_*.py file (the reference tests)")
    if problems:
        raise TaskError(
            f"task {folder.name} ({folder}) is malformed:\n" + "\n".join(f"  - {p}" for p in problems)
        )
    return Task(
        id=meta["id"],
        category=meta["category"],
        difficulty=meta["difficulty"],
        summary=meta["summary"],
        bug=meta["bug"],
        kind=tuple(meta["kind"]),
        test_command=meta["test_command"],
        visible_failing=tuple(meta["visible_failing"]),
        folder=folder,
        hidden_layout=layout,
        hidden_args=tuple(meta.get("hidden_args", ())),
        reference_mode=mode,
        reference_ignore=tuple(meta.get("reference_ignore", ())),
    )


def load_tasks(root: Path = TASKS_DIR) -> dict[str, Task]:
    """Every task under `root` (a folder holding task.toml), by id; malformed ones raise TaskError."""
    if not root.is_dir():
        raise TaskError(f"{root}: no tasks folder")
    folders = sorted(path.parent for path in root.glob("*/task.toml"))
    # a folder that looks like a task but lost its task.toml is an error, not silently skipped
    folders += sorted(p for p in root.iterdir() if p.is_dir() and (p / "repo").is_dir() and p not in folders)
    tasks = [load_task(folder) for folder in sorted(folders)]
    if not tasks:
        raise TaskError(f"{root}: no task (a folder with task.toml)")
    return {task.id: task for task in tasks}


def load_subsets(root: Path, tasks: dict[str, Task]) -> dict[str, tuple[str, ...]]:
    """Subset name -> task ids, from `root/subsets.toml`; `full` defaults to every task."""
    path = root / "subsets.toml"
    subsets: dict[str, tuple[str, ...]] = {}
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise TaskError(f"{path}: not valid TOML: {exc}") from exc
        for name, table in data.items():
            ids = table.get("tasks") if isinstance(table, dict) else None
            if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
                raise TaskError(f"{path}: [{name}] needs a non-empty list of task ids: tasks = [...]")
            unknown = sorted(set(ids) - set(tasks))
            if unknown:
                raise TaskError(f"{path}: [{name}] names tasks that do not exist: {', '.join(unknown)}")
            if len(set(ids)) != len(ids):
                raise TaskError(f"{path}: [{name}] lists a task twice")
            subsets[name] = tuple(ids)
    subsets.setdefault(FULL, tuple(sorted(tasks)))
    return subsets


def select(root: Path, subset: str | None, ids: list[str] | None) -> list[Task]:
    """The tasks to run: a subset's, or the given ids, or the given ids within the subset."""
    tasks = load_tasks(root)
    subsets = load_subsets(root, tasks)
    if subset is not None and subset not in subsets:
        raise TaskError(f"unknown subset {subset!r}; subsets: {', '.join(sorted(subsets))}")
    pool = subsets[subset] if subset is not None else tuple(sorted(tasks))
    if ids:
        unknown = [i for i in ids if i not in tasks]
        if unknown:
            raise TaskError(f"unknown task(s): {', '.join(unknown)}")
        outside = [i for i in ids if i not in pool]
        if outside:
            raise TaskError(f"task(s) {', '.join(outside)} are not in subset {subset!r}")
        pool = tuple(dict.fromkeys(ids))
    return [tasks[i] for i in pool]
