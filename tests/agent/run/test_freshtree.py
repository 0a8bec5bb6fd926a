"""The tree a deciding run starts from, and what the run did to it: a real local sandbox, files
written from inside it (as the code under test would), the base read from the workspace's commit."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from selfheal.agent.run.freshtree import SCRATCH, Fresh, FreshTree, digest_of, fingerprint, tree_changes
from selfheal.agent.run.workspace import Origin, Workspace
from selfheal.sandbox import STATE_DIR, LocalSandbox, Session
from selfheal.sandbox.exceptions import WorkspaceTrap

BASE = "def area(w, h):\n    return w + h\n"
PATCHED = "def area(w, h):\n    return w * h\n"
TEST = "from shapes import area\n\n\ndef test_area():\n    assert area(2, 3) == 6\n"
REPO = {
    "shapes.py": BASE,
    "tests/test_shapes.py": TEST,
    "conftest.py": "# nothing yet\n",
    "data/table.bin": "\x00\x01binary\n",
}


@pytest.fixture
def tree(make_repo) -> Iterator[tuple[FreshTree, Session, Path]]:
    repo = make_repo(REPO)
    os.symlink("shapes.py", repo / "alias.py")
    workspace = Workspace.create(Origin.inspect(repo))
    session = LocalSandbox().start(workspace.root)
    try:
        start = fingerprint(session, sys.executable)
        yield FreshTree.for_workspace(session, sys.executable, workspace, start), session, workspace.root
    finally:
        session.close()
        workspace.cleanup()


def inside(session: Session, *lines: str) -> None:
    """Run `lines` in the sandbox from the workspace's root, as the code under test would."""
    code = "\n".join(["import os", f"os.chdir({str(session.root)!r})", *lines])
    done = session.run([sys.executable, "-c", code], timeout=60)
    assert done.ok, done.stderr


def files_of(root: Path) -> dict[str, bytes]:
    """Every file and link of the workspace outside selfheal's folder and the caches (links by where
    they point)."""
    found = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] == STATE_DIR or set(rel.split("/")) & set(SCRATCH):
            continue
        if path.is_symlink():
            found[rel] = b"link:" + os.readlink(path).encode()
        elif path.is_file():
            found[rel] = path.read_bytes()
    return found


BASE_FILES = {
    "alias.py": b"link:shapes.py",
    "conftest.py": b"# nothing yet\n",
    "data/table.bin": b"\x00\x01binary\n",
    "shapes.py": BASE.encode(),
    "tests/test_shapes.py": TEST.encode(),
}


def test_the_start_is_the_base_and_the_caches_and_selfheals_folder_are_not_part_of_it(tree) -> None:
    fresh_tree, session, _ = tree
    inside(
        session,
        "os.makedirs('__pycache__'); open('__pycache__/x.pyc', 'w').write('x')",
        "os.makedirs('.hypothesis/examples'); open('.hypothesis/examples/e', 'w').write('x')",
    )
    assert fresh_tree.start == {
        p: (v.decode() if v.startswith(b"link:") else digest_of(v)) for p, v in BASE_FILES.items()
    }
    assert fingerprint(session, sys.executable) == fresh_tree.start


def test_files_an_earlier_run_left_are_gone_before_the_deciding_run_and_the_patch_is_in_place(tree) -> None:
    fresh_tree, session, root = tree
    # an earlier run (a screening that imported the patched code) planted and changed files
    inside(
        session,
        "open('tests/conftest.py', 'w').write('import pytest\\n')",
        "open('sitecustomize.py', 'w').write('import os\\n')",
        "open('tests/test_shapes.py', 'w').write('def test_area():\\n    pass\\n')",
        "os.remove('conftest.py')",
        "os.makedirs('plugin/deep'); open('plugin/deep/x.py', 'w').write('')",
        "os.remove('alias.py'); open('alias.py', 'w').write('fake')",
        "os.makedirs('tests/__pycache__', exist_ok=True)",
        "open('tests/__pycache__/test_shapes.cpython-311-pytest-8.pyc', 'wb').write(b'planted')",
    )
    new_test = "from shapes import area\n\n\ndef test_square():\n    assert area(2, 2) == 4\n"
    fresh = fresh_tree.prepare({"shapes.py": PATCHED, "tests/test_new.py": new_test})

    assert files_of(root) == {
        **BASE_FILES,
        "shapes.py": PATCHED.encode(),
        "tests/test_new.py": new_test.encode(),
    }
    assert not (root / "plugin").exists()  # the folders the run made, left empty, go too
    assert not (root / "tests" / "__pycache__").exists()  # a planted .pyc is code: caches go
    assert sorted(fresh.cleared) == [
        "alias.py (put back)", "conftest.py (put back)", "plugin/deep/x.py (removed)",
        "sitecustomize.py (removed)", "tests/conftest.py (removed)", "tests/test_shapes.py (put back)",
    ]  # fmt: skip
    assert fresh.expected["shapes.py"] == digest_of(PATCHED.encode())
    # nothing happened in the run itself: nothing to name
    assert tree_changes(fresh.expected, fresh_tree.fingerprint()) == ()


def test_what_the_deciding_run_itself_adds_changes_or_removes_is_named(tree) -> None:
    fresh_tree, session, root = tree
    fresh = fresh_tree.prepare({"shapes.py": PATCHED})
    inside(
        session,
        "open('tests/conftest.py', 'w').write('import pytest\\n')",
        "open('conftest.py', 'a').write('# more\\n')",
        "os.remove('data/table.bin')",
        "open('shapes.py', 'w').write('area = None\\n')",
        "os.makedirs('.pytest_cache', exist_ok=True); open('.pytest_cache/v', 'w').write('x')",
        "os.makedirs('__pycache__', exist_ok=True); open('__pycache__/shapes.pyc', 'w').write('x')",
        "open('run.log', 'w').write('the suite writes this on every run')",
    )
    after = fresh_tree.settle()
    assert tree_changes(fresh.expected, after, exempt={"run.log"}) == (
        "conftest.py (changed)",
        "shapes.py (changed)",
        "data/table.bin (deleted)",
        "tests/conftest.py (created)",
    )
    assert "run.log (created)" in tree_changes(fresh.expected, after)

    assert files_of(root) == BASE_FILES  # settled: back to the base
    assert (root / "__pycache__" / "shapes.pyc").exists()  # the next deciding run drops the caches


def test_a_run_that_only_changed_files_is_settled_back_to_the_base(tree) -> None:
    fresh_tree, session, root = tree
    fresh = fresh_tree.prepare({"shapes.py": PATCHED})
    inside(session, "open('tests/test_shapes.py', 'w').write('')")
    after = fresh_tree.settle()
    assert tree_changes(fresh.expected, after) == ("tests/test_shapes.py (changed)",)
    assert files_of(root) == BASE_FILES


def test_files_the_sandbox_user_made_in_a_folder_it_closed_are_removed(tree) -> None:
    fresh_tree, session, root = tree
    inside(session, "os.makedirs('locked'); open('locked/x.py', 'w').write(''); os.chmod('locked', 0o500)")
    fresh_tree.prepare({})
    assert files_of(root) == BASE_FILES and not (root / "locked").exists()


def test_a_folder_planted_where_a_file_belongs_is_replaced(tree) -> None:
    fresh_tree, session, root = tree
    inside(
        session,
        "os.remove('shapes.py'); os.makedirs('shapes.py/inner'); open('shapes.py/inner/x', 'w').write('')",
    )
    fresh_tree.prepare({})
    assert files_of(root) == BASE_FILES


def test_a_file_the_base_commit_does_not_hold_is_kept_from_before_the_baseline(make_repo) -> None:
    """A file the user tracks though their .gitignore names it is copied, but the copy's commit
    leaves it out: the tree reads it before any test runs, and puts it back from there."""
    repo = make_repo({"shapes.py": BASE, ".gitignore": "*.cfg\n", "tests/test_shapes.py": TEST}, commit=False)
    (repo / "settings.cfg").write_text("[x]\n")
    from tests.conftest import git

    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "add", "-f", "settings.cfg")
    git(repo, "commit", "-q", "-m", "initial")
    workspace = Workspace.create(Origin.inspect(repo))
    assert "settings.cfg" in workspace.files and "settings.cfg" not in workspace.committed()
    session = LocalSandbox().start(workspace.root)
    try:
        fresh_tree = FreshTree.for_workspace(
            session, sys.executable, workspace, fingerprint(session, sys.executable)
        )
        inside(session, "open('settings.cfg', 'w').write('[changed]\\n')")
        fresh_tree.prepare({})
        assert (workspace.root / "settings.cfg").read_text() == "[x]\n"
    finally:
        session.close()
        workspace.cleanup()


def test_without_a_start_the_run_is_compared_with_the_tree_it_found(tree) -> None:
    """When the tree could not be read before the baseline, each run is compared with the tree it
    found; its files still go back (or away) afterwards."""
    fresh_tree, session, root = tree
    blind = FreshTree(session, sys.executable, None, fresh_tree.base)
    inside(session, "open('planted.py', 'w').write('')")
    fresh = blind.prepare({"shapes.py": PATCHED, "tests/test_new.py": "def test_x():\n    pass\n"})
    assert "planted.py" in fresh.expected and (root / "shapes.py").read_text() == PATCHED
    inside(session, "open('more.py', 'w').write('')")
    assert tree_changes(fresh.expected, blind.settle()) == ("more.py (created)",)
    assert (root / "shapes.py").read_text() == BASE and not (root / "tests" / "test_new.py").exists()


def test_a_tree_that_cannot_be_read_after_the_run_is_named() -> None:
    assert tree_changes({"a.py": "x"}, None) == ("(the workspace could not be read after the run)",)


def test_a_spec_the_sandbox_cannot_act_on_is_a_trap(tree) -> None:
    fresh_tree, session, _ = tree
    broken = FreshTree(session, "/nonexistent/python", fresh_tree.start, fresh_tree.base)
    with pytest.raises(WorkspaceTrap, match="could not be made afresh"):
        broken.prepare({})
    assert isinstance(Fresh({}), Fresh)


def test_a_run_that_ended_without_settling_is_put_back_by_restore(tree) -> None:
    fresh_tree, session, root = tree
    fresh_tree.prepare({"shapes.py": PATCHED, "tests/test_new.py": "def test_x():\n    pass\n"})
    inside(session, "open('planted.py', 'w').write('')", "os.remove('conftest.py')")
    fresh_tree.restore()
    assert files_of(root) == BASE_FILES


def test_between_two_runs_the_first_is_fingerprinted_and_the_tree_made_afresh_for_the_second(tree) -> None:
    fresh_tree, session, root = tree
    first = fresh_tree.prepare({"tests/test_new.py": "def test_x():\n    pass\n"})
    inside(
        session,
        "open('written.txt', 'w').write('')",
        "os.makedirs('__pycache__'); open('__pycache__/a.pyc', 'w')",
    )
    after, second = fresh_tree.advance(
        {"tests/test_new.py": "def test_x():\n    pass\n", "shapes.py": PATCHED}
    )
    assert tree_changes(first.expected, after) == ("written.txt (created)",)
    assert second.cleared == ("written.txt (removed)",)
    assert not (root / "written.txt").exists() and not (root / "__pycache__").exists()
    assert (root / "shapes.py").read_text() == PATCHED
