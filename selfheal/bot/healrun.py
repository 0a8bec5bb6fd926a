"""One heal in this process, with the repository's memory around it: recalled before, added to after.

    run_heal(settings, trigger, checkout, progress, log, ...) -> (HealResult, report, output folder)

The record is added after the heal and before its outputs are written, so that a record the
branch refused is said where the maintainer reads (report.json, the pull request's body).

The heal's configuration is the caller's (the workflow's inputs, the server's config) with what the
trigger asks for; the sandbox must keep the repository's code away from the token.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from selfheal.agent.config import build_config, choose_sandbox_for
from selfheal.agent.events import Event, EventSink, Fanout, Trace
from selfheal.agent.exceptions import ConfigError, HealInterrupted
from selfheal.agent.loop import heal
from selfheal.agent.model.strategy import setup_for
from selfheal.agent.report.memory import MEMORY_FILE, render_lines, worth_keeping
from selfheal.agent.report.outputs import scrubbed_report, write_outputs
from selfheal.agent.report.result import HealResult
from selfheal.bot.events import Trigger
from selfheal.bot.exceptions import GitError, SandboxRefused
from selfheal.bot.github.memorybranch import MEMORY_BRANCH, MemoryBranch
from selfheal.bot.github.progress import ProgressComment
from selfheal.bot.settings import BotSettings
from selfheal.sandbox.addresses import with_plain
from selfheal.sandbox.exceptions import SandboxUnavailable


def recall(memory: MemoryBranch | None, workdir: Path, log: EventSink | None) -> Path | None:
    """The branch's records in a file beside the checkout (never in it: the sandbox copies the
    checkout), for the heal to recall from; None when memory is off or cannot be read."""
    if memory is None:
        return None
    try:
        records = memory.read()
    except GitError as exc:  # the heal goes on without memory, and says so in the log
        _note(log, f"the {MEMORY_BRANCH} branch could not be read: {exc}")
        return None
    path = workdir / MEMORY_FILE
    path.write_text(render_lines(records), encoding="utf-8")
    return path


def remember(
    memory: MemoryBranch,
    result: HealResult,
    report: dict[str, Any],
    branch: str,
    run_url: str,
    log: EventSink | None,
) -> str | None:
    """Adds the heal's record to the branch; the note to publish when it could not be added."""
    record = worth_keeping(result, report)
    if record is None:
        return None
    record = replace(record, branch=branch, run=run_url)
    try:
        memory.append(record)
    except GitError as exc:  # the heal and its pull request stand; only the record is lost
        _note(log, f"the heal's record was not added to {MEMORY_BRANCH}: {exc}")
        # the notes are published: the git error's words (its remote's address) stay out of them
        return f"this heal was not remembered: the {MEMORY_BRANCH} branch could not be written"
    return None


def _note(log: EventSink | None, text: str) -> None:
    if log is not None:
        now = time.time()
        log.emit(Event("memory", now, now, {"note": text}))


def run_heal(
    settings: BotSettings,
    trigger: Trigger,
    path: Path,
    progress: ProgressComment | None,
    log: EventSink | None,
    memory_file: Path | None = None,
    notes: tuple[str, ...] = (),
    keep: Callable[[HealResult, dict[str, Any]], str | None] | None = None,
) -> tuple[HealResult, dict[str, Any], Path]:
    """`keep(result, report)` adds the heal to the memory, returning a note when it could not."""
    flags = dict(settings.heal_flags)
    flags["memory"] = memory_file is not None
    flags["memory_path"] = memory_file
    flags["memory_to_model"] = settings.memory_key is not None
    if trigger.test_command:
        flags["test_command"] = trigger.test_command
    if trigger.command and trigger.command.targets:
        flags["targets"] = trigger.command.targets
    # the provider is the caller's (the workflow's inputs, the server's config): the repository
    # may pick models and roles, never make the caller's key pay for a provider it did not set
    flags.setdefault("provider", "none")
    flags["caller_endpoints"] = True
    # on GitHub a token sits next to the repository's code: a sandbox that cannot keep the
    # code away from selfheal's process is refused unless the workflow accepted the risk
    flags["require_contained"] = True
    config = build_config(path, flags, settings.model_env)
    if settings.extra_protected:
        config = replace(config, protected=(*config.protected, *settings.extra_protected))
    config.extra["memory_store"] = f"branch {MEMORY_BRANCH}"
    try:
        sandbox, fallback = choose_sandbox_for(config)
    except SandboxUnavailable as exc:
        refused = ConfigError(f"sandbox {config.sandbox}: {exc}")
        raise with_plain(refused, f"sandbox {config.sandbox}: {exc.plain}") from exc
    model = setup_for(
        config.llm, settings.model_env, token_budget=config.max_tokens,
        usd_budget=config.max_usd, parallel=config.parallel,
    )  # fmt: skip
    if model is not None and trigger.context:
        model = replace(model, hint=trigger.context)
    trace = Trace()
    out_dir = settings.out_dir or Path(tempfile.mkdtemp(prefix="selfheal-out-"))
    try:
        result = heal(config, sandbox, Fanout(trace, progress, log), model=model)
    except HealInterrupted as exc:  # a cancelled run (SIGTERM) still leaves what it tried
        write_outputs(exc.result, trace, out_dir)
        exc.out_dir = out_dir
        raise
    except SandboxUnavailable as exc:
        said = (
            "selfheal did not run the repository's code: no sandbox here keeps it away from the "
            "token. {}. On GitHub's hosted runners the docker sandbox works (input sandbox: "
            "docker); on a self-hosted runner, give the job a Docker engine or bubblewrap."
        )
        raise with_plain(SandboxRefused(said.format(exc)), said.format(exc.plain)) from exc
    result.fell_back(fallback)
    result.notes.extend(notes)
    if settings.memory and settings.publish_with == "api":
        result.notes.append(
            f"memory off: the {MEMORY_BRANCH} branch is written with a git push, and publish-with "
            "api pushes nothing with git"
        )
    if keep is not None:
        refused = keep(result, scrubbed_report(result))
        if refused:
            result.notes.append(refused)
    report = write_outputs(result, trace, out_dir)
    return result, report, out_dir
