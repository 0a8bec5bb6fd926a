"""The corpus's cases, read from the family modules under tests/sandbox/escape/ without importing them.

A family module runs inside the sandbox (it is the hostile repository's `escape_attacks.py`); the
host only needs its `FAMILY` name and its `CASES` list, both literals, so it reads them with `ast`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, fields
from pathlib import Path

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


class CaseError(ValueError):
    pass


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


def _literal(tree: ast.Module, name: str, path: Path) -> object:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            try:
                return ast.literal_eval(node.value)
            except ValueError as exc:
                raise CaseError(f"{path.name}: {name} must be a literal") from exc
    raise CaseError(f"{path.name}: no {name} = ...")


def load_cases(folder: Path = CASES_DIR) -> list[Case]:
    cases: list[Case] = []
    for path in sorted(folder.glob("*.py")):
        if path.name == KIT:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        family = _literal(tree, "FAMILY", path)
        functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        for entry in _literal(tree, "CASES", path):
            unknown = set(entry) - KEYS
            if unknown:
                raise CaseError(f"{path.name}: {entry.get('id')}: unknown keys {sorted(unknown)}")
            for hook in (entry["attack"], entry.get("each_run")):
                if hook and hook not in functions:
                    raise CaseError(f"{path.name}: {entry['id']}: no function {hook}()")
            cases.append(Case(family=str(family), module=path, **entry))
    cases.sort(key=lambda c: FAMILIES.index(c.family) if c.family in FAMILIES else len(FAMILIES))
    ids = [c.id for c in cases]
    if len(ids) != len(set(ids)):
        raise CaseError(f"duplicate case ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    return cases
