"""`selfheal bot serve`: the webhook endpoint, the durable queue and the workers, in one process.

    start: config -> lock the database (one server per file) -> re-queue what a crash left running
           -> prove the App's credentials (GET /app) -> listen -> N workers
    worker: claim a job -> executor.run(job) -> record done / retry later / failed -> next
    SIGTERM/SIGINT: stop listening and claiming; running jobs get --stop-timeout seconds to
           finish, then they are put back in the queue for the next start (exit code 0)

Exit codes: 0 after a stop by signal, 2 when the server cannot start as configured (a missing
secret, an unreadable key, credentials GitHub rejects, a database in use), 1 otherwise.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import shutil
import signal
import socket
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any, TextIO

from selfheal.bot.exceptions import BotError, CredentialsError, GitHubError, QueueError, ServerConfigError
from selfheal.bot.github.appauth import AppTokens
from selfheal.bot.server.asgi import HttpServer, WebhookApp
from selfheal.bot.server.astguard import serialize_ast_parsing
from selfheal.bot.server.config import ServerConfig, check_unseen_by_jobs, config_from_args
from selfheal.bot.server.executors import Executor, make_executor
from selfheal.bot.server.jobs import Job, JobResult, Queue
from selfheal.bot.server.log import Redactor, ServerLog
from selfheal.bot.server.metrics import ServerMetrics
from selfheal.bot.server.queues import open_queue
from selfheal.bot.server.webhook import Answer, Intake

EXIT_STOPPED, EXIT_FAILED, EXIT_CONFIG = 0, 1, 2
HEARTBEAT_S = 3.0


class BotServer:
    def __init__(
        self,
        config: ServerConfig,
        queue: Queue,
        executor: Executor,
        log: ServerLog,
        metrics: ServerMetrics | None = None,
    ) -> None:
        self.config = config
        self.queue = queue
        self.executor = executor
        self.log = log
        self._stopping = threading.Event()
        self._wake = threading.Condition()
        self._running: dict[str, Job] = {}
        self._running_lock = threading.Lock()
        self._workers: list[threading.Thread] = []
        intake = Intake(
            config.webhook_secret, queue, log, screen=executor.screen, on_queued=self.wake
        )  # fmt: skip
        self.metrics = metrics or ServerMetrics(queue.counts)
        app = WebhookApp(intake, self.health, self.metrics, max_body=config.max_body,
                         read_timeout=config.read_timeout)  # fmt: skip
        self.http = HttpServer(
            config.host,
            config.port,
            app,
            max_connections=config.max_connections,
            header_timeout=config.read_timeout,
        )

    @property
    def url(self) -> str:
        host, port = self.http.address
        return f"http://{host}:{port}"

    def start(self) -> None:
        if self.config.workers > 1:
            serialize_ast_parsing()  # heals in threads: this Python's AST constructor may race
        self.http.start()
        if self.queue.shared:
            threading.Thread(target=self._keep_alive, name="heartbeat", daemon=True).start()
        for n in range(self.config.workers):
            name = f"{socket.gethostname()}:{os.getpid()}:worker-{n + 1}"
            thread = threading.Thread(target=self._work, args=(name,), name=f"worker-{n + 1}", daemon=True)
            thread.start()
            self._workers.append(thread)

    def wake(self) -> None:
        with self._wake:
            self._wake.notify_all()

    def health(self) -> Answer:
        try:
            counts = self.queue.counts()
        except QueueError as exc:
            return Answer(503, {"status": "unavailable", "error": str(exc)})
        with self._running_lock:
            busy = len(self._running)
        return Answer(
            200,
            {
                "status": "stopping" if self._stopping.is_set() else "ok",
                "executor": self.executor.name,
                "workers": self.config.workers,
                "busy": busy,
                "queue": counts,
            },
        )

    def _keep_alive(self) -> None:
        """A shared queue's jobs: beat for ours, and take back those whose server stopped beating."""
        while not self._stopping.wait(HEARTBEAT_S):
            with self._running_lock:
                running = list(self._running.values())
            try:
                for job in running:
                    self.queue.heartbeat(job)
                requeued, failed = self.queue.recover_stale()
            except QueueError as exc:
                self.log.info(f"heartbeat: {exc}")
                continue
            if requeued or failed:
                self.log.info(
                    f"{requeued} job(s) of a server that stopped queued again, {failed} failed for good"
                )
                self.wake()

    # -- workers ------------------------------------------------------------------------------------
    def _work(self, name: str) -> None:
        while not self._stopping.is_set():
            try:
                job = self.queue.claim(name)
            except QueueError as exc:
                self.log.info(f"{name}: {exc}")
                job = None
            if job is None:
                with self._wake:
                    self._wake.wait(self.config.poll_interval)
                continue
            with self._running_lock:
                self._running[name] = job
            try:
                self._run(job)
            finally:
                with self._running_lock:
                    self._running.pop(name, None)

    def _run(self, job: Job) -> None:
        self.log.info(f"job {job.id}: {job.event} on {job.repo} (attempt {job.attempts}) started")
        started = time.monotonic()
        try:
            result = self.executor.run(job)
        except Exception as exc:  # a bug: recorded (redacted) and retried like a passing failure
            result = JobResult(False, f"internal error: {type(exc).__name__}: {exc}", retry=True)
        summary = self.log.redact(result.summary)[:2000]
        try:
            status = self.queue.finish(job, JobResult(result.ok, summary, result.retry))
        except QueueError as exc:
            self.log.info(f"job {job.id}: the result could not be recorded: {exc}")
            return
        took = time.monotonic() - started
        self.metrics.job_seconds.observe(took)
        self.metrics.jobs.labels(status or "given_up").inc()
        if status is None:
            self.log.info(f"job {job.id}: finished after the server gave it up ({took:.1f}s): {summary}")
        elif status == "queued":
            self.log.info(f"job {job.id}: failed, will be retried ({took:.1f}s): {summary}")
            self.wake()
        else:
            self.log.info(f"job {job.id}: {status} ({took:.1f}s): {summary}")

    # -- stopping -----------------------------------------------------------------------------------
    def stop(self, hurry: threading.Event | None = None) -> None:
        """Stop listening and claiming; wait for running jobs, then put back what still runs."""
        self._stopping.set()
        self.wake()
        self.http.stop()
        deadline = time.monotonic() + self.config.stop_timeout
        for thread in self._workers:
            while thread.is_alive() and time.monotonic() < deadline and not (hurry and hurry.is_set()):
                thread.join(0.1)
        with self._running_lock:
            left = list(self._running.values())
        for job in left:
            try:
                if self.queue.release(job):
                    self.log.info(f"job {job.id}: still running at stop; put back in the queue")
            except QueueError as exc:
                self.log.info(f"job {job.id}: could not be put back ({exc}); the next start re-queues it")


def run_server(args: argparse.Namespace, env: Mapping[str, str], stream: TextIO | None = None) -> int:
    redact = Redactor()
    log = ServerLog(stream or sys.stderr, redact)
    try:
        config = config_from_args(args, env)
    except ServerConfigError as exc:
        log.info(f"cannot start: {exc}")
        return EXIT_CONFIG
    redact.add(config.webhook_secret.decode("utf-8", "replace"))
    os.environ.pop(config.secret_env, None)  # no child process (git, tests) inherits the secret
    lock: IO[Any] | None = None
    try:
        check_unseen_by_jobs(config)
        lock = None if config.db_url else _lock(config.db)  # PostgreSQL is shared by design
        queue = open_queue(config.queue_where, max_attempts=config.max_attempts,
                           retry_delay=config.retry_delay)  # fmt: skip
        requeued, failed = queue.recover()
        if requeued or failed:
            log.info(f"{requeued} interrupted job(s) queued again, {failed} failed for good")
        _fresh_dir(config.work)
        tokens = AppTokens.from_key_file(config.app_id, config.private_key, api_url=config.api_url,
                                         on_token=redact.add)  # fmt: skip
        app = tokens.app_name()
        metrics = ServerMetrics(queue.counts)
        server = BotServer(config, queue, make_executor(config, tokens, log, queue, metrics), log, metrics)
    except (ServerConfigError, CredentialsError, QueueError) as exc:
        log.info(f"cannot start: {exc}")
        return EXIT_CONFIG
    except GitHubError as exc:
        log.info(f"cannot start: {exc}")
        return EXIT_FAILED
    except OSError as exc:  # the address is in use, a folder cannot be made
        log.info(f"cannot start: {exc.strerror or exc}")
        return EXIT_CONFIG

    stop, hurry = threading.Event(), threading.Event()

    def on_signal(signum: int, _frame: object) -> None:
        (hurry if stop.is_set() else stop).set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.start()
        log.info(
            f"listening on {server.url} as app {app}: POST /webhook, GET /healthz, GET /metrics "
            f"(executor {config.executor}, {config.workers} worker(s), queue {config.queue_name})"
        )
        while not stop.wait(0.5):
            pass
        log.info("stopping: no new jobs; waiting for running ones")
        server.stop(hurry)
        log.info("stopped")
        return EXIT_STOPPED
    except BotError as exc:
        log.info(f"failed: {exc}")
        return EXIT_FAILED
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if lock is not None:
            lock.close()


def _lock(db: Path) -> IO[Any]:
    """Hold an exclusive lock next to the database for the life of the process (freed on any exit)."""
    db.parent.mkdir(parents=True, exist_ok=True)
    handle = open(db.with_name(db.name + ".lock"), "a+")  # noqa: SIM115 - held until the server ends
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise ServerConfigError(f"another selfheal bot server is using {db}") from None
    return handle


def _fresh_dir(path: Path) -> None:
    """Clones of heals a crash interrupted are left here (Bot.heal names them selfheal-*); they are of
    no use to anyone. Nothing else in the folder is touched."""
    path.mkdir(parents=True, exist_ok=True)
    for leftover in path.glob("selfheal-*"):
        if leftover.is_dir() and not leftover.is_symlink():
            shutil.rmtree(leftover, ignore_errors=True)
