"""`selfheal` command line: parse once, heal, write the outputs, exit with a meaningful code.

Exit codes: 0 healed (or nothing to heal), 1 not healed / partial / could not complete,
2 bad input or configuration.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import traceback
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from selfheal import __version__
from selfheal.agent.config import HealConfig, build_config, choose_sandbox_for
from selfheal.agent.events import Fanout, Trace, count
from selfheal.agent.exceptions import ConfigError, HealInterrupted, SelfhealError
from selfheal.agent.loop import heal
from selfheal.agent.model.llm import ROLES
from selfheal.agent.model.prompts import PromptLibrary
from selfheal.agent.model.strategy import setup_for
from selfheal.agent.report.checkpoints import Checkpoint, CheckpointFolder, config_from_dict, with_overrides
from selfheal.agent.report.confidence import confidence_line
from selfheal.agent.report.lastheal import note_last_heal
from selfheal.agent.report.memory import memory_store, remember
from selfheal.agent.report.outputs import (
    CONVERSATION_FILE,
    OUTPUT_FILES,
    default_out_dir,
    new_test_file,
    write_outputs,
)
from selfheal.agent.report.result import ERROR, HEALED, NOTHING_TO_HEAL, HealResult
from selfheal.agent.run.workspace import apply_to_origin
from selfheal.bot.server.config import add_serve_arguments
from selfheal.cli_memory import add_memory_commands, run_memory_command
from selfheal.progress import ProgressDisplay
from selfheal.sandbox.exceptions import SandboxUnavailable
from selfheal.sandbox.secrets import (
    FilteredStream,
    ScrubbedStream,
    Scrubber,
    environment_with_secrets,
    make_undumpable,
    process_scrubber,
    reexec_without_secrets,
)

EXIT_OK, EXIT_NOT_HEALED, EXIT_BAD_INPUT = 0, 1, 2
EXIT_TERMINATED = 128 + signal.SIGTERM  # what a shell reports for a process ended by SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM (a cancelled workflow run, `docker stop`, systemd) raised where the process is, so
    that it unwinds like Ctrl-C: every `finally` runs, the sandbox is closed and its processes
    killed, temporary folders are removed, and the command says how it ended."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


def _raise_terminated(signum: int, _frame: object) -> None:
    signal.signal(signum, signal.SIG_IGN)  # once: the unwinding itself is not interrupted again
    raise Terminated(signum)


def interrupted_exit(exc: KeyboardInterrupt) -> int:
    """The exit code of a run stopped by `exc`: 143 for SIGTERM, 130 for Ctrl-C (SIGINT)."""
    return EXIT_TERMINATED if isinstance(exc, Terminated) else 130


def build_parser() -> argparse.ArgumentParser:
    # no abbreviations: `--set` would silently mean `--setup-command` (and so would any other
    # option a later release adds a longer name beside)
    parser = argparse.ArgumentParser(
        prog="selfheal",
        description="Repairs failing Python code and proves its repairs.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"selfheal {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    heal_cmd = commands.add_parser(
        "heal",
        allow_abbrev=False,
        help="heal the failing tests of a local repository",
        description="Run the repo's tests, localize what fails, search for a repair, prove it "
        "with a clean run of the full suite, and write report.json, patch.diff, summary.md, "
        "lessons.md and trace.jsonl. The repository's files stay as they are unless --apply; the heal "
        "adds its record to the repository's own .selfheal/ (git-ignored; --memory off: nothing).",
    )
    heal_cmd.add_argument("path", nargs="?", default=".", help="repository to heal (default: .)")
    heal_cmd.add_argument(
        "--test-command",
        metavar="CMD",
        help='the repo\'s test command (default: "python -m pytest", or '
        "test-command from [tool.selfheal] in its pyproject.toml)",
    )
    heal_cmd.add_argument(
        "--out",
        metavar="DIR",
        type=Path,
        help="output folder (default: a new folder under ./.selfheal/runs/)",
    )
    heal_cmd.add_argument("--apply", action="store_true", help="write the verified patch into the repository")
    heal_cmd.add_argument(
        "--max-candidates", type=int, metavar="N", help="most candidate repairs to screen (default 1500)"
    )
    heal_cmd.add_argument(
        "--max-minutes", type=float, metavar="M", help="time budget of the repair search (default 10)"
    )
    heal_cmd.add_argument(
        "--timeout", type=float, metavar="S", help="seconds one run of the test suite may take (default 600)"
    )
    heal_cmd.add_argument(
        "--test-timeout",
        type=float,
        metavar="S",
        help="seconds a single test may take before it counts as hanging (default 60)",
    )
    heal_cmd.add_argument("--seed", type=int, metavar="N", help="seed of the search order (default 0)")
    heal_cmd.add_argument(
        "--python",
        metavar="PATH",
        help="interpreter to run the tests with (default: the repo's .venv, "
        "else the Python running selfheal)",
    )
    heal_cmd.add_argument(
        "--json", action="store_true", help="print report.json to stdout instead of a summary"
    )
    heal_cmd.add_argument(
        "--sandbox",
        choices=("auto", "docker", "local"),
        help="where the repo's code runs: docker (a locked-down container), local (subprocesses, "
        "bubblewrap where available), or auto: docker when an engine answers (default)",
    )
    heal_cmd.add_argument(
        "--sandbox-image",
        metavar="IMAGE",
        help="container image for the docker sandbox (default: python:<version>-slim matching "
        "the repo's requires-python)",
    )
    heal_cmd.add_argument(
        "--setup-command",
        metavar="CMD",
        help="docker sandbox: command that installs the repo's dependencies into the sandbox's "
        "venv, with network, before any test runs (default: from requirements files/pyproject)",
    )
    heal_cmd.add_argument(
        "--sandbox-ca-bundle",
        metavar="FILE",
        help="extra CA bundle for the setup step's downloads (behind a TLS-inspecting proxy)",
    )
    heal_cmd.add_argument(
        "--allow-direct-requirements",
        action="store_true",
        help="docker sandbox: let the repository's requirement files and pyproject.toml name another "
        "package index (--index-url, --extra-index-url, --find-links, --trusted-host), a VCS checkout "
        "(git+...) or a URL for the networked set-up; off, those are refused and the set-up downloads "
        "only from the index pip's own configuration names",
    )
    heal_cmd.add_argument(
        "--provider",
        choices=("none", "anthropic", "ollama", "llamacpp"),
        help="a model for diagnosis and repair besides the search (default: provider in "
        "[tool.selfheal], else none); its key, URL and model come from [tool.selfheal.llm] and the "
        "environment: "
        "ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL / "
        "SELFHEAL_ANTHROPIC_MODEL, OLLAMA_HOST / SELFHEAL_OLLAMA_MODEL, SELFHEAL_LLAMACPP_MODEL",
    )
    heal_cmd.add_argument(
        "--model",
        metavar="NAME",
        help="the main provider's model (llamacpp: the path of a .gguf file); default: model in "
        "[tool.selfheal.llm], else SELFHEAL_<PROVIDER>_MODEL, else the provider's default",
    )
    heal_cmd.add_argument(
        "--role",
        action="append",
        metavar="ROLE=PROVIDER[:MODEL]",
        help="another provider and/or model for one role, repeatable, e.g. "
        "--role generator=ollama:qwen2.5-coder:7b. Everything after the first ':' is the model "
        "(Ollama tags have colons). Roles: " + ", ".join(ROLES),
    )
    heal_cmd.add_argument(
        "--max-iterations",
        type=int,
        metavar="N",
        help="repair rounds: each one repairs what the last left failing (default 3)",
    )
    heal_cmd.add_argument(
        "--parallel", type=int, metavar="N",
        help="with a model: repair answers asked at once, from different angles; the verdict, then "
        "tests passed, then patch size picks the winner (default 2)",
    )  # fmt: skip
    heal_cmd.add_argument("--max-tokens", type=int, metavar="N", help="model tokens one heal may spend")
    heal_cmd.add_argument("--max-usd", type=float, metavar="USD", help="model dollars one heal may spend")
    heal_cmd.add_argument(
        "--price", action="append", metavar="MODEL=INPUT,OUTPUT",
        help="a model's price in dollars per million input and output tokens, repeatable; over "
        "selfheal's list (a model with no price counts as free, which a dollar budget cannot stop)",
    )  # fmt: skip
    heal_cmd.add_argument(
        "--no-namespaces", action="store_true", help="do not use bubblewrap namespaces even where available"
    )
    heal_cmd.add_argument(
        "--accept-unsafe-sandbox",
        action="store_true",
        help="where the local sandbox cannot contain the tests (as root, when its unprivileged uid "
        "cannot reach the interpreter), run them anyway instead of refusing",
    )
    heal_cmd.add_argument(
        "--disk-mb", type=int, metavar="MB",
        help="how much the tests may write into the workspace before the heal stops (default 1024)",
    )  # fmt: skip
    heal_cmd.add_argument(
        "--keep-workspace",
        action="store_true",
        help="keep the temporary copy of the repository for inspection",
    )
    heal_cmd.add_argument(
        "--memory", choices=("on", "off"),
        help="recall earlier heals of this repository from .selfheal/memory.jsonl and add this one "
        "(default on; [tool.selfheal] memory = false turns it off)",
    )  # fmt: skip
    heal_cmd.add_argument(
        "--prompts", metavar="DIR",
        help="a folder of prompt files (<role>.yaml) to use instead of the bundled ones",
    )  # fmt: skip
    heal_cmd.add_argument(
        "--set", action="append", metavar="llm.KEY=VALUE",
        help="one model setting that has no option of its own, as in [tool.selfheal.llm] "
        "(repeatable), e.g. --set llm.timeout=30 --set llm.max-retries=1",
    )  # fmt: skip
    replay_cmd = commands.add_parser(
        "replay",
        allow_abbrev=False,
        help="resume an earlier run from one of its checkpoints, with changes",
        description="Every heal saves the state at the start of each repair round in "
        "RUN/checkpoints/. replay starts again from round N of RUN with that state (the fixes kept "
        "so far, the tests still failing) and the run's configuration, changed by --set: e.g. "
        "--set provider=ollama, --set llm.model=claude-opus-4-7, "
        "--set role.generator=ollama:qwen2.5-coder:7b, "
        "--set prompts=DIR (another prompt version), --set max-candidates=500. The repository must "
        "still be at the commit the run healed. Outputs go to a new folder beside RUN.",
    )
    replay_cmd.add_argument("run", metavar="RUN", help="the run's output folder (it holds checkpoints/)")
    replay_cmd.add_argument(
        "--from-iteration", type=int, required=True, metavar="N", help="the round to start from"
    )
    replay_cmd.add_argument(
        "--set", action="append", metavar="KEY=VALUE", help="change one setting (repeatable)"
    )
    replay_cmd.add_argument("--out", metavar="DIR", help="output folder (default: RUN-replay-N beside RUN)")
    replay_cmd.add_argument("--json", action="store_true", help="print report.json to stdout")
    commands.add_parser(
        "action",
        allow_abbrev=False,
        help="the GitHub Action entrypoint: act on the workflow's event",
        description="Reads the event the runner provides (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH) and "
        "the action's inputs (INPUT_*), heals what the event asks for, and answers on GitHub: "
        "reactions, a progress comment, a pull request. Outputs go to GITHUB_OUTPUT, a job summary "
        "to GITHUB_STEP_SUMMARY. Exit code 0 unless selfheal itself failed (1) or an input is "
        "invalid (2); whether the code was healed is the `status` output.",
    )
    bot_cmd = commands.add_parser(
        "bot",
        allow_abbrev=False,
        help="the webhook bot server, for GitHub App installs across many repositories",
        description="Run selfheal as a GitHub App: receive its webhook deliveries, queue them durably "
        "and heal here or on the repositories' own Actions runners.",
    )
    bot_commands = bot_cmd.add_subparsers(dest="bot_command", metavar="COMMAND")
    bot_commands.required = True
    serve_cmd = bot_commands.add_parser(
        "serve",
        allow_abbrev=False,
        help="serve the webhook endpoint and run the queued jobs",
        description="Listens for the App's webhook deliveries on POST /webhook (X-Hub-Signature-256 "
        "verified with the secret in the environment variable --webhook-secret-env names), dedupes "
        "them by X-GitHub-Delivery, queues what selfheal acts on in a SQLite file, and runs the jobs "
        "with an installation token of the App: heals here (--executor local) or dispatches the "
        "heal workflow on the repository (--executor actions). GET /healthz answers with the queue's "
        "counts. SIGTERM stops it gracefully; jobs that did not finish run again at the next start.",
    )
    add_serve_arguments(serve_cmd)
    bench_cmd = commands.add_parser(
        "bench",
        allow_abbrev=False,
        help="the benchmark: heal the tasks of evaluation/tasks (--suite realbugs: real bugs rebuilt "
        "from PyPI releases) and check them with hidden tests",
        description="Runs `python -m evaluation.bench` from a clone of the repository with these "
        "arguments; `selfheal bench --help` shows them.",
        add_help=False,  # --help goes through to the benchmark's own parser
        prefix_chars="+",  # so every --option lands in `args` unparsed
    )
    bench_cmd.add_argument("args", nargs=argparse.REMAINDER)
    add_memory_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """`argv` None: started as the program (`selfheal …`, `python -m selfheal …`). Then a command
    that holds secrets first re-executes itself without them in its environment (see
    selfheal.sandbox.secrets) and reads them from the mapping they were handed over in. Called
    with `argv` (in-process, from tests), it uses os.environ as it is."""
    args = build_parser().parse_args(argv)
    if args.command == "bench":
        return run_bench(args.args)
    named = _named_secrets(args)
    if argv is None:
        reexec_without_secrets(sys.argv[1:], also=named)
        env = environment_with_secrets()
        make_undumpable()
        scrubber = process_scrubber()
    else:
        env = dict(os.environ)
        scrubber = Scrubber.from_environment(env, also=named)
    if argv is None and args.command in ("heal", "replay", "action"):  # the program, not a caller's process
        signal.signal(signal.SIGTERM, _raise_terminated)
    # the Action writes its own annotations, and guards what it prints itself
    with scrubbed_std_streams(scrubber, guard_commands=args.command != "action"):
        if args.command == "heal":
            return run_heal(args, env, scrubber)
        if args.command == "replay":
            return run_replay(args, env, scrubber)
        if args.command == "action":
            from selfheal.action.main import run as run_action

            return run_action(env, scrub=scrubber)
        if args.command in ("memory", "report"):
            return run_memory_command(args, env)
        if args.command == "bot":
            from selfheal.bot.server.serve import run_server

            return run_server(args, env)
    return EXIT_BAD_INPUT


def _named_secrets(args: argparse.Namespace) -> tuple[str, ...]:
    """Variables that hold a secret whatever their name: the bot's webhook secret may be in any,
    and so may the token `selfheal memory --github` reads."""
    names = [getattr(args, "webhook_secret_env", None), getattr(args, "token_env", None)]
    return tuple(name for name in names if name)


@contextmanager
def scrubbed_std_streams(scrubber: Scrubber, *, guard_commands: bool = True) -> Iterator[None]:
    """stdout and stderr scrubbed while a command runs: the summary lines, --json, the progress
    display, an error message or a traceback all go through them; with `guard_commands`, no line
    of theirs is a workflow command either."""
    from selfheal.action.runner import CommandGuard

    saved = sys.stdout, sys.stderr
    streams: list[TextIO] = [ScrubbedStream(stream, scrubber) for stream in saved]  # type: ignore[misc]
    if guard_commands:
        # `selfheal heal` may be a step of a GitHub workflow, whose runner obeys `::` lines on its
        # output; what it prints carries the repository's text (a failure, an import error)
        streams = [FilteredStream(stream, CommandGuard().feed) for stream in streams]  # type: ignore[misc]
    sys.stdout, sys.stderr = streams
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout, sys.stderr = saved


def run_bench(argv: list[str]) -> int:
    """`selfheal bench`: evaluation/ sits in a clone, not in the package, and nothing in selfheal may
    import it, so the benchmark runs as its own process. It is `python -m evaluation.bench` with the
    clone on sys.path rather than as the working directory, so relative paths (--json out.json) mean
    what they mean where the user typed them."""
    import subprocess

    here = Path.cwd().resolve()
    candidates = [here, *here.parents, Path(__file__).resolve().parents[1]]
    root = next((d for d in candidates if (d / "evaluation" / "bench" / "__main__.py").is_file()), None)
    if root is None:
        return _fail(
            "selfheal bench runs from a clone of the repository: the tasks and the runner (evaluation/) "
            "are not part of the installed package. git clone the repository, then from its folder: "
            "pip install -e '.[bench]' && selfheal bench --subset smoke",
            EXIT_BAD_INPUT,
        )
    boot = (
        "import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); "
        "runpy.run_module('evaluation.bench', run_name='__main__', alter_sys=True)"
    )
    try:
        return subprocess.run([sys.executable, "-c", boot, str(root), *argv]).returncode
    except KeyboardInterrupt:
        return 130


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
        return _fail(f"selfheal: {exc}", EXIT_BAD_INPUT)

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
        return _fail(f"selfheal: {exc}", EXIT_BAD_INPUT)
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
        return _fail(
            f"selfheal: --sandbox-ca-bundle {config.sandbox_ca_bundle}: no such file", EXIT_BAD_INPUT
        )
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
        return _fail(f"selfheal: --sandbox {config.sandbox}: {exc}", EXIT_BAD_INPUT)
    except ConfigError as exc:
        return _fail(f"selfheal: {exc}", EXIT_BAD_INPUT)
    except SelfhealError as exc:
        return _fail(f"selfheal: {exc}", EXIT_NOT_HEALED)
    except HealInterrupted as exc:  # the heal stopped where it was: its report says what was tried
        return _write_interrupted(exc, trace, out_dir, scrubber)
    except KeyboardInterrupt as exc:
        how = str(exc) or "interrupted"
        return _fail(f"selfheal: {how}; the repository was not changed", interrupted_exit(exc))
    except Exception as exc:
        if os.environ.get("SELFHEAL_DEBUG"):
            traceback.print_exc()
        return _fail(
            f"selfheal: internal error: {exc!r} (set SELFHEAL_DEBUG=1 for the traceback)", EXIT_NOT_HEALED
        )

    result.fell_back(fallback)
    try:
        report = write_outputs(result, trace, out_dir, scrubber)
    except SelfhealError as exc:  # a full disk, a folder it may not write: said, not a traceback
        return _fail(f"selfheal: {exc}", EXIT_NOT_HEALED)
    except KeyboardInterrupt as exc:
        how = str(exc) or "interrupted"
        return _fail(f"selfheal: {how} while writing {out_dir}; the repository was not changed",
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
        _print_outcome(result, report, out_dir, applied)
    return EXIT_OK if result.status in (HEALED, NOTHING_TO_HEAL) else EXIT_NOT_HEALED


def _write_interrupted(exc: HealInterrupted, trace: Trace, out_dir: Path, scrubber: Scrubber) -> int:
    """The report of a heal a signal stopped, then the exit code of that signal (143, 130)."""
    code = interrupted_exit(exc.cause)
    try:
        write_outputs(exc.result, trace, out_dir, scrubber)
    except (SelfhealError, KeyboardInterrupt) as error:
        return _fail(f"selfheal: {exc}; its report could not be written ({error})", code)
    return _fail(f"selfheal: {exc}; report: {out_dir / 'report.json'}; the repository was not changed", code)


def _apply(config: HealConfig, result: HealResult) -> str | None:
    if result.status != HEALED or not result.changes:
        return None
    try:
        written = apply_to_origin(config.repo, result.changes, result.base_texts, result.test_files)
    except SelfhealError as exc:
        return f"not applied: {exc}"
    return "applied to " + ", ".join(written)


def _print_outcome(result: HealResult, report: dict, out_dir: Path, applied: str | None) -> None:
    err = sys.stderr
    status = result.status.replace("_", " ")
    if result.status == HEALED and result.verdict:
        fixed = len(result.verdict.healed)
        err.write(
            f"healed: {count(fixed, 'failing test')} {'passes' if fixed == 1 else 'pass'} now, no test "
            f"broke (verdict: all {len(result.verdict.rules)} rules hold)\n"
        )
        for fix in result.fixes:
            err.write(f"  fix: {fix.description}\n")
        if report.get("confidence"):
            err.write(f"  {confidence_line(report['confidence'])}\n")
        for risk in result.overfit_risks:
            err.write(f"  ⚠ {risk}\n")
        if result.bypass:
            skipped = ", ".join(result.bypass)
            err.write(f"  ⚠ only a bypass was found: the patch skips the failing path in {skipped}\n")
        disagreement = result.disagreement
        if disagreement is not None and disagreement.open:
            err.write(
                f"  ⚠ the tests allow more than one fix: {len(disagreement.standing)} plausible patches "
                "behave differently"
                + (f", e.g. on {disagreement.inputs[0].call}" if disagreement.inputs else "")
                + " (summary.md shows where and a test that decides)\n"
            )
    elif result.status == NOTHING_TO_HEAL:
        err.write(
            "nothing to heal: no test fails"
            + (f" ({len(result.flaky)} flaky)" if result.flaky else "")
            + "\n"
        )
    else:
        err.write(f"{status}" + (f": {result.error}" if result.error else "") + "\n")
        # a heal that stopped with an error has one lesson, which says the error again
        for lesson in report["lessons"][:2] if result.status != ERROR else ():
            err.write(f"  - {lesson}\n")
    files = [*OUTPUT_FILES, *([CONVERSATION_FILE] if result.conversation else [])]
    files += ["tests/"] if result.test_files else []
    err.write(f"outputs: {out_dir}/ ({', '.join(files)})\n")
    shipped = report["new_tests"]
    if shipped:
        proofs = sum(t["kind"] == "fail_to_pass" for t in shipped)
        proved = "fails before the fix and passes" if proofs == 1 else "fail before the fix and pass"
        # where the files are now: in the output folder, until --apply writes them into the repository
        where = ", ".join(str(new_test_file(out_dir, result, path)) for path in sorted(result.test_files))
        err.write(f"new tests: {proofs} {proved} with it, {count(len(shipped) - proofs, 'guard')}: {where}\n")
    if result.patch:
        err.write(
            f"apply with: git -C {result.apply_root} apply {out_dir / 'patch.diff'}"
            + (
                "   (the new tests are not in the patch; --apply writes both)\n"
                if result.test_files
                else "   (or re-run with --apply)\n"
            )
        )
    if applied:
        err.write(f"{applied}\n")


def _fail(message: str, code: int) -> int:
    sys.stderr.write(message + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
