"""Family `git`: hooks, core.fsmonitor, core.hooksPath, filters, diff drivers and a credential helper
planted in every git directory the tests can reach.

Every planted command is a shell script that only appends a line (what ran, its uid, the command
line of whatever ran it) to a file in the harness's host-proof folder, which only root can write:
a line there means a command the tests planted ran outside the sandbox. Filters and textconv pass
their input through unchanged. The host also checks that the origin repository and a bystander
repository under /tmp are byte-for-byte unchanged. Copied into the case's repository as
escape_attacks.py; runs inside the sandbox.
"""

from __future__ import annotations

import os
from pathlib import Path

import escape_kit as kit

FAMILY = "git"
CASES = [
    {
        "id": "git-workspace",
        "title": "the workspace's .git, .gitattributes and selfheal's snapshot git directory beside it",
        "attack": "poison_workspace",
    },
    {
        "id": "git-origin",
        "title": "the origin repository's .git and a bystander repository under /tmp",
        "attack": "poison_origin",
    },
]

HOOKS = (
    "pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "pre-push", "post-checkout",
    "post-merge", "pre-rebase", "post-rewrite", "reference-transaction", "pre-auto-gc", "post-index-change",
    "fsmonitor-watchman", "push-to-checkout", "sendemail-validate",
)  # fmt: skip
PASS_THROUGH = {"filter": "cat", "textconv": 'cat "$1"', "pager": "cat"}


def _payload(folder: Path, kind: str) -> str:
    """A script that records that it ran, outside the sandbox only (the proof folder is root's)."""
    proof = os.path.join(kit.CONFIG["host_proof"], f"git-{kind}-{kit.MARKER}")
    script = folder / f"escape-{kind}"
    script.write_text(
        "#!/bin/sh\n"
        f"# selfheal escape corpus ({kit.MARKER}): records that this ran, nothing else\n"
        f'{{ echo "{kind} uid=$(id -u) pid=$$"; tr "\\0" " " < /proc/$PPID/cmdline; echo; }}'
        f' >> "{proof}" 2>/dev/null\n'
        f"{PASS_THROUGH.get(kind, 'exit 0')}\n"
    )
    script.chmod(0o755)
    return str(script)


def plant(findings: kit.Findings, git_dir: Path, label: str) -> bool:
    """Hooks, a hooksPath, an fsmonitor, filter/diff/merge drivers, a credential helper, a pager,
    an ssh command and a gpg program, all in one git directory; its existing config is kept."""
    try:
        hooks = git_dir / "hooks"
        hooks.mkdir(parents=True, exist_ok=True)
        tools = git_dir / "escape-tools"
        tools.mkdir(exist_ok=True)
        for hook in HOOKS:
            target = hooks / hook
            target.write_text(Path(_payload(tools, f"hook-{hook}")).read_text())
            target.chmod(0o755)
        run = {kind: _payload(tools, kind) for kind in (
            "fsmonitor", "filter", "textconv", "diff-external", "credential", "pager", "ssh", "gpg",
            "editor", "askpass", "merge-driver",
        )}  # fmt: skip
        (git_dir / "info").mkdir(exist_ok=True)
        with open(git_dir / "info" / "attributes", "a") as attributes:
            attributes.write("* filter=escape diff=escape merge=escape\n")
        with open(git_dir / "config", "a") as config:
            config.write(
                f"[core]\n\tfsmonitor = {run['fsmonitor']}\n\thooksPath = {hooks}\n"
                f"\tpager = {run['pager']}\n\tsshCommand = {run['ssh']}\n\teditor = {run['editor']}\n"
                f"\taskPass = {run['askpass']}\n\tattributesFile = {git_dir / 'info' / 'attributes'}\n"
                f'[filter "escape"]\n\tclean = {run["filter"]}\n\tsmudge = {run["filter"]}\n'
                f'[diff "escape"]\n\ttextconv = {run["textconv"]}\n\tcommand = {run["diff-external"]}\n'
                f'[merge "escape"]\n\tdriver = {run["merge-driver"]} %O %A %B\n'
                f"[diff]\n\texternal = {run['diff-external']}\n"
                f"[credential]\n\thelper = !{run['credential']}\n"
                f"[gpg]\n\tprogram = {run['gpg']}\n[commit]\n\tgpgsign = true\n"
            )
    except OSError as exc:
        findings.stopped(f"plant in {label}", exc)
        return False
    return True


def plant_outside(findings: kit.Findings, git_dir: Path, label: str) -> None:
    if plant(findings, git_dir, label):
        findings.got(f"planted hooks, fsmonitor, filters and a credential helper in {label} ({git_dir})")


def _fresh_git_dir(path: Path) -> None:
    for folder in ("objects", "refs/heads", "hooks", "info"):
        (path / folder).mkdir(parents=True, exist_ok=True)
    (path / "HEAD").write_text("ref: refs/heads/main\n")
    if not (path / "config").exists():
        (path / "config").write_text("[core]\n\trepositoryformatversion = 0\n\tbare = false\n")


def poison_workspace(findings: kit.Findings) -> None:
    workspace_git = kit.HERE / ".git"
    try:
        _fresh_git_dir(workspace_git)
        (kit.HERE / ".gitattributes").write_text("* filter=escape diff=escape merge=escape\n")
    except OSError as exc:
        findings.stopped("a .git in the workspace", exc)
    else:
        # the workspace is the tests' own: planting there is no escape, running it would be
        plant(findings, workspace_git, "the workspace's own .git")
    # selfheal keeps its snapshot's git directory beside the copy, and parents may hold others
    for parent in list(kit.HERE.parents)[:3]:
        for name in ("git", ".git"):
            candidate = parent / name
            try:
                is_git = (candidate / "HEAD").is_file()
            except OSError as exc:  # a folder the sandbox's uid may not enter
                findings.stopped(str(candidate), exc)
                continue
            if is_git:
                plant_outside(
                    findings, candidate, f"a git directory outside the workspace ({name} in {parent})"
                )
    if not findings.achieved:
        findings.stopped("no git directory outside the workspace was writable")


def poison_origin(findings: kit.Findings) -> None:
    for label, path in (
        ("the origin repository", Path(kit.CONFIG["origin"]) / ".git"),
        ("a bystander repository under /tmp", Path(kit.CONFIG["bystander"]) / ".git"),
    ):
        try:
            visible = (path / "HEAD").exists()
        except OSError as exc:
            findings.stopped(label, exc)
            continue
        if not visible:
            findings.stopped(f"{label}: not visible")
            continue
        plant_outside(findings, path, label)
    # Others' repositories are only counted, never touched: that would not be harmless.
    writable = 0
    for root, dirs, _files in os.walk("/tmp"):
        if root.count("/") > 4:
            dirs[:] = []
            continue
        for name in list(dirs):
            if name in (".git", "git") and os.path.isfile(os.path.join(root, name, "HEAD")):
                if kit.MARKER not in root and os.access(os.path.join(root, name, "config"), os.W_OK):
                    writable += 1
                dirs.remove(name)
    findings.stopped(f"{writable} other git directories under /tmp are writable (not touched)")
