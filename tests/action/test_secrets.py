"""Secrets leave the entrypoint's environment before any repository code runs (real processes)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from selfheal.action.runner import CommandGuard, annotation, neutralise_commands
from tests.action.conftest import World, all_text_under
from tests.bot import payloads
from tests.conftest import ROOT, git

SECRET = "ghs_" + "s3cr3t" * 6


def test_the_running_entrypoint_shows_no_secret_in_its_environment(tmp_path: Path) -> None:
    """`selfheal action` as the runner starts it, caught while it waits on GitHub (a server that
    never answers): it holds the token, yet /proc/<pid>/environ has none of the secrets."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payloads.issue_comment("/heal")), encoding="utf-8")
    env = {
        "PATH": os.environ["PATH"], "INPUT_GITHUB-TOKEN": SECRET, "ACTIONS_RUNTIME_TOKEN": "rt-" + SECRET,
        "GITHUB_EVENT_NAME": "issue_comment", "GITHUB_EVENT_PATH": str(event),
        "GITHUB_API_URL": f"http://127.0.0.1:{silent.getsockname()[1]}", "GITHUB_REPOSITORY": "acme/widgets",
    }  # fmt: skip
    action = subprocess.Popen([sys.executable, "-m", "selfheal", "action"], env=env, stderr=subprocess.PIPE)
    try:
        silent.settimeout(30)
        connection, _ = silent.accept()  # the re-executed image is asking GitHub: it has the token
        environ = Path(f"/proc/{action.pid}/environ").read_bytes().decode()
        assert "SELFHEAL_SECRETS_FD=" in environ  # the same pid, after the re-exec
        assert SECRET not in environ
        assert "INPUT_GITHUB-TOKEN" not in environ and "ACTIONS_RUNTIME_TOKEN" not in environ
        request = connection.recv(65536).decode()
        assert f"Authorization: token {SECRET}" in request
        connection.close()
    finally:
        action.kill()
        action.wait()
        silent.close()


PROBE = """
import subprocess, sys
held = subprocess.Popen(
    [sys.executable, "-c", "import sys, time, selfheal_secrets as s\\n"
     "if sys.argv[1] == 'undumpable': s.make_undumpable()\\n"
     "print('ready', flush=True); time.sleep(30)", sys.argv[1]],
    env={"HELD_SECRET": sys.argv[2], "PYTHONPATH": "/probe"}, stdout=subprocess.PIPE, text=True,
)
held.stdout.readline()
try:
    print(open(f"/proc/{held.pid}/environ", "rb").read().decode())
except PermissionError as exc:
    print("denied:", exc)
held.kill()
"""


@pytest.mark.parametrize("mode", ["dumpable", "undumpable"])
def test_an_undumpable_process_hides_its_environment_in_a_container(mode: str) -> None:
    """Where the action runs: a container's root lacks CAP_SYS_PTRACE, so a process of the same
    user (the repository's tests under the local sandbox) cannot read an undumpable one's environ
    or memory. (A host root keeps CAP_SYS_PTRACE and sees everything: there only the sandbox's
    namespaces, or the docker sandbox, keep tests away.)"""
    from tests.sandbox.test_docker_sandbox import CLIENT, IMAGE, REASON

    if CLIENT is None:
        pytest.skip(REASON)
    module = ROOT / "selfheal" / "sandbox" / "secrets.py"  # standard library only: it runs alone
    output = CLIENT.containers.run(
        IMAGE, ["python3", "-c", PROBE, mode, SECRET], remove=True, network_mode="none",
        volumes={str(module): {"bind": "/probe/selfheal_secrets.py", "mode": "ro"}},
    ).decode()  # fmt: skip
    if mode == "dumpable":
        assert f"HELD_SECRET={SECRET}" in output
    else:
        assert output.startswith("denied: [Errno 13] Permission denied")
        assert SECRET not in output


# -- workflow commands ------------------------------------------------------------------------------
LEAKED = "sk-ant-api03-" + "9f8e7d6c5b4a" * 4
# The repository's conftest stops pytest with workflow commands and a secret as its exit message,
# printed raw: the heal ends in error with the run's last lines as its message, which the job log
# shows.
HOSTILE_CONFTEST = f"""
LINES = [
    "::add-mask::x",
    "::stop-commands::y",
    "::error::z",
    "   ::warning file=README.md,line=1::indented",
    "\\r::set-output name=status::healed",
    "a legacy command anywhere ##[error]in a line",
    "and the key: {LEAKED}",
]
import sys

sys.exit("\\n".join(LINES))
"""


def commands_in(log: str) -> list[str]:
    """The lines the runner would obey: `::` first after whitespace, or `##[` anywhere (it splits
    lines at \\n and \\r)."""
    lines = log.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return [line for line in lines if line.lstrip().startswith("::") or "##[" in line]


def test_workflow_commands_in_the_tests_output_reach_the_job_log_neutralised(world: World) -> None:
    clone = world.tmp / "hostile"
    git(world.tmp, "clone", "-q", "-b", "main", str(world.remote), str(clone))
    (clone / "conftest.py").write_text(HOSTILE_CONFTEST, encoding="utf-8")
    git(clone, "add", "conftest.py")
    git(clone, "commit", "-q", "-m", "a conftest that talks to the runner")
    git(clone, "push", "-q", "origin", "HEAD:refs/heads/hostile")

    run = world.run(
        "workflow_dispatch", payloads.workflow_dispatch("hostile"), **{"anthropic-api-key": LEAKED}
    )

    assert run.returncode == 0, run.stderr
    assert run.outputs["status"] == "error"
    log = run.stdout + run.stderr
    # the repository's lines are in the log, visibly, but none of them is a command
    for line in ("> ::add-mask::x", "> ::stop-commands::y", "> ::error::z", "> ::set-output name=status"):
        assert line in log
    assert "## [error]in a line" in log
    assert commands_in(log) == []
    # and the key it printed is masked everywhere the action writes
    assert "and the key: ***" in log
    assert LEAKED not in log + run.summary + "\n".join(run.outputs.values())
    assert LEAKED not in all_text_under(run.report_dir)


def test_a_guard_keeps_state_across_writes_and_lets_selfheals_own_command_through() -> None:
    guard = CommandGuard()
    written = (
        guard.feed("[selfheal] error: the last output was:\n  ")
        + guard.feed(":")
        + guard.feed(":add-mask::x\n")
    )
    written += (
        guard.feed("#") + guard.feed("#[warning]w") + guard.command(annotation("error", "selfheal: ##[x]"))
    )
    assert commands_in(written) == ["::error::selfheal: ## [x]"]
    assert written.endswith("w\n::error::selfheal: ## [x]\n")  # alone on its line
    assert neutralise_commands("\ufeff::echo::on\r::debug::d") == "\ufeff> ::echo::on\r> ::debug::d"
