"""The command line's argparse parsers, one subcommand each: what `selfheal --help` shows, and what
docs/hooks/configuration.py writes the configuration page from."""

from __future__ import annotations

import argparse
from pathlib import Path

from selfheal import __version__
from selfheal.agent.model.llm import ROLES
from selfheal.bot.server.config import add_serve_arguments


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


def add_memory_commands(commands: argparse._SubParsersAction) -> None:
    memory_cmd = commands.add_parser(
        "memory",
        allow_abbrev=False,
        help="the memory of earlier heals of a repository: list, show, forget, export",
        description="Every heal adds a record (what failed, where, what fixed it; no source beyond "
        "names and the patch's changed lines) to .selfheal/memory.jsonl of the repository, and "
        "recalls the most similar records at the start of the next heal.",
    )
    memory_cmd.add_argument("action", choices=("list", "show", "forget", "export"))
    memory_cmd.add_argument(
        "id", nargs="?", help="the record (or a unique prefix of its id) for show and forget"
    )
    memory_cmd.add_argument(
        "--repo", metavar="PATH",
        help="the repository (default: the one the last `selfheal heal` run from this folder healed, "
        "which ./.selfheal/last-heal names; else .)",
    )  # fmt: skip
    memory_cmd.add_argument("--file", metavar="PATH", help="a memory file instead of the repository's")
    memory_cmd.add_argument(
        "--github", metavar="OWNER/REPO", help="the repository's selfheal-memory branch on GitHub instead"
    )
    memory_cmd.add_argument("--server", default="https://github.com", metavar="URL", help=argparse.SUPPRESS)
    memory_cmd.add_argument(
        "--token-env", default="GITHUB_TOKEN", metavar="NAME",
        help="with --github: the environment variable holding the token (default GITHUB_TOKEN)",
    )  # fmt: skip
    report_cmd = commands.add_parser(
        "report",
        allow_abbrev=False,
        help="render a run's report.html from its output folder",
        description="Writes RUN_DIR/report.html (self-contained: it opens offline) from the folder's "
        "report.json, trace.jsonl, patch.diff and tests/.",
    )
    report_cmd.add_argument("run_dir", metavar="RUN_DIR")
    report_cmd.add_argument("--open", action="store_true", help="open it in the default browser")
