"""The action as GitHub runs it: the Dockerfile built from the local base image, started like the
runner starts a container action, and heal.yml run through `act` — against the fake GitHub server.

Needs a Docker engine and the sandbox base image (`.ci/run` provides both); skipped with the
reason otherwise. The image is built once per session (a code change rebuilds in seconds).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.action.conftest import REPO, World, parse_output_file
from tests.action.test_action_e2e import (
    comments_on,
    pulls_by_head,
    reactions_on,
    remote_branches,
    suite_passes_on,
)
from tests.bot import payloads
from tests.conftest import ROOT, git
from tests.sandbox.test_docker_sandbox import CLIENT, IMAGE, REASON, ours

pytestmark = [pytest.mark.skipif(CLIENT is None, reason=REASON), pytest.mark.slow]

ACTION_IMAGE = "selfheal-action:test"
ACT_IMAGE = "act-selfheal-selfheal-v1-dockeraction:latest"  # act's name for `uses: selfheal/selfheal@v1`


def extra_ca_certs() -> str:
    """The certificates this machine trusts beyond the public ones (a TLS-inspecting proxy's), for
    pip inside `docker build`: those in SSL_CERT_FILE that certifi's bundle lacks. Empty elsewhere."""
    bundle = os.environ.get("SSL_CERT_FILE")
    if not bundle or not Path(bundle).is_file():
        return ""
    import certifi

    begin, end = "-----BEGIN CERTIFICATE-----", "-----END CERTIFICATE-----"

    def blocks(text: str) -> list[str]:
        return [begin + part.split(end)[0] + end for part in text.split(begin)[1:]]

    public = set(blocks(Path(certifi.where()).read_text(encoding="utf-8")))
    extra = [b for b in blocks(Path(bundle).read_text(encoding="utf-8")) if b not in public]
    return "\n".join(extra)


@pytest.fixture(scope="module")
def action_image() -> str:
    command = ["docker", "build", "-q", "--build-arg", f"BASE_IMAGE={IMAGE}", "-t", ACTION_IMAGE, str(ROOT)]
    extra = extra_ca_certs()
    if extra:
        command[3:3] = ["--build-arg", f"EXTRA_CA_CERTS={extra}"]
    built = subprocess.run(command, capture_output=True, text=True, timeout=900,
                           env={**os.environ, "DOCKER_BUILDKIT": "0"})  # fmt: skip
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-3000:]
    return ACTION_IMAGE


def test_the_image_runs_selfheal_action(action_image: str) -> None:
    shown = subprocess.run(["docker", "run", "--rm", "--entrypoint", "selfheal", action_image, "--help"],
                           capture_output=True, text=True, timeout=120)  # fmt: skip
    assert shown.returncode == 0
    assert "action" in shown.stdout and "heal" in shown.stdout
    config = CLIENT.images.get(action_image).attrs["Config"]
    assert config["Entrypoint"] == ["selfheal", "action"]
    history = json.dumps(CLIENT.images.get(action_image).history())
    assert "EXTRA_CA_CERTS=-----BEGIN" not in history  # the build-time CA stays in the builder stage


def test_in_the_action_image_the_local_sandbox_runs_the_tests_as_an_unprivileged_uid(
    action_image: str, tmp_path: Path
) -> None:
    """Started as the runner starts a container action (root, the engine's default capabilities
    and seccomp profile) with no Docker socket, so the heal falls back to the local sandbox: the
    tests never run as root, and the report says what held."""
    shutil.copytree(
        ROOT / "examples" / "intervals", tmp_path / "repo", ignore=shutil.ignore_patterns(".selfheal")
    )
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o777)
    done = subprocess.run(
        ["docker", "run", "--rm", "--network", "none", "-v", f"{tmp_path / 'repo'}:/repo:ro",
         "-v", f"{out}:/out", "--entrypoint", "selfheal", action_image,
         "heal", "/repo", "--sandbox", "auto", "--out", "/out/run", "--max-minutes", "2"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    report = json.loads((out / "run" / "report.json").read_text(encoding="utf-8"))
    assert report["status"] == "healed", done.stderr[-3000:]
    sandbox = report["sandbox"]
    assert sandbox["backend"] == "local"
    facts = sandbox["facts"]
    assert facts["separate_user"] is True and facts["uid"] != 0
    assert facts["capabilities"] == [] and facts["contained"] is True
    assert facts["nested_user_namespaces"] is False
    assert "capabilities: none" in sandbox["isolation"]


def test_docker_run_on_a_recorded_event_opens_the_pull_request(action_image: str, world: World) -> None:
    """Started as the runner starts a container action: the event, workspace and file-command
    folders mounted, INPUT_* variables, the Docker socket — the sandboxes are sibling containers."""
    world.fake.seed_comment(REPO, 7, 5001, "alice", "/heal")
    home = world.tmp / "runner"
    for folder in ("workflow", "workspace", "file_commands", "runner_temp"):
        (home / folder).mkdir(parents=True)
    event = payloads.issue_comment("/heal", number=7, comment_id=5001)
    (home / "workflow" / "event.json").write_text(json.dumps(event), encoding="utf-8")
    env = {
        "GITHUB_EVENT_NAME": "issue_comment", "GITHUB_EVENT_PATH": "/github/workflow/event.json",
        "GITHUB_REPOSITORY": REPO, "GITHUB_API_URL": world.fake.api_url, "GITHUB_SERVER_URL": world.fake.url,
        "GITHUB_WORKSPACE": "/github/workspace", "GITHUB_OUTPUT": "/github/file_commands/output",
        "GITHUB_STEP_SUMMARY": "/github/file_commands/summary", "RUNNER_TEMP": "/github/runner_temp",
        "GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_ACTIONS": "true", "CI": "true",
        "INPUT_GITHUB-TOKEN": world.token, "INPUT_SANDBOX": "docker", "INPUT_SANDBOX-IMAGE": IMAGE,
        "INPUT_PERMISSION": "write", "INPUT_MODE": "auto", "INPUT_MAX-MINUTES": "5",
        "SELFHEAL_GITHUB_WRITE_INTERVAL": "0",
    }  # fmt: skip
    command = ["docker", "run", "--rm", "--network", "host", "--workdir", "/github/workspace",
               "-v", "/var/run/docker.sock:/var/run/docker.sock"]  # fmt: skip
    for folder in ("workflow", "workspace", "file_commands", "runner_temp"):
        command += ["-v", f"{home / folder}:/github/{folder}"]
    for name, value in env.items():
        command += ["-e", f"{name}={value}"]
    before = ours()
    done = subprocess.run([*command, action_image], capture_output=True, text=True, timeout=900)

    assert done.returncode == 0, done.stderr[-3000:]
    outputs = parse_output_file(home / "file_commands" / "output")
    assert (outputs["status"], outputs["pr-operation"]) == ("healed", "created"), done.stderr[-3000:]
    [pull] = pulls_by_head(world, outputs["branch"])
    assert pull["base"]["ref"] == "feature"
    assert suite_passes_on(world, outputs["branch"]).returncode == 0
    assert reactions_on(world, 5001) == ["eyes", "rocket"]
    report = json.loads(
        (home / "workspace" / outputs["report-path"] / "report.json").read_text(encoding="utf-8")
    )
    assert report["sandbox"]["backend"] == "docker" and report["sandbox"]["network"] is False
    assert "[selfheal] healed" in done.stderr
    assert world.token not in done.stdout + done.stderr
    assert ours() == before  # the sibling sandbox containers and volumes are gone


@pytest.fixture
def act_repo(world: World) -> Iterator[Path]:
    """What act needs: a local git repo whose origin names the repository (act reads
    GITHUB_REPOSITORY from it), carrying heal.yml exactly as users copy it."""
    repo = world.tmp / "act-repo"
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "heal.yml").write_text(with_base_image(heal_yml()), encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "remote", "add", "origin", f"https://github.com/{REPO}.git")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "workflow")
    yield repo


def heal_yml() -> str:
    return (ROOT / ".github" / "workflows" / "heal.yml").read_text(encoding="utf-8")


def with_base_image(workflow: str) -> str:
    """heal.yml naming the sandbox image: there is no Docker Hub here, so `auto` would find no
    default image and the local sandbox, which cannot make namespaces in act's container, refuses
    (as it must on a runner like that). One input, as an operator on such a runner would add."""
    line = "          github-token: ${{ secrets.GITHUB_TOKEN }}\n"
    assert line in workflow
    return workflow.replace(line, line + f"          sandbox-image: {IMAGE}\n", 1)


def offline_upload_artifact(folder: Path) -> Path:
    """actions/upload-artifact is fetched from github.com; offline, a composite stand-in checks
    that the report folder it is given exists and holds the report."""
    folder.mkdir(parents=True)
    (folder / "action.yml").write_text(
        "name: upload-artifact (offline stand-in)\n"
        "inputs:\n  name: {default: artifact}\n  path: {required: true}\n"
        "  if-no-files-found: {default: warn}\n  retention-days: {default: '0'}\n"
        "runs:\n  using: composite\n  steps:\n    - shell: bash\n"
        "      env: {ARTIFACT_PATH: '${{ inputs.path }}'}\n"
        '      run: test -f "$ARTIFACT_PATH/report.json" && echo "would upload $ARTIFACT_PATH"\n',
        encoding="utf-8",
    )
    return folder


def test_heal_yml_runs_under_act_in_dry_run(action_image: str, world: World, act_repo: Path) -> None:
    act = shutil.which("act") or str(Path(sys.executable).parent / "act")
    CLIENT.images.get(action_image).tag(ACT_IMAGE)
    world.fake.seed_comment(REPO, 7, 5001, "alice", "/heal dry-run")
    event = world.tmp / "comment-event.json"
    event.write_text(json.dumps(payloads.issue_comment("/heal dry-run", number=7, comment_id=5001)), "utf-8")
    stub = offline_upload_artifact(world.tmp / "upload-artifact")
    command = [
        act, "issue_comment", "-e", str(event), "-W", ".github/workflows/heal.yml",
        "-P", f"ubuntu-latest={IMAGE}", "--pull=false", "--rebuild=false", "--rm",
        "--local-repository", f"selfheal/selfheal@v1={ROOT}",
        "--local-repository", f"actions/upload-artifact@v4={stub}",
        "--action-cache-path", str(world.tmp / "act-cache"), "--no-cache-server",
        "-s", f"GITHUB_TOKEN={world.token}",
        "--env", f"GITHUB_API_URL={world.fake.api_url}", "--env", f"GITHUB_SERVER_URL={world.fake.url}",
        "--env", "SELFHEAL_GITHUB_WRITE_INTERVAL=0",
    ]  # fmt: skip
    done = subprocess.run(command, cwd=act_repo, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "HOME": str(world.tmp / "act-home")})  # fmt: skip
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-4000:]
    assert "[selfheal] healed: dry run: nothing pushed" in log
    assert "would upload .selfheal/runs/run-" in log
    [comment] = comments_on(world, 7)
    assert "**Dry run**: no branch pushed, no pull request opened." in comment["body"]
    assert "```diff" in comment["body"]
    assert reactions_on(world, 5001) == ["eyes"]
    assert len(world.repo_state()["pulls"]) == 2  # the seeded ones: a dry run opens none
    assert remote_branches(world) == ["feature", "green", "main"]
    assert world.token not in log


def test_heal_yml_with_its_claude_line_on_heals_under_act_and_names_provider_and_tokens(
    action_image: str, temps_world: World, tmp_path: Path
) -> None:
    """heal.yml as users copy it, with the one commented line for Claude turned on, run by act;
    the action's container reaches the fake Anthropic (ANTHROPIC_BASE_URL in the step's env, as
    --env gives it), and the step's outputs name the provider and the tokens."""
    from tests.action.model_world import anthropic_script
    from tests.fakes.anthropic_server import FakeAnthropic

    world = temps_world
    key = "k3y-" + "3" * 40
    act = shutil.which("act") or str(Path(sys.executable).parent / "act")
    CLIENT.images.get(action_image).tag(ACT_IMAGE)
    repo = tmp_path / "act-repo"
    (repo / ".github" / "workflows").mkdir(parents=True)
    workflow = with_base_image(heal_yml())
    line = "          # anthropic-api-key: ${{ secrets.ANTHROPIC_API_KEY }}"
    assert line in workflow
    workflow = workflow.replace(line, line.replace("# ", "", 1))
    # memory=none: the scripted answers follow the roles that ask (no lessons model in between)
    roles = "          roles: ${{ inputs.roles }}"
    assert roles in workflow
    workflow = workflow.replace(roles, "          roles: memory=none")
    workflow += (  # one more step, to read the heal step's outputs as a later step would
        "\n      - name: Outputs\n        if: always()\n        shell: bash\n"
        "        env:\n          PROVIDER: ${{ steps.heal.outputs.provider }}\n"
        "          TOKENS_IN: ${{ steps.heal.outputs.tokens-in }}\n"
        "          TOKENS_OUT: ${{ steps.heal.outputs.tokens-out }}\n"
        '        run: echo "outputs provider=$PROVIDER tokens-in=$TOKENS_IN tokens-out=$TOKENS_OUT"\n'
    )
    (repo / ".github" / "workflows" / "heal.yml").write_text(workflow, encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "remote", "add", "origin", f"https://github.com/{REPO}.git")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "workflow")
    world.fake.seed_comment(REPO, 7, 5001, "alice", "/heal")
    event = tmp_path / "comment-event.json"
    event.write_text(json.dumps(payloads.issue_comment("/heal", number=7, comment_id=5001)), "utf-8")
    stub = offline_upload_artifact(tmp_path / "upload-artifact")
    fake = FakeAnthropic.start(tmp_path / "claude", {"api_key": key, "steps": anthropic_script()})
    try:
        command = [
            act, "issue_comment", "-e", str(event), "-W", ".github/workflows/heal.yml",
            "-P", f"ubuntu-latest={IMAGE}", "--pull=false", "--rebuild=false", "--rm",
            "--local-repository", f"selfheal/selfheal@v1={ROOT}",
            "--local-repository", f"actions/upload-artifact@v4={stub}",
            "--action-cache-path", str(tmp_path / "act-cache"), "--no-cache-server",
            "-s", f"GITHUB_TOKEN={world.token}", "-s", f"ANTHROPIC_API_KEY={key}",
            "--env", f"GITHUB_API_URL={world.fake.api_url}", "--env", f"GITHUB_SERVER_URL={world.fake.url}",
            "--env", "SELFHEAL_GITHUB_WRITE_INTERVAL=0", "--env", f"ANTHROPIC_BASE_URL={fake.url}",
        ]  # fmt: skip
        done = subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=1200,
                              env={**os.environ, "HOME": str(tmp_path / "act-home")})  # fmt: skip
        requests = fake.requests()
    finally:
        fake.stop()
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-4000:]
    assert "outputs provider=anthropic tokens-in=8000 tokens-out=610" in log, log[-4000:]
    assert [r["status"] for r in requests] == [200] * 7
    [pull] = [p for p in world.repo_state()["pulls"] if p["head"]["ref"].startswith("selfheal/")]
    assert "| **total** | 7 | 8000 | 610 | $0.0221 |" in pull["body"]
    assert key not in log and world.token not in log
