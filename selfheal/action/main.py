"""`selfheal action`: the entrypoint of the container action.

    runner env + event file -> inputs, Trigger -> Bot.handle -> outputs, job summary, annotation

Exit code: 0 whenever selfheal did its job — also when it refused, had nothing to heal or
honestly could not heal (the `status` output says which); 1 when selfheal itself failed
(GitHub or git unreachable, a malformed event, a missing token); 2 for invalid inputs.
"""

from __future__ import annotations

import os
import secrets
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from selfheal.action.inputs import ActionInputs, parse_inputs
from selfheal.action.runner import (
    CommandGuard,
    annotation,
    relative_to_workspace,
    write_outputs,
    write_summary,
)
from selfheal.agent.events import Event, describe_finished
from selfheal.agent.exceptions import ConfigError, HealInterrupted, SelfhealError
from selfheal.agent.report.confidence import confidence_line
from selfheal.agent.report.memory import memory_key
from selfheal.agent.report.outputs import runs_folder
from selfheal.agent.report.result import HEALED, PARTIAL
from selfheal.bot.events import load_event, parse_event
from selfheal.bot.exceptions import BotError, public_words
from selfheal.bot.github.client import DEFAULT_API_URL, GitHubClient
from selfheal.bot.github.gitops import Identity
from selfheal.bot.github.proposal import proposal_key
from selfheal.bot.outcome import Outcome
from selfheal.bot.service import Bot
from selfheal.bot.settings import BotSettings

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class JobLog:
    """One stream of the job log (the step's stderr or stdout). Everything written to it is
    scrubbed of secrets, and nothing written with `write` can be a workflow command: a test's
    output, a failure message or a file name is the repository's text, and a line of it such as
    `::add-mask::…` or `::stop-commands::…` would otherwise be obeyed by the runner. Only
    `command` writes one: selfheal's own annotations."""

    def __init__(self, stream: TextIO, scrub: Callable[[str], str] | None = None) -> None:
        self.stream = stream
        self.scrub = scrub or (lambda text: text)
        self.secrets: tuple[str, ...] = ()  # the inputs' own secrets, masked whatever their length
        self.guard = CommandGuard()

    def redact(self, text: str) -> str:
        text = self.scrub(text)
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text

    def write(self, text: str) -> int:
        self.stream.write(self.guard.feed(self.redact(text)))
        self.stream.flush()
        return len(text)

    def command(self, line: str) -> None:
        self.stream.write(self.guard.command(self.redact(line)))
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:  # flush, isatty, encoding… of the stream below
        return getattr(self.stream, name)


class LogSink:
    """The heal's steps as lines in the job log."""

    def __init__(self, out: JobLog) -> None:
        self.out = out

    def emit(self, event: Event) -> None:
        line = describe_finished(event) if event.end is not None else None
        if line:
            self.out.write(f"[selfheal] {line}\n")


def run(
    env: Mapping[str, str], stderr: TextIO | None = None, *, scrub: Callable[[str], str] | None = None
) -> int:
    """The action, with `env` the runner's environment (secrets included: the entrypoint moved
    them out of the process's own) and `scrub` what masks their values (the entrypoint's)."""
    log, out = JobLog(stderr or sys.stderr, scrub), JobLog(sys.stdout, scrub)
    with job_log_streams(log, out):
        return _run(env, log, out)


@contextmanager
def job_log_streams(log: JobLog, out: JobLog) -> Iterator[None]:
    """sys.stderr and sys.stdout are the job log while the action runs, so whatever else prints
    (a library's warning quoting a file) is scrubbed and guarded too, by the same guard per stream."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, log  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def _run(env: Mapping[str, str], log: JobLog, out: JobLog) -> int:
    started = time.monotonic()
    try:
        inputs = parse_inputs(env)
        log.secrets = out.secrets = inputs.secrets
        trigger = parse_event(
            env.get("GITHUB_EVENT_NAME", ""),
            load_event(env.get("GITHUB_EVENT_NAME"), env.get("GITHUB_EVENT_PATH")),
            repo_hint=env.get("GITHUB_REPOSITORY"),
        )
        repo = getattr(trigger, "repo", None) or env.get("GITHUB_REPOSITORY", "")
        client = GitHubClient(
            repo,
            inputs.github_token,
            api_url=env.get("GITHUB_API_URL") or DEFAULT_API_URL,
            write_interval=float(env.get("SELFHEAL_GITHUB_WRITE_INTERVAL", "1.0")),
            timeout=int(env.get("SELFHEAL_GITHUB_TIMEOUT", "30")),
        )
        bot = Bot(client, inputs.github_token, settings(inputs, env), log=LogSink(log))
        outcome = bot.handle(trigger)
    except ConfigError as exc:
        return _failed(
            env, log, f"invalid input: {exc}", EXIT_BAD_INPUT, plain=f"invalid input: {public_words(exc)}"
        )
    except KeyboardInterrupt as exc:  # SIGINT, or SIGTERM (the CLI raises it as one): a cancelled run
        signum = int(getattr(exc, "signum", signal.SIGINT))
        how = f"stopped by {signal.Signals(signum).name}"
        # a heal the signal stopped wrote its report first (status, what it tried): say where
        written = exc.out_dir if isinstance(exc, HealInterrupted) else None
        folder = relative_to_workspace(env, written) if written is not None else ""
        return _failed(env, log, f"{how} before the end; a pushed branch without its pull request was "
                       "removed, and the next run starts afresh"
                       + (f"; the heal's report (what it tried): {folder}/report.json" if folder else ""),
                       128 + signum, outputs={"report-path": folder} if folder else None)  # fmt: skip
    except (BotError, SelfhealError) as exc:
        return _failed(env, log, str(exc), EXIT_FAILED, plain=public_words(exc))
    except Exception as exc:  # reported; the traceback when asked for
        if env.get("SELFHEAL_DEBUG"):
            log.write(traceback.format_exc())
        return _failed(
            env, log, f"internal error: {exc!r} (set SELFHEAL_DEBUG=1 for the traceback)", EXIT_FAILED
        )
    report(env, log, outcome, time.monotonic() - started)
    return EXIT_OK


def settings(inputs: ActionInputs, env: Mapping[str, str]) -> BotSettings:
    base = Path(env.get("GITHUB_WORKSPACE") or os.getcwd())
    run_id = env.get("GITHUB_RUN_ID", "local")
    attempt = env.get("GITHUB_RUN_ATTEMPT", "1")
    out_dir = runs_folder(base) / f"run-{run_id}-{attempt}-{secrets.token_hex(3)}"
    server = (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    run_url = (
        f"{server}/{env['GITHUB_REPOSITORY']}/actions/runs/{run_id}" if env.get("GITHUB_REPOSITORY") else ""
    )
    flags: dict[str, Any] = {
        "test_command": inputs.test_command or None,
        "max_minutes": inputs.max_minutes,
        "sandbox": inputs.sandbox,
        "sandbox_image": inputs.sandbox_image or None,
        "allow_direct_requirements": inputs.allow_direct_requirements or None,
        "accept_unsafe_sandbox": inputs.accept_unsafe_sandbox or None,
        "provider": inputs.provider,
        "model": inputs.model or None,
        "roles": inputs.roles or None,
        "prices": inputs.model_prices or None,
        "max_tokens": inputs.max_tokens,
        "max_usd": inputs.max_usd if inputs.provider != "none" or inputs.roles else None,
        "max_iterations": inputs.max_iterations,
    }
    workdir = env.get("RUNNER_TEMP")
    try:
        author = Identity.parse(inputs.commit_author)
    except ValueError as exc:
        raise ConfigError(f"input commit-author: {exc}") from exc
    return BotSettings(
        min_permission=inputs.permission,
        mode=inputs.mode,
        draft=inputs.draft,
        dry_run=inputs.dry_run,
        author=author,
        heal_flags={k: v for k, v in flags.items() if v is not None},
        extra_protected=inputs.protected_paths,
        publish_with=inputs.publish_with,
        memory=inputs.memory,
        run_url=run_url,
        out_dir=out_dir,
        workdir=Path(workdir) if workdir and Path(workdir).is_dir() else None,
        model_env=model_env(inputs, env),
        # the one secret a workflow keeps between runs: it signs the memory records and, so that a
        # proposal can be told from a commit anyone with push access could make, the proposals
        memory_key=memory_key(inputs.memory_key.encode("utf-8")) if inputs.memory_key else None,
        proposal_key=proposal_key(inputs.memory_key.encode("utf-8")) if inputs.memory_key else None,
    )


def model_env(inputs: ActionInputs, env: Mapping[str, str]) -> dict[str, str]:
    """Where the model clients find their key and endpoint: the inputs, and the step's own
    ANTHROPIC_BASE_URL (the workflow's `env:`, e.g. a proxy). Never the repository's settings:
    a URL from its pyproject.toml would receive the key."""
    out = {"ANTHROPIC_API_KEY": inputs.anthropic_api_key, "OLLAMA_HOST": inputs.ollama_host}
    out["ANTHROPIC_BASE_URL"] = env.get("ANTHROPIC_BASE_URL", "")
    return {name: value for name, value in out.items() if value}


def _flag(value: bool | None) -> str:
    return "" if value is None else str(value).lower()


def report(env: Mapping[str, str], log: JobLog, outcome: Outcome, wall_s: float) -> None:
    publication = outcome.publication
    # the probability that the shipped patch is right, as report.json says it (None: no fix kept)
    confidence = (outcome.report or {}).get("confidence")
    values = {
        "status": outcome.status,
        "pr-number": str(publication.pr_number) if publication and publication.pr_number else "",
        "pr-url": publication.pr_url if publication else "",
        "pr-operation": publication.operation if publication else "none",
        "pr-draft": _flag(publication.draft) if publication else "",
        "branch": publication.branch if publication else "",
        "report-path": relative_to_workspace(env, outcome.out_dir) if outcome.out_dir else "",
        "confidence": f"{confidence['probability']:.2f}" if confidence else "",
        "ready-for-review": ("true" if confidence["ready"] else "false") if confidence else "",
        **model_outputs(outcome),
    }
    write_outputs(env, {k: log.redact(v) for k, v in values.items()})
    log.write(f"[selfheal] {outcome.status}: {outcome.message} ({wall_s:.1f}s)\n")
    if confidence:
        log.write(f"[selfheal] {confidence_line(confidence)}\n")
    if publication and publication.pr_url:
        log.write(f"[selfheal] pull request {publication.operation}: {publication.pr_url}\n")
    for note in publication.notes if publication else ():
        log.write(f"[selfheal] note: {note}\n")
    result = outcome.result
    if result and result.fixes and result.status in (HEALED, PARTIAL):
        fix = result.fixes[0]
        prefix = f"{result.project_dir}/" if result.project_dir else ""
        tests = ", ".join(result.verdict.healed[:3]) if result.verdict else ""
        log.command(
            annotation(
                "error", f"root cause of {tests}: {fix.description}", file=prefix + fix.file, line=fix.line
            )
        )
    summary = [f"## selfheal: {outcome.status.replace('_', ' ')}", "", outcome.message, ""]
    if result and result.sandbox:
        # which isolation the repository's code actually ran in, before anything it produced
        contained = bool(result.sandbox.facts and result.sandbox.facts.contained)
        risk = "" if contained else " (not contained: the workflow accepted the risk)"
        summary += [f"**Sandbox:** {result.sandbox.backend}: {result.sandbox.isolation}{risk}", ""]
    if confidence:
        line = confidence_line(confidence)
        summary += [f"**{line[0].upper()}{line[1:]}**", ""]
    if publication and publication.pr_url:
        summary += [f"Pull request ({publication.operation}): {publication.pr_url}", ""]
    if outcome.out_dir and (outcome.out_dir / "report.html").is_file():
        where = relative_to_workspace(env, outcome.out_dir / "report.html")
        summary += [f"The whole run, drawn: `{where}` in this run's artifact"
                    + (f" ({run_artifacts(env)})" if run_artifacts(env) else "") + ".", ""]  # fmt: skip
    if outcome.out_dir and (outcome.out_dir / "summary.md").is_file():
        summary += [(outcome.out_dir / "summary.md").read_text(encoding="utf-8")]
    write_summary(env, log.redact("\n".join(summary)))


def run_artifacts(env: Mapping[str, str]) -> str:
    """The page of this run that lists its artifacts, where the report folder is uploaded."""
    server = (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    if not env.get("GITHUB_REPOSITORY") or not env.get("GITHUB_RUN_ID"):
        return ""
    return f"{server}/{env['GITHUB_REPOSITORY']}/actions/runs/{env['GITHUB_RUN_ID']}#artifacts"


def model_outputs(outcome: Outcome) -> dict[str, str]:
    """provider, tokens-in, tokens-out, cost-usd: what the model side of the heal used."""
    report = outcome.report or {}
    metrics = report.get("metrics") or {}
    return {
        "provider": str(report.get("provider") or ""),
        "tokens-in": str(metrics.get("tokens_in", 0)) if report else "",
        "tokens-out": str(metrics.get("tokens_out", 0)) if report else "",
        "cost-usd": f"{metrics.get('cost_usd', 0.0):.4f}" if report else "",
    }


def _failed(
    env: Mapping[str, str],
    log: JobLog,
    message: str,
    code: int,
    outputs: dict[str, str] | None = None,
    *,
    plain: str = "",
) -> int:
    """`message` whole in the job log; the annotation and the job summary, which the run's page
    shows to everyone, get `plain` (bot.exceptions.public_words) where it differs."""
    plain = plain or message
    if plain != message:
        log.write(f"[selfheal] {message}\n")
    log.command(annotation("error", f"selfheal: {plain}"))
    write_outputs(env, {"status": "error", "pr-operation": "none", **(outputs or {})})
    write_summary(env, log.redact(f"## selfheal: error\n\n{plain}\n"))
    return code
