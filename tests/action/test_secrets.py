"""Secrets leave the entrypoint's environment before any repository code runs (real processes)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bot import payloads
from tests.conftest import ROOT

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
    module = ROOT / "selfheal" / "action" / "secrets.py"
    output = CLIENT.containers.run(
        IMAGE, ["python3", "-c", PROBE, mode, SECRET], remove=True, network_mode="none",
        volumes={str(module): {"bind": "/probe/selfheal_secrets.py", "mode": "ro"}},
    ).decode()  # fmt: skip
    if mode == "dumpable":
        assert f"HELD_SECRET={SECRET}" in output
    else:
        assert output.startswith("denied: [Errno 13] Permission denied")
        assert SECRET not in output
