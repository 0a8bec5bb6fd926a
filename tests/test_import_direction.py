"""The import direction of DESIGN.md, checked on the source (not on what happens to be loaded).

sandbox imports nothing of ours; agent never imports bot or action; nothing imports evaluation.
Inside agent/, the stages come in the order of one heal, and a stage imports only earlier ones
and the shared modules; no stage imports the loop. Inside bot/, the webhook server (server/) may
import the heal service at the top of bot/ and the GitHub side (github/), the top may import the
GitHub side, and the GitHub side only bot/'s errors. No module of selfheal/ or evaluation/ is part
of an import circle.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "selfheal"

ALLOWED = {
    "sandbox": set(),
    "agent": {"sandbox"},
    "bot": {"agent", "sandbox"},
    "action": {"bot", "agent"},
    "evaluation": {"agent", "sandbox"},
}
# agent/'s stages, in the order of one heal (DESIGN.md, "One heal, as data")
STAGES = ("run", "localize", "repair", "newtests", "model", "report")
# agent/'s top-level modules every stage may use; the other top-level modules are the loop's
SHARED = ("config", "exceptions", "events", "verdict")
# bot/'s rooms -> the rooms each may import; "top" is the heal service and what it reads at the top of bot/
BOT_ALLOWED = {"server": {"top", "github", "shared"}, "top": {"github", "shared"}, "github": {"shared"}}
# bot/'s top-level modules every room may use
BOT_SHARED = ("exceptions",)


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            found.add("<relative>")
    return found


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] == "evaluation":
        return "evaluation"
    if parts[0] != "selfheal" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in ALLOWED else "top"


def python_files() -> list[Path]:
    files = sorted(PACKAGE.rglob("*.py"))
    evaluation = ROOT / "evaluation"
    if evaluation.is_dir():
        files += sorted(evaluation.rglob("*.py"))
    return files


@pytest.mark.parametrize("path", python_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_layer_imports_only_what_it_may(path: Path):
    rel = path.relative_to(ROOT)
    own = (
        "evaluation"
        if rel.parts[0] == "evaluation"
        else (rel.parts[1] if len(rel.parts) > 2 and rel.parts[1] in ALLOWED else "top")
    )
    modules = imported_modules(path)
    assert "<relative>" not in modules, f"{rel}: use absolute imports so the layers stay visible"
    for module in modules:
        target = layer_of(module)
        if target is None or target == own:
            continue
        if target == "evaluation":
            pytest.fail(f"{rel} imports {module}: nothing may import evaluation")
        if own == "top":
            continue  # the CLI composes the layers
        assert target in ALLOWED[own], f"{rel} ({own}) may not import {module} ({target})"


def test_the_runtime_helpers_import_only_the_standard_library_and_pytest():
    helpers = sorted((PACKAGE / "agent" / "run" / "runtime").glob("selfheal_*.py"))
    assert [p.name for p in helpers] == ["selfheal_pytest_plugin.py", "selfheal_screen_worker.py"]
    for path in helpers:
        for module in imported_modules(path):
            top = module.split(".")[0]
            assert top not in ("selfheal", "rich"), f"{path.name} runs in the sandbox: {module}"


# -- the module graph --------------------------------------------------------------------------


def module_graph(root: Path, packages: tuple[str, ...] = ("selfheal",)) -> dict[str, set[str]]:
    """Every module of `packages` under `root` -> the modules of them that it imports, anywhere in
    its file (a function-level import closes a circle as surely as a top-level one).
    `from a.b import c` imports `a.b`, and `a.b.c` too when that is a module."""
    names = {}
    for path in sorted(p for package in packages for p in (root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                edges.add(node.module)
                edges |= {f"{node.module}.{alias.name}" for alias in node.names}
        graph[name] = {e for e in edges if e in names and e != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph[module]):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def room_of(module: str) -> str | None:
    """A module of agent/ -> its stage, "shared" or "loop"; None outside agent/."""
    parts = module.split(".")
    if parts[:2] != ["selfheal", "agent"] or len(parts) < 3:
        return None
    if parts[2] in STAGES:
        return parts[2]
    return "shared" if parts[2] in SHARED else "loop"


def backward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Imports against the order of the stages, and imports of the loop by anything but the loop."""
    found = []
    for module, imported in sorted(graph.items()):
        room = room_of(module)
        if room is None:
            continue
        for target in sorted(imported):
            other = room_of(target)
            if other is None or other == room or other == "shared":
                continue
            if other == "loop":
                found.append(f"{module} ({room}) imports {target}: only the loop imports the loop")
            elif room in STAGES and STAGES.index(other) > STAGES.index(room):
                found.append(f"{module} ({room}) imports {target}: {other} is a later stage")
    return found


def bot_room_of(module: str) -> str | None:
    """A module of bot/ -> "server", "github", "shared" or "top"; None outside bot/."""
    parts = module.split(".")
    if parts[:2] != ["selfheal", "bot"] or len(parts) < 3:
        return None
    if parts[2] in ("server", "github"):
        return parts[2]
    return "shared" if parts[2] in BOT_SHARED else "top"


def bot_imports_against_direction(graph: dict[str, set[str]]) -> list[str]:
    found = []
    for module, imported in sorted(graph.items()):
        room = bot_room_of(module)
        if room is None or room == "shared":
            continue
        for target in sorted(imported):
            other = bot_room_of(target)
            if other is None or other == room or other in BOT_ALLOWED[room]:
                continue
            found.append(f"{module} ({room}) imports {target} ({other})")
    return found


def test_no_module_of_selfheal_or_evaluation_is_in_an_import_circle():
    graph = module_graph(ROOT, ("selfheal", "evaluation"))
    assert "evaluation.faults.harness" in graph and "selfheal.agent.loop" in graph
    assert circles(graph) == []


def test_every_stage_imports_only_earlier_stages_and_none_the_loop():
    assert backward_imports(module_graph(ROOT)) == []


def test_every_stage_and_the_loop_are_where_the_checks_look():
    rooms = {room_of(m) for m in module_graph(ROOT)} - {None}
    assert rooms == {*STAGES, "shared", "loop"}
    assert {p.name for p in (PACKAGE / "agent").iterdir() if p.is_dir() and p.name != "__pycache__"} == set(
        STAGES
    )


def test_bots_rooms_import_only_in_their_direction():
    assert bot_imports_against_direction(module_graph(ROOT)) == []


def test_bots_rooms_are_where_the_checks_look():
    rooms = {bot_room_of(m) for m in module_graph(ROOT)} - {None}
    assert rooms == {"server", "github", "shared", "top"}
    assert {p.name for p in (PACKAGE / "bot").iterdir() if p.is_dir() and p.name != "__pycache__"} == {
        "server",
        "github",
    }


@pytest.fixture
def tree_copy(tmp_path) -> Path:
    """A copy of selfheal/ to add temporary modules to, so the checks are seen to fail."""
    shutil.copytree(PACKAGE, tmp_path / "selfheal", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_a_temporary_circle_is_found(tree_copy):
    run = tree_copy / "selfheal" / "agent" / "run"
    (run / "temp_a.py").write_text("from selfheal.agent.run.temp_b import B\nA = 1\n")
    # a function-level import closes the circle too
    (run / "temp_b.py").write_text("def b():\n    from selfheal.agent.run import temp_a\n\n\nB = 2\n")
    assert circles(module_graph(tree_copy)) == [["selfheal.agent.run.temp_a", "selfheal.agent.run.temp_b"]]


def test_a_temporary_circle_through_the_real_modules_is_found(tree_copy):
    # config reads the model's settings; settings that read the config would close a circle
    settings = tree_copy / "selfheal" / "agent" / "model" / "llm" / "settings.py"
    settings.write_text(settings.read_text() + "\nfrom selfheal.agent.config import HealConfig  # noqa\n")
    found = circles(module_graph(tree_copy))
    assert len(found) == 1
    assert {"selfheal.agent.config", "selfheal.agent.model.llm.settings"} <= set(found[0])


def test_a_temporary_circle_in_evaluation_is_found(tmp_path):
    # the faults harness dispatches to the model route; the route taking the world back from the
    # harness (as it once did) closes a circle
    faults = tmp_path / "evaluation" / "faults"
    shutil.copytree(ROOT / "evaluation" / "faults", faults, ignore=shutil.ignore_patterns("__pycache__"))
    model = faults / "model.py"
    model.write_text(model.read_text() + "\nfrom evaluation.faults.harness import seed_remote  # noqa\n")
    assert circles(module_graph(tmp_path, ("selfheal", "evaluation"))) == [
        ["evaluation.faults.harness", "evaluation.faults.model"]
    ]


def test_a_temporary_backward_stage_import_is_found(tree_copy):
    agent = tree_copy / "selfheal" / "agent"
    (agent / "run" / "temp_early.py").write_text("from selfheal.agent.repair.search import SearchStrategy\n")
    (agent / "repair" / "temp_late.py").write_text("import selfheal.agent.report.result\n")
    (agent / "localize" / "temp_loop.py").write_text("from selfheal.agent.loop import heal\n")
    (agent / "report" / "temp_fine.py").write_text("from selfheal.agent.run.testrun import TestReport\n")
    agent_ = "selfheal.agent"
    assert backward_imports(module_graph(tree_copy)) == [
        f"{agent_}.localize.temp_loop (localize) imports {agent_}.loop: only the loop imports the loop",
        f"{agent_}.repair.temp_late (repair) imports {agent_}.report.result: report is a later stage",
        f"{agent_}.run.temp_early (run) imports {agent_}.repair.search: repair is a later stage",
    ]


def test_a_temporary_import_against_bots_direction_is_found(tree_copy):
    bot = tree_copy / "selfheal" / "bot"
    (bot / "github" / "temp_up.py").write_text("from selfheal.bot.server.jobs import Job\n")
    (bot / "github" / "temp_top.py").write_text("def f():\n    from selfheal.bot.service import Bot\n")
    (bot / "temp_server.py").write_text("import selfheal.bot.server.queue\n")
    (bot / "server" / "temp_fine.py").write_text(
        "from selfheal.bot.exceptions import BotError\nfrom selfheal.bot.github.client import GitHubClient\n"
        "from selfheal.bot.service import Bot\n"
    )
    (bot / "github" / "temp_errors.py").write_text("from selfheal.bot.exceptions import GitError\n")
    assert bot_imports_against_direction(module_graph(tree_copy)) == [
        "selfheal.bot.github.temp_top (github) imports selfheal.bot.service (top)",
        "selfheal.bot.github.temp_up (github) imports selfheal.bot.server.jobs (server)",
        "selfheal.bot.temp_server (top) imports selfheal.bot.server.queue (server)",
    ]
