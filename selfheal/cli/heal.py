"""`selfheal heal` and `selfheal replay`: one heal with its outputs, its memory and --apply."""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from selfheal.agent.config import HealConfig, build_config, choose_sandbox_for
from selfheal.agent.events import Fanout, Trace, count
from selfheal.agent.exceptions import ConfigError, HealInterrupted, SelfhealError
from selfheal.agent.loop import heal
from selfheal.agent.model.llm import ROLES
from selfheal.agent.model.prompts import PromptLibrary
from selfheal.agent.model.strategy import setup_for
from selfheal.agent.report.checkpoints import Checkpoint, CheckpointFolder, config_from_dict, with_overrides
from selfheal.agent.report.lastheal import note_last_heal
from selfheal.agent.report.memory import memory_store, remember
from selfheal.agent.report.outputs import default_out_dir, write_outputs
from selfheal.agent.report.result import HEALED, NOTHING_TO_HEAL, HealResult
from selfheal.agent.run.workspace import apply_to_origin
from selfheal.cli.exits import EXIT_BAD_INPUT, EXIT_NOT_HEALED, EXIT_OK, fail, interrupted_exit
from selfheal.cli.outcome import print_outcome
from selfheal.progress import ProgressDisplay
from selfheal.sandbox.exceptions import SandboxUnavailable
from selfheal.sandbox.secrets import Scrubber


def run_heal(args: argparse.Namespace, env: Mapping[str, str], scrubber: Scrubber) -> int:
    repo = Path(args.path).expanduser().resolve()
    try:
        if not repo.is_dir():
            raise ConfigError(f"{args.path}: {'not a directory' if repo.exists() else 'no such directory'}")
        config = build_config(repo, {
            "test_command": args.test_command, "out_dir": args.out, "apply": args.apply or None,
            "max_candidates": args.max_candidates, "max_minutes": args.max_minutes,
            "timeout": args.timeout, "test_timeout": args.test_timeout, "seed": args.seed,
            "python": args.python, "namespaces": False if args.no_namespaces else None,
            "accept_unsafe_sandbox": args.accept_unsafe_sandbox or None, "disk_mb": args.disk_mb,
            "keep_workspace": args.keep_workspace or None,
            "sandbox": args.sandbox, "sandbox_image": args.sandbox_image,
            "setup_command": args.setup_command, "sandbox_ca_bundle": args.sandbox_ca_bundle,
            "allow_direct_requirements": args.allow_direct_requirements or None,
            "provider": args.provider, "max_tokens": args.max_tokens, "max_usd": args.max_usd,
            "model": args.model, "roles": args.role, "max_iterations": args.max_iterations,
            "prices": args.price,
            "parallel": args.parallel, "memory": {"on": True, "off": False}.get(args.memory or ""),
        }, env)  # fmt: skip
        not_model = [a for a in args.set or [] if not a.strip().startswith("llm.")]
        if not_model:
            raise ConfigError(f"--set {not_model[0]!r}: heal takes only model settings here (llm.KEY=VALUE)")
        config = with_overrides(config, args.set or [])
    except ConfigError as exc:
        return fail(f"selfheal: {exc}", EXIT_BAD_INPUT)

    if args.prompts:
        config = replace(config, extra={**config.extra, "prompts": args.prompts})
    return execute(config, env, scrubber, as_json=args.json)


def run_replay(args: argparse.Namespace, env: Mapping[str, str], scrubber: Scrubber) -> int:
    """Resume a run from a checkpoint, with changes: `selfheal replay RUN --from-iteration N --set k=v`."""
    run = Path(args.run).expanduser().resolve()
    try:
        checkpoint = Checkpoint.load(run, args.from_iteration)
        config = with_overrides(config_from_dict(checkpoint.config), args.set or [])
        if not config.repo.is_dir():
            raise ConfigError(f"the run healed {config.repo}, which is not there any more")
        out = (
            Path(args.out).expanduser().resolve()
            if args.out
            else run.parent / f"{run.name}-replay-{args.from_iteration}"
        )
        config = replace(config, out_dir=out, apply=False)
    except ConfigError as exc:
        return fail(f"selfheal: {exc}", EXIT_BAD_INPUT)
    sys.stderr.write(
        f"replaying {run.name} from iteration {checkpoint.iteration} "
        f"({count(len(checkpoint.fixes), 'fix', 'fixes')} kept, "
        f"{count(len(checkpoint.remaining), 'test')} to heal)"
        + (f" with {', '.join(args.set)}" if args.set else "")
        + "\n"
    )
    return execute(config, env, scrubber, as_json=args.json, resume=checkpoint)


def execute(
    config: HealConfig,
    env: Mapping[str, str],
    scrubber: Scrubber,
    *,
    as_json: bool = False,
    resume: Checkpoint | None = None,
) -> int:
    """One heal with its outputs: the part `heal` and `replay` share. Keys come from `env`; every
    output is scrubbed with `scrubber`."""
    if config.sandbox_ca_bundle and not Path(config.sandbox_ca_bundle).is_file():
        return fail(f"selfheal: --sandbox-ca-bundle {config.sandbox_ca_bundle}: no such file", EXIT_BAD_INPUT)
    trace = Trace()
    out_dir = (config.out_dir or default_out_dir(Path.cwd())).resolve()
    try:
        sandbox, fallback = choose_sandbox_for(config)
        model = setup_for(
            config.llm,
            env,
            token_budget=config.max_tokens,
            usd_budget=config.max_usd,
            parallel=config.parallel,
        )
        if model is not None and config.extra.get("prompts"):
            model = replace(model, prompts=PromptLibrary(Path(config.extra["prompts"]).expanduser()))
            model.prompts.check(ROLES)
        with ProgressDisplay() as progress:
            result = heal(
                config, sandbox, Fanout(trace, progress), model=model,
                checkpoints=CheckpointFolder(out_dir, scrubber), resume=resume,
            )  # fmt: skip
    except SandboxUnavailable as exc:
        return fail(f"selfheal: --sandbox {config.sandbox}: {exc}", EXIT_BAD_INPUT)
    except ConfigError as exc:
        return fail(f"selfheal: {exc}", EXIT_BAD_INPUT)
    except SelfhealError as exc:
        return fail(f"selfheal: {exc}", EXIT_NOT_HEALED)
    except HealInterrupted as exc:  # the heal stopped where it was: its report says what was tried
        return _write_interrupted(exc, trace, out_dir, scrubber)
    except KeyboardInterrupt as exc:
        how = str(exc) or "interrupted"
        return fail(f"selfheal: {how}; the repository was not changed", interrupted_exit(exc))
    except Exception as exc:
        if os.environ.get("SELFHEAL_DEBUG"):
            traceback.print_exc()
        return fail(
            f"selfheal: internal error: {exc!r} (set SELFHEAL_DEBUG=1 for the traceback)", EXIT_NOT_HEALED
        )

    result.fell_back(fallback)
    try:
        report = write_outputs(result, trace, out_dir, scrubber)
    except SelfhealError as exc:  # a full disk, a folder it may not write: said, not a traceback
        return fail(f"selfheal: {exc}", EXIT_NOT_HEALED)
    except KeyboardInterrupt as exc:
        how = str(exc) or "interrupted"
        return fail(f"selfheal: {how} while writing {out_dir}; the repository was not changed",
                     interrupted_exit(exc))  # fmt: skip
    try:
        if config.memory:
            remember(memory_store(config), result, report)
    except SelfhealError as exc:  # the heal stands; only its memory is lost, and that is said
        print(f"selfheal: {exc}; this heal is not remembered", file=sys.stderr)
    if config.out_dir is None:  # the outputs went under ./.selfheal/runs/: `selfheal memory` looks there
        try:
            note_last_heal(Path.cwd(), config.repo)
        except SelfhealError as exc:
            print(f"selfheal: {exc}", file=sys.stderr)
    applied = _apply(config, result) if config.apply else None
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        print_outcome(result, report, out_dir, applied)
    return EXIT_OK if result.status in (HEALED, NOTHING_TO_HEAL) else EXIT_NOT_HEALED


def _write_interrupted(exc: HealInterrupted, trace: Trace, out_dir: Path, scrubber: Scrubber) -> int:
    """The report of a heal a signal stopped, then the exit code of that signal (143, 130)."""
    code = interrupted_exit(exc.cause)
    try:
        write_outputs(exc.result, trace, out_dir, scrubber)
    except (SelfhealError, KeyboardInterrupt) as error:
        return fail(f"selfheal: {exc}; its report could not be written ({error})", code)
    return fail(f"selfheal: {exc}; report: {out_dir / 'report.json'}; the repository was not changed", code)


def _apply(config: HealConfig, result: HealResult) -> str | None:
    if result.status != HEALED or not result.changes:
        return None
    try:
        written = apply_to_origin(config.repo, result.changes, result.base_texts, result.test_files)
    except SelfhealError as exc:
        return f"not applied: {exc}"
    return "applied to " + ", ".join(written)
