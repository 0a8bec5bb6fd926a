"""The heal's private copy of a repository: what it holds, what it never touches, its patches."""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from selfheal.agent.exceptions import TargetError, WorkspaceError
from selfheal.agent.run.workspace import Origin, Workspace, apply_to_origin
from tests.conftest import HAND_MADE, git

SOURCE = "def double(x):\n    return x + x\n"
PROJECT = {
    "pkg/__init__.py": "",
    "pkg/calc.py": SOURCE,
    "tests/test_calc.py": "from pkg.calc import double\n\n\ndef test_double():\n    assert double(2) == 4\n",
    ".gitignore": "*.log\nbuild/\n",
}
HOST_GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


@pytest.fixture
def snapshot(tmp_path: Path) -> Iterator[Callable[[Path], Workspace]]:
    """Workspace.create in tmp_path, cleaned up after the test."""
    created: list[Workspace] = []

    def make(path: Path) -> Workspace:
        workspace = Workspace.create(Origin.inspect(path), parent=tmp_path)
        created.append(workspace)
        return workspace

    yield make
    for workspace in created:
        workspace.cleanup()


def files_under(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() or p.is_symlink())


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")


def clone(repo: Path, tmp_path: Path) -> Path:
    target = tmp_path / f"clone-of-{repo.name}"
    git(tmp_path, "-c", "core.autocrlf=false", "clone", "-q", str(repo), str(target))
    return target


def host_git(cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "core.autocrlf=false", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=HOST_GIT_ENV,
        check=False,
    )


# -- Origin.inspect ----------------------------------------------------------------------------


def test_inspect_a_clean_repository(make_repo):
    repo = make_repo(PROJECT)
    origin = Origin.inspect(repo)
    assert origin.path == repo
    assert origin.is_git is True
    assert origin.head_sha == git(repo, "rev-parse", "HEAD").strip()
    assert origin.dirty is False
    assert origin.subdir == ""


def test_inspect_rejects_what_is_not_a_directory(tmp_path):
    with pytest.raises(TargetError, match="no such directory"):
        Origin.inspect(tmp_path / "missing")
    (tmp_path / "file.py").write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(TargetError, match="not a directory"):
        Origin.inspect(tmp_path / "file.py")


def test_inspect_a_plain_directory(make_repo):
    repo = make_repo(PROJECT, commit=False)
    assert Origin.inspect(repo) == Origin(repo, False, None, False, "")


def test_inspect_a_subfolder_of_a_repository(make_repo, snapshot):
    top = make_repo({"README.md": "# top\n", **{f"sub/project/{k}": v for k, v in PROJECT.items()}})
    project = top / "sub" / "project"
    origin = Origin.inspect(project)
    assert (origin.is_git, origin.subdir) == (True, "sub/project")
    workspace = snapshot(project)
    assert workspace.toplevel == top
    assert "README.md" not in workspace.files
    assert "pkg/calc.py" in workspace.files
    patch = workspace.diff({"pkg/calc.py": SOURCE.replace("x + x", "2 * x")}, in_repo=True)
    assert patch.startswith("diff --git a/sub/project/pkg/calc.py b/sub/project/pkg/calc.py\n")
    assert host_git(top, "apply", "--check", "-", stdin=patch).returncode == 0
    # without in_repo the patch is relative to the project itself (what check_applies judges)
    local = workspace.diff({"pkg/calc.py": SOURCE.replace("x + x", "2 * x")})
    assert local.startswith("diff --git a/pkg/calc.py b/pkg/calc.py\n")
    assert workspace.check_applies(local) == (True, "applies cleanly")


# -- Workspace.create --------------------------------------------------------------------------


def test_the_copy_holds_the_files_a_user_would_commit(make_repo, snapshot):
    repo = make_repo(PROJECT)
    write(
        repo,
        {
            "notes.txt": "untracked, not ignored\n",
            "pkg/extra.py": "EXTRA = 1\n",
            "debug.log": "ignored by .gitignore\n",
            "build/out.py": "ignored folder\n",
            ".venv/lib/site.py": "an environment\n",
            "venv/bin/activate": "another environment\n",
            "pkg/__pycache__/calc.cpython-311.pyc": b"\x00bytecode",
            ".pytest_cache/v/cache/lastfailed": "{}",
            ".selfheal/runs/r1/report.json": "{}",
            f".selfheal/runs/r1/{HAND_MADE}": "not a heal's report\n",
        },
    )

    workspace = snapshot(repo)

    expected = sorted(
        [".gitignore", "notes.txt", "pkg/__init__.py", "pkg/calc.py", "pkg/extra.py", "tests/test_calc.py"]
    )
    assert workspace.files == expected
    assert files_under(workspace.root) == expected
    assert not (workspace.root / ".git").exists()
    committed = git(
        workspace.root,
        f"--git-dir={workspace.git_dir}",
        "ls-tree",
        "-r",
        "--name-only",
        workspace.base_commit,
    )
    assert committed.split() == expected
    assert workspace.origin.dirty is True  # untracked files count as a dirty tree
    assert (workspace.root / "pkg" / "calc.py").read_text(encoding="utf-8") == SOURCE


def test_the_snapshot_git_dir_is_outside_the_copy(make_repo, snapshot):
    workspace = snapshot(make_repo(PROJECT))
    assert workspace.git_dir.is_dir()
    assert (workspace.git_dir / "HEAD").is_file()
    assert not workspace.git_dir.resolve().is_relative_to(workspace.root.resolve())
    assert not workspace.root.resolve().is_relative_to(workspace.git_dir.resolve())
    assert not (workspace.root / ".git").exists()


def test_a_plain_directory_is_copied_without_environments_and_caches(make_repo, snapshot):
    repo = make_repo(PROJECT, commit=False)
    write(
        repo,
        {
            "debug.log": "kept: no .gitignore applies outside git\n",
            ".venv/lib/site.py": "x\n",
            "pkg/__pycache__/calc.cpython-311.pyc": b"\x00",
            ".selfheal/runs/r/report.json": "{}",
            f".selfheal/runs/r/{HAND_MADE}": "not a heal's report\n",
            ".git-not/readme": "a folder name\n",
        },
    )
    workspace = snapshot(repo)
    assert workspace.files == sorted(
        [".git-not/readme", ".gitignore", "debug.log", "pkg/__init__.py", "pkg/calc.py", "tests/test_calc.py"]
    )
    assert workspace.origin.head_sha is None
    assert workspace.base_sha == workspace.base_commit


def test_a_clean_repository_snapshots_exactly_head(make_repo, snapshot):
    repo = make_repo(PROJECT)
    workspace = snapshot(repo)
    snapshot_tree = git(
        workspace.root, f"--git-dir={workspace.git_dir}", "rev-parse", f"{workspace.base_commit}^{{tree}}"
    ).strip()
    assert snapshot_tree == git(repo, "rev-parse", "HEAD^{tree}").strip()
    assert workspace.base_sha == git(repo, "rev-parse", "HEAD").strip()


def test_the_users_repository_is_never_modified(make_repo, snapshot, tmp_path):
    repo = make_repo(PROJECT)
    write(repo, {"notes.txt": "untracked\n", "debug.log": "ignored\n"})
    before_status = git(repo, "status", "--porcelain", "--untracked-files=all", "--ignored")
    before_refs = git(repo, "for-each-ref")
    before = {
        rel: ((repo / rel).read_bytes(), (repo / rel).stat().st_mtime_ns)
        for rel in files_under(repo)
        if not rel.startswith(".git/")
    }

    workspace = snapshot(repo)
    patch = workspace.diff({"pkg/calc.py": SOURCE.replace("x + x", "x * 2")})
    assert workspace.check_applies(patch)[0]
    workspace.base_text("pkg/calc.py")
    (workspace.root / "pkg" / "calc.py").write_text("sandboxed code wrote here\n", encoding="utf-8")
    workspace.cleanup()

    after = {
        rel: ((repo / rel).read_bytes(), (repo / rel).stat().st_mtime_ns)
        for rel in files_under(repo)
        if not rel.startswith(".git/")
    }
    assert after == before
    assert git(repo, "status", "--porcelain", "--untracked-files=all", "--ignored") == before_status
    assert git(repo, "for-each-ref") == before_refs
    assert not workspace.root.parent.exists()


def test_inspecting_does_not_rewrite_the_users_git_index(make_repo):
    # `git status` refreshes stale stat data in .git/index and writes the index back, unless told
    # not to take optional locks; the user's repository must not be written to.
    repo = make_repo(PROJECT)
    calc = repo / "pkg" / "calc.py"
    stamp = calc.stat().st_mtime_ns + 7_000_000_000
    os.utime(calc, ns=(stamp, stamp))  # same content, newer mtime: the index entry is stale
    index = repo / ".git" / "index"
    before = (index.read_bytes(), index.stat().st_mtime_ns)

    origin = Origin.inspect(repo)

    assert origin.dirty is False
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before


# -- patches ----------------------------------------------------------------------------------


def test_diff_is_a_git_patch_that_applies_to_a_fresh_clone(make_repo, snapshot, tmp_path):
    repo = make_repo(PROJECT)
    workspace = snapshot(repo)
    fixed = SOURCE.replace("x + x", "2 * x")

    patch = workspace.diff({"pkg/calc.py": fixed})

    assert patch.startswith("diff --git a/pkg/calc.py b/pkg/calc.py\nindex ")
    assert "\n--- a/pkg/calc.py\n+++ b/pkg/calc.py\n@@ -1,2 +1,2 @@\n" in patch
    assert patch.endswith("-    return x + x\n+    return 2 * x\n")
    assert workspace.check_applies(patch) == (True, "applies cleanly")
    copy = clone(repo, tmp_path)
    assert host_git(copy, "apply", "--check", "-", stdin=patch).returncode == 0
    assert host_git(copy, "apply", "-", stdin=patch).returncode == 0
    assert (copy / "pkg" / "calc.py").read_text(encoding="utf-8") == fixed
    assert workspace.diff({}) == ""
    assert workspace.check_applies("") == (True, "empty patch")


def test_garbage_and_stale_patches_are_refused(make_repo, snapshot):
    workspace = snapshot(make_repo(PROJECT))
    ok, message = workspace.check_applies("this is not a patch\n")
    assert ok is False
    assert "No valid patches in input" in message
    stale = (
        "diff --git a/pkg/calc.py b/pkg/calc.py\n--- a/pkg/calc.py\n+++ b/pkg/calc.py\n"
        "@@ -1,2 +1,2 @@\n def double(x):\n-    return x - x\n+    return 2 * x\n"
    )
    ok, message = workspace.check_applies(stale)
    assert ok is False
    assert "pkg/calc.py: patch does not apply" in message


def test_crlf_and_non_ascii_files_round_trip(make_repo, snapshot, tmp_path):
    original = 'GREETING = "grüße, café ñ €"\r\nLIMIT = 1\r\n'
    repo = make_repo({**PROJECT, "pkg/text.py": "placeholder\n"})
    (repo / "pkg" / "text.py").write_bytes(original.encode("utf-8"))
    git(repo, "-c", "core.autocrlf=false", "commit", "-q", "-am", "crlf")
    workspace = snapshot(repo)
    assert workspace.base_text("pkg/text.py") == original

    changed = original.replace("LIMIT = 1", "LIMIT = 2")
    patch = workspace.diff({"pkg/text.py": changed})

    assert "-LIMIT = 1\r\n+LIMIT = 2\r\n" in patch
    assert ' GREETING = "grüße, café ñ €"\r\n' in patch
    assert workspace.check_applies(patch) == (True, "applies cleanly")
    copy = clone(repo, tmp_path)
    patch_file = tmp_path / "crlf.diff"
    patch_file.write_bytes(patch.encode("utf-8"))
    applied = host_git(copy, "apply", str(patch_file))
    assert applied.returncode == 0, applied.stderr
    assert (copy / "pkg" / "text.py").read_bytes() == changed.encode("utf-8")
    # --apply writes the same bytes into the user's tree
    assert apply_to_origin(repo, {"pkg/text.py": changed}, {"pkg/text.py": original}, {}) == ["pkg/text.py"]
    assert (repo / "pkg" / "text.py").read_bytes() == changed.encode("utf-8")


def test_a_dirty_tree_is_snapshotted_as_it_is_on_disk(make_repo, snapshot, tmp_path):
    repo = make_repo(PROJECT)
    on_disk = SOURCE.replace("x + x", "x + x + 0")
    (repo / "pkg" / "calc.py").write_text(on_disk, encoding="utf-8")

    workspace = snapshot(repo)

    assert workspace.origin.dirty is True
    assert workspace.base_sha == git(repo, "rev-parse", "HEAD").strip()
    assert workspace.base_commit != workspace.base_sha
    assert workspace.base_text("pkg/calc.py") == on_disk
    patch = workspace.diff({"pkg/calc.py": SOURCE.replace("x + x", "2 * x")})
    assert "-    return x + x + 0\n+    return 2 * x\n" in patch
    assert workspace.check_applies(patch) == (True, "applies cleanly")
    # it applies to the user's files as they are, not to HEAD
    assert host_git(repo, "apply", "--check", "-", stdin=patch).returncode == 0
    assert host_git(clone(repo, tmp_path), "apply", "--check", "-", stdin=patch).returncode != 0


# -- apply_to_origin ---------------------------------------------------------------------------


def test_apply_to_origin_refuses_files_that_changed_after_the_snapshot(make_repo, snapshot):
    repo = make_repo(PROJECT)
    workspace = snapshot(repo)
    base = {"pkg/calc.py": workspace.base_text("pkg/calc.py")}
    (repo / "pkg" / "calc.py").write_text("# the user kept working\n" + SOURCE, encoding="utf-8")

    with pytest.raises(
        WorkspaceError, match=r"^these files changed or appeared since the heal started: pkg/calc.py$"
    ):
        apply_to_origin(repo, {"pkg/calc.py": "def double(x):\n    return 2 * x\n"}, base, {})

    assert (repo / "pkg" / "calc.py").read_text(encoding="utf-8").startswith("# the user kept")


def test_apply_to_origin_refuses_a_new_file_that_now_exists(make_repo):
    repo = make_repo(PROJECT)
    (repo / "tests" / "test_new.py").write_text("# mine\n", encoding="utf-8")
    with pytest.raises(WorkspaceError, match=r"tests/test_new\.py"):
        apply_to_origin(repo, {}, {}, {"tests/test_new.py": "def test_x():\n    pass\n"})
    assert (repo / "tests" / "test_new.py").read_text(encoding="utf-8") == "# mine\n"


def test_apply_to_origin_writes_changes_and_new_files(make_repo, snapshot):
    repo = make_repo(PROJECT)
    workspace = snapshot(repo)
    fixed = SOURCE.replace("x + x", "2 * x")
    written = apply_to_origin(
        repo,
        {"pkg/calc.py": fixed},
        {"pkg/calc.py": workspace.base_text("pkg/calc.py")},
        {"tests/edge/test_more.py": "def test_more():\n    pass\n"},
    )
    assert written == ["pkg/calc.py", "tests/edge/test_more.py"]
    assert (repo / "pkg" / "calc.py").read_text(encoding="utf-8") == fixed
    assert (repo / "tests" / "edge" / "test_more.py").is_file()
    assert git(repo, "status", "--porcelain") == " M pkg/calc.py\n?? tests/edge/\n"


# -- security: git configuration planted by sandboxed code ------------------------------------


def _hook(path: Path, marker: Path) -> Path:
    path.write_text(f'#!/bin/sh\ntouch "{marker}"\ncat "$1" 2>/dev/null\nexit 0\n', encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.mark.parametrize("planted", ["git-dir", "gitfile"])
def test_git_config_planted_in_the_copy_never_runs_on_the_host(planted, make_repo, snapshot, tmp_path):
    repo = make_repo(PROJECT)
    workspace = snapshot(repo)
    root = workspace.root
    fsmonitor_marker, textconv_marker = tmp_path / "FSMONITOR-RAN", tmp_path / "TEXTCONV-RAN"
    fsmonitor = _hook(tmp_path / "fsmonitor.sh", fsmonitor_marker)
    textconv = _hook(tmp_path / "textconv.sh", textconv_marker)

    # what sandboxed code could do: make the copy a git repository of its own, with hostile config
    if planted == "git-dir":
        assert host_git(root, "init", "-q").returncode == 0
        planted_dir = root / ".git"
    else:
        planted_dir = tmp_path / "evil-git-dir"
        assert host_git(root, "init", "-q", f"--separate-git-dir={planted_dir}").returncode == 0
        assert (root / ".git").read_text(encoding="utf-8").startswith("gitdir: ")
    (root / ".gitattributes").write_text("* diff=x\n", encoding="utf-8")
    assert host_git(root, "-c", "user.name=x", "-c", "user.email=x@x", "add", "-A").returncode == 0
    assert (
        host_git(root, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "planted").returncode
        == 0
    )
    for key, value in (("core.fsmonitor", str(fsmonitor)), ("diff.x.textconv", str(textconv))):
        assert host_git(root, "config", key, value).returncode == 0
    assert (planted_dir / "config").read_text(encoding="utf-8").count(str(tmp_path)) == 2
    (root / "pkg" / "calc.py").write_text("changed in the sandbox\n", encoding="utf-8")

    patch = workspace.diff({"pkg/calc.py": SOURCE.replace("x + x", "2 * x")})
    in_repo = workspace.diff({"pkg/calc.py": SOURCE.replace("x + x", "2 * x")}, in_repo=True)
    assert workspace.check_applies(patch) == (True, "applies cleanly")
    assert workspace.check_applies("garbage\n")[0] is False
    assert workspace.base_text("tests/test_calc.py") == PROJECT["tests/test_calc.py"]

    assert not fsmonitor_marker.exists()
    assert not textconv_marker.exists()
    assert patch == in_repo
    assert "-    return x + x\n+    return 2 * x\n" in patch  # no textconv output in the patch

    # the plant is real: plain git on the copy would have run both commands on the host
    host_git(root, "status")
    host_git(root, "diff")
    assert fsmonitor_marker.exists()
    assert textconv_marker.exists()


def test_base_texts_reads_many_files_at_once_and_names_a_missing_one(make_repo, snapshot):
    repo = make_repo({**PROJECT, "pkg/empty.py": "", "pkg/crlf.py": "x = 'é'\r\n"})
    workspace = snapshot(repo)
    texts = workspace.base_texts(["pkg/calc.py", "pkg/empty.py", "pkg/crlf.py", "pkg/calc.py"])
    assert texts == {"pkg/calc.py": SOURCE, "pkg/empty.py": "", "pkg/crlf.py": "x = 'é'\r\n"}
    with pytest.raises(WorkspaceError, match=r"pkg/nope\.py is not in the base snapshot"):
        workspace.base_texts(["pkg/calc.py", "pkg/nope.py"])
