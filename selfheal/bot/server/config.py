"""`selfheal bot serve`: its options, parsed once into one frozen value.

The webhook secret is never an option value (it would show in `ps` and shell history): the option
names the environment variable that holds it. The app's private key is a file path; the key itself
is read by appauth and kept nowhere else. Model keys and endpoints come from the server's own
environment only (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OLLAMA_HOST), never from a repository.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from selfheal.bot.exceptions import ServerConfigError

EXECUTORS = ("local", "actions")
PERMISSIONS = ("read", "triage", "write", "maintain", "admin")
DEFAULT_SECRET_ENV = "SELFHEAL_WEBHOOK_SECRET"
GITHUB_API = (
    "https://api.github.com"  # selfheal.bot.github.client.DEFAULT_API_URL; not imported: PyGithub is slow
)
MIN_SECRET_CHARS = 16
MODEL_PROVIDERS = ("none", "anthropic", "ollama")
MODEL_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OLLAMA_HOST")
DEFAULT_JOB_USD = 1.0  # one heal's dollars when --max-usd is not given, as in the Action


@dataclass(frozen=True)
class ServerConfig:
    db: Path
    app_id: str
    private_key: Path
    webhook_secret: bytes = field(repr=False)
    secret_env: str = DEFAULT_SECRET_ENV
    host: str = "127.0.0.1"
    port: int = 8080
    executor: str = "local"
    workers: int = 2
    api_url: str = GITHUB_API
    permission: str = "write"
    mode: str = "auto"
    sandbox: str = "auto"
    # local executor, docker sandbox: may a repository's requirements name another index, a VCS
    # checkout or a URL for the networked set-up
    allow_direct_requirements: bool = False
    test_command: str | None = None
    max_minutes: float | None = None
    memory: bool = True  # each repository's selfheal-memory branch: recalled from and added to
    workflow: str = "heal.yml"  # actions executor: the workflow file dispatched on the target repo
    runs_dir: Path | None = None  # default: <db stem>-runs/ next to the database
    max_attempts: int = 3
    retry_delay: float = 30.0  # seconds before the first retry; doubled for each further one
    max_body: int = 5 * 1024 * 1024
    write_interval: float = 1.0  # seconds between content-creating API calls, as GitHub asks
    stop_timeout: float = 20.0  # on SIGTERM: how long running jobs may finish before they are re-queued
    poll_interval: float = 1.0
    provider: str = "none"
    model: str | None = None
    roles: tuple[str, ...] = ()
    max_usd: float | None = None
    max_tokens: int | None = None
    prices: tuple[str, ...] = ()  # MODEL=INPUT,OUTPUT: the operator's prices over selfheal's list
    daily_usd_cap: float | None = None  # per installation and UTC day, kept in the queue's database
    model_env: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)
    max_connections: int = 256  # beyond it, uvicorn answers 503
    read_timeout: float = 10.0  # seconds a delivery's body may take to arrive
    db_url: str | None = field(default=None, repr=False)  # postgresql://…: db is then a local folder name

    @property
    def queue_where(self) -> str:
        return self.db_url or str(self.db)

    @property
    def queue_name(self) -> str:
        """For logs: no user or password of a database URL."""
        return f"postgresql://{self.db_url.rsplit('@', 1)[-1]}" if self.db_url else str(self.db)

    @property
    def runs(self) -> Path:
        return self.runs_dir or self.db.with_name(f"{self.db.stem}-runs")

    @property
    def work(self) -> Path:
        """Scratch space for the clones of running heals (<db stem>-work/ next to the database; with a
        shared PostgreSQL queue, one per server process, as each clears its own at start)."""
        if self.db_url:
            return self.db.with_name(f"{self.db.stem}-work-{os.getpid()}")
        return self.db.with_name(f"{self.db.stem}-work")


def check_unseen_by_jobs(config: ServerConfig) -> None:
    """Refuse a layout in which a job's tests could read the App's key, the queue's database or
    other jobs' folders: the local sandbox shows the tests the system's folders and selfheal's own
    installation, so none of these may lie there. (The docker sandbox shows only the workspace.)"""
    if config.sandbox not in ("local", "auto"):
        return
    from selfheal.sandbox import shown_to_tests

    places = [("the App's private key (--private-key)", config.private_key),
              ("the runs folder (--runs-dir)", config.runs), ("the work folder", config.work)]  # fmt: skip
    if not config.db_url:
        places.insert(1, ("the queue's database (--db)", config.db))
    shown = [f"{what} {path}" for what, path in places if shown_to_tests(path)]
    if shown:
        raise ServerConfigError(
            f"{'; '.join(shown)}: the local sandbox shows this place to every job's tests (it lies in "
            "the system's folders, an allowlisted file of /etc or selfheal's own installation). Move "
            "it elsewhere (/var/lib/selfheal, /etc/selfheal and /srv are never shown), or use "
            "--sandbox docker"
        )


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    add("--port", type=int, default=8080, help="port to listen on; 0 picks a free one (default 8080)")
    add(
        "--db",
        default="selfheal-bot.sqlite3",
        metavar="PATH|URL",
        help="the job queue: a SQLite file (default ./selfheal-bot.sqlite3), or postgresql://… shared by "
        "several servers",
    )
    add(
        "--executor",
        choices=EXECUTORS,
        default="local",
        help="local: heal here, in worker threads; actions: dispatch the heal workflow on the "
        "repository so GitHub's runners heal (default local)",
    )
    add("--workers", type=int, default=2, metavar="N", help="jobs run at the same time (default 2)")
    add("--app-id", required=True, metavar="ID", help="the GitHub App's id (or client id)")
    add("--private-key", required=True, type=Path, metavar="FILE", help="the App's private key (PEM file)")
    add(
        "--webhook-secret-env",
        default=DEFAULT_SECRET_ENV,
        metavar="NAME",
        help=f"environment variable that holds the webhook secret (default {DEFAULT_SECRET_ENV})",
    )
    add(
        "--api-url",
        default=GITHUB_API,
        metavar="URL",
        help=f"GitHub's REST API (default {GITHUB_API}; GitHub Enterprise: https://HOST/api/v3)",
    )
    add(
        "--permission",
        choices=PERMISSIONS,
        default="write",
        help="least access a commenter needs for /heal (default write)",
    )
    add(
        "--mode",
        choices=("auto", "review"),
        default="auto",
        help="auto: open the pull request; review: propose it in a comment first (default auto)",
    )
    add(
        "--sandbox",
        choices=("auto", "docker", "local"),
        default="auto",
        help="local executor: where the repository's code runs (default auto: docker when available)",
    )
    add(
        "--allow-direct-requirements",
        action="store_true",
        help="local executor, docker sandbox: let a repository's requirement files and pyproject.toml "
        "name another package index, a VCS checkout or a URL for the networked set-up (default: "
        "refused; the set-up downloads only from the index pip's own configuration names)",
    )
    add(
        "--test-command",
        metavar="CMD",
        help="test command for every repository, over its own [tool.selfheal] test-command "
        "(default: each repository's own, else python -m pytest)",
    )
    add("--max-minutes", type=float, metavar="M", help="time budget of one heal's repair search")
    add(
        "--memory",
        choices=("on", "off"),
        default="on",
        help="local executor: recall earlier heals from each repository's selfheal-memory branch "
        "and add each heal's record to it (default on)",
    )
    add(
        "--workflow",
        default="heal.yml",
        metavar="FILE",
        help="actions executor: the workflow file dispatched on the repository (default heal.yml)",
    )
    add(
        "--runs-dir",
        type=Path,
        metavar="DIR",
        help="local executor: where each job's report folder goes (default: <db name>-runs/ next to --db)",
    )
    add(
        "--max-attempts",
        type=int,
        default=3,
        metavar="N",
        help="attempts of a job that fails for a passing reason, e.g. GitHub unreachable (default 3)",
    )
    add(
        "--retry-delay",
        type=float,
        default=30.0,
        metavar="S",
        help="seconds before a failed job is retried; doubled each time (default 30)",
    )
    add(
        "--max-body",
        type=int,
        default=5 * 1024 * 1024,
        metavar="BYTES",
        help="largest webhook body accepted (default 5 MiB)",
    )
    add(
        "--write-interval",
        type=float,
        default=1.0,
        metavar="S",
        help="seconds between content-creating GitHub API calls (default 1, as GitHub asks)",
    )
    add("--provider", choices=MODEL_PROVIDERS,
        help="the model for every heal (default: anthropic when ANTHROPIC_API_KEY is set in the "
        "server's environment, else ollama when OLLAMA_HOST is, else none); keys and URLs come only "
        "from that environment")  # fmt: skip
    add(
        "--model",
        metavar="NAME",
        help="the provider's model (default: the repository's, else the provider's)",
    )
    add("--role", action="append", metavar="ROLE=PROVIDER[:MODEL]",
        help="another provider and/or model for one role, repeatable (as selfheal heal --role)")  # fmt: skip
    add(
        "--max-usd", type=float, metavar="USD", help=f"dollars one heal may spend (default {DEFAULT_JOB_USD})"
    )
    add("--max-tokens", type=int, metavar="N", help="model tokens one heal may spend (default: no limit)")
    add("--price", action="append", metavar="MODEL=INPUT,OUTPUT",
        help="a model's price in dollars per million input and output tokens, repeatable: a model "
        "with no price is refused, since no dollar budget could stop it")  # fmt: skip
    add("--daily-usd-cap", type=float, metavar="USD",
        help="dollars all heals of one installation may spend per UTC day; a job over it heals with the "
        "search alone and says so (default: no cap)")  # fmt: skip
    add("--max-connections", type=int, default=256, metavar="N",
        help="connections served at once; more are answered 503 (default 256)")  # fmt: skip
    add("--read-timeout", type=float, default=10.0, metavar="S",
        help="seconds a delivery's headers may take to arrive (then the connection is closed), and "
        "then its body (then 408) (default 10)")  # fmt: skip
    add("--stop-timeout", type=float, default=20.0, metavar="S",
        help="on SIGTERM, seconds running jobs may take to finish before they go back to the queue "
        "(default 20)")  # fmt: skip


def config_from_args(args: argparse.Namespace, env: Mapping[str, str]) -> ServerConfig:
    name = args.webhook_secret_env
    secret = env.get(name, "")
    if not secret.strip():
        raise ServerConfigError(
            f"the webhook secret is read from the environment variable {name}, which is not set or empty"
        )
    if len(secret) < MIN_SECRET_CHARS:
        raise ServerConfigError(
            f"the webhook secret in {name} has {len(secret)} characters; use at least {MIN_SECRET_CHARS} "
            "random ones"
        )
    if not str(args.app_id).strip():
        raise ServerConfigError("--app-id is empty")
    if not args.private_key.is_file():
        raise ServerConfigError(f"--private-key {args.private_key}: no such file")
    if not 0 <= args.port <= 65535:
        raise ServerConfigError(f"--port {args.port}: not a port number")
    for option, value, least in (("--workers", args.workers, 1), ("--max-attempts", args.max_attempts, 1),
                                 ("--max-body", args.max_body, 1024),
                                 ("--max-connections", args.max_connections, 8)):  # fmt: skip
        if value < least:
            raise ServerConfigError(f"{option} {value}: must be at least {least}")
    for option, number in (("--retry-delay", args.retry_delay), ("--write-interval", args.write_interval),
                           ("--stop-timeout", args.stop_timeout),
                           ("--read-timeout", args.read_timeout)):  # fmt: skip
        if number < 0:
            raise ServerConfigError(f"{option} {number}: must not be negative")
    if args.max_minutes is not None and args.max_minutes <= 0:
        raise ServerConfigError(f"--max-minutes {args.max_minutes}: must be positive")
    if "/" in args.workflow or not args.workflow.endswith((".yml", ".yaml")):
        raise ServerConfigError(f"--workflow {args.workflow}: a file name in .github/workflows (heal.yml)")
    api_url = args.api_url.rstrip("/")
    if not api_url.startswith(("https://", "http://")):
        raise ServerConfigError(f"--api-url {args.api_url}: not an http(s) URL")
    model = _model_settings(args, env)
    db_url = args.db if args.db.startswith(("postgresql://", "postgres://")) else None
    return ServerConfig(
        **model,
        db_url=db_url,
        db=Path("selfheal-bot-pg").resolve() if db_url else Path(args.db).expanduser().resolve(),
        app_id=str(args.app_id).strip(),
        private_key=args.private_key.expanduser().resolve(),
        webhook_secret=secret.encode("utf-8"),
        secret_env=name,
        host=args.host,
        port=args.port,
        executor=args.executor,
        workers=args.workers,
        api_url=api_url,
        permission=args.permission,
        mode=args.mode,
        sandbox=args.sandbox,
        allow_direct_requirements=args.allow_direct_requirements,
        test_command=args.test_command or None,
        max_minutes=args.max_minutes,
        memory=args.memory == "on",
        workflow=args.workflow,
        runs_dir=args.runs_dir.expanduser().resolve() if args.runs_dir else None,
        max_attempts=args.max_attempts,
        retry_delay=args.retry_delay,
        max_body=args.max_body,
        write_interval=args.write_interval,
        stop_timeout=args.stop_timeout,
        max_connections=args.max_connections,
        read_timeout=args.read_timeout,
    )


def _model_settings(args: argparse.Namespace, env: Mapping[str, str]) -> dict:
    """The model options, checked against what the server's environment holds."""
    from selfheal.agent.exceptions import ConfigError
    from selfheal.agent.model.llm.settings import parse_price_spec, parse_role_spec

    model_env = {name: env[name] for name in MODEL_ENV if env.get(name, "").strip()}
    provider = getattr(args, "provider", None) or (
        "anthropic"
        if "ANTHROPIC_API_KEY" in model_env
        else "ollama"
        if "OLLAMA_HOST" in model_env
        else "none"
    )
    roles = tuple(getattr(args, "role", None) or ())
    used = {provider}
    for spec in roles:
        try:
            used.add(parse_role_spec(spec)[1].provider or "none")
        except ConfigError as exc:
            raise ServerConfigError(f"--role {exc}") from exc
    if "anthropic" in used and "ANTHROPIC_API_KEY" not in model_env:
        raise ServerConfigError("provider anthropic: set ANTHROPIC_API_KEY in the server's environment")
    if "ollama" in used and "OLLAMA_HOST" not in model_env:
        raise ServerConfigError("provider ollama: set OLLAMA_HOST in the server's environment")
    for option, number in (("--max-usd", getattr(args, "max_usd", None)),
                           ("--max-tokens", getattr(args, "max_tokens", None)),
                           ("--daily-usd-cap", getattr(args, "daily_usd_cap", None))):  # fmt: skip
        if number is not None and number <= 0:
            raise ServerConfigError(f"{option} {number}: must be positive")
    prices = tuple(getattr(args, "price", None) or ())
    for spec in prices:
        try:
            parse_price_spec(spec)
        except ConfigError as exc:
            raise ServerConfigError(f"--price {exc}") from exc
    max_usd = getattr(args, "max_usd", None)
    return {
        "prices": prices,
        "provider": provider,
        "model": getattr(args, "model", None) or None,
        "roles": roles,
        "max_usd": DEFAULT_JOB_USD if max_usd is None and used != {"none"} else max_usd,
        "max_tokens": getattr(args, "max_tokens", None),
        "daily_usd_cap": getattr(args, "daily_usd_cap", None),
        "model_env": model_env,
    }
