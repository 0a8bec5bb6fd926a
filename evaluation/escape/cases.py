"""The corpus's cases, read from the family modules under tests/sandbox/escape/ without importing them.

A family module runs inside the sandbox (it is the hostile repository's `escape_attacks.py`); the
host only needs its `FAMILY` name and its `CASES` list, both literals, so it reads them with `ast`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from evaluation.corpus.cases import CaseError, FamilyModule, read_cases

ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = ROOT / "tests" / "sandbox" / "escape"
KIT = "kit.py"
FAMILIES = (
    "secrets",
    "network",
    "host-files",
    "traps",
    "git",
    "processes",
    "resources",
    "channels",
)  # the figures' order


@dataclass(frozen=True)
class Case:
    id: str
    family: str
    title: str
    module: Path  # the family module, copied into the repository as escape_attacks.py
    attack: str  # the function run once per heal
    each_run: str = ""  # a function run by every later test process of the heal
    conftest: str = ""  # extra lines for the repository's conftest.py
    pyproject: str = ""  # extra tables for its pyproject.toml
    selfheal_config: str = ""  # extra keys for its [tool.selfheal]
    network: bool = False  # a connection is exposure as stated where report.json says network: true
    asks_isolation: bool = False  # the repository asks for less isolation than the user did
    package: str = "answer"  # the buggy package (evaluation/escape/site.py's PACKAGES)
    python_version: str = ""  # the repository's .python-version
    # the repository's requirements.txt: {tcp_port} and {marker} filled in, and a line with {host}
    # once for every host address (the harness's listeners are known only when the heal starts)
    requirements: str = ""
    # -- channels: heals run through the Action (evaluation/escape/channels.py), where the attack is
    # text that reaches the model, the memory branch or a comment rather than code that runs
    route: str = "heal"  # "heal": `selfheal heal`; "action": `selfheal action` against the fake GitHub
    test_file: str = ""  # tests/test_channel.py ("{marker}" filled in)
    event: str = "issue_comment"  # or "workflow_run": a red run of the repository's main from a null head
    comment: str = ""  # the /heal comment that starts the Action ("{marker}" filled in)
    issue_body: str = ""  # the body of the issue it is made on ("{marker}" filled in)
    mode: str = ""  # the Action's mode input
    model: bool = False  # the workflow configures Claude (the fake Messages API) with its own key
    memory_passage: str = ""  # an unsigned record forged on the memory branch, this text in its free fields
    memory_key: bool = False  # the workflow gives the memory-key input
    forged_branch: bool = False  # a selfheal/* branch selfheal never made, its sha in escape_config.json
    approve: bool = False  # a maintainer's `/heal approve` follows the heal
    refusal: str = ""  # words of selfheal's refusal of the attack before any test ran


# what a CASES entry may say: the fields above, except what the harness fills in itself
KEYS = {f.name for f in fields(Case)} - {"family", "module"}


def load_cases(folder: Path = CASES_DIR) -> list[Case]:
    return read_cases(folder, _case, keys=KEYS, families=FAMILIES, skip=lambda path: path.name == KIT)


def _case(module: FamilyModule, entry: dict[str, Any]) -> Case:
    functions = {n.name for n in module.tree.body if isinstance(n, ast.FunctionDef)}
    for hook in (entry["attack"], entry.get("each_run")):
        if hook and hook not in functions:
            raise CaseError(f"{module.path.name}: {entry['id']}: no function {hook}()")
    return Case(family=module.family, module=module.path, **entry)
