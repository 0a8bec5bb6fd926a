"""What a worker does with a job: heal here (`local`) or have the repository's Actions heal (`actions`).

    Executor.screen(trigger) -> reason to ignore it, or None   (at intake: no job for it)
    Executor.run(job) -> JobResult                             (in a worker thread)

Both get an installation token for the job's `installation.id` from appauth, so each repository is
touched only with the rights its installation granted.

`local`: the whole request runs in this process, exactly as the Action runs it: `Bot.handle` with
the server's settings (permission, mode, sandbox, test command); the report folder of each attempt
is `<runs>/job-<id>-<attempt>`.

`actions`: GitHub's runners do the heal. The repository's heal workflow is dispatched
(`workflow_dispatch` on its default branch, so the workflow file that runs is the reviewed one), and a
dispatch carries only what heal.yml declares as inputs, `ref` and `test-command`. Per event:

* `workflow_run` (red CI) is forwarded as `ref` = the failed run's head branch. The dispatched run
  heals that branch's tip (not necessarily the failed sha) and opens its PR against that branch; it
  does not know the PR the run belonged to, so it writes no progress comment there. Not forwarded,
  decided here without any API call: runs of forks (the branch name would resolve in the base
  repository, i.e. to different code), runs on selfheal's own `selfheal/…` branches, and failures
  of the heal workflow itself (forwarding those would loop).
* `issue_comment` `/heal`: what needs the conversation happens here, with the API only (no code is
  checked out or run in this process): the commenter's permission (a refusal is answered in the
  thread, 😕), 👀, resolving the target (a PR's head branch, or the default branch for an issue;
  PRs from forks are refused with the usual explanation), then the dispatch with `ref` = that branch,
  and a comment in the thread linking the run. The issue number cannot ride along, so the dispatched
  run opens its PR against the branch without linking it back here and without 🚀; in review mode it
  opens a draft (no conversation to propose in). `/heal dry-run` is refused with an explanation
  (the dispatched workflow would push); test targets (`/heal tests/x.py`) are dropped, and the
  comment says so; `/heal approve` needs no runner (it only opens the PR of an earlier proposal) and
  is handled here by `Bot.handle`.
* `workflow_dispatch` is never forwarded: it is already a run of the workflow on GitHub Actions
  (the App receives one for each dispatch it makes, too).

So with the actions executor, the target repository's heal workflow should be triggered by
`workflow_dispatch` only: if it also listens to `workflow_run` and `issue_comment` itself, those
events are healed twice.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from datetime import timedelta
from typing import Protocol

from selfheal.agent.exceptions import ConfigError, SelfhealError
from selfheal.agent.report.memory import memory_key
from selfheal.agent.report.result import HEALED, PARTIAL
from selfheal.bot.events import COMMENT, DISPATCH, WORKFLOW_RUN, Skip, Trigger, parse_event
from selfheal.bot.exceptions import BotError, CredentialsError, EventError, GitHubError
from selfheal.bot.github.appauth import AppTokens
from selfheal.bot.github.client import GitHubClient
from selfheal.bot.github.dispatch import dispatch_workflow
from selfheal.bot.github.markup import MARKER, after_marker
from selfheal.bot.github.proposal import proposal_key
from selfheal.bot.outcome import IGNORED, REFUSED, Outcome
from selfheal.bot.server.config import ServerConfig
from selfheal.bot.server.jobs import Job, JobResult, Queue
from selfheal.bot.server.log import JobLog, ServerLog
from selfheal.bot.server.metrics import ServerMetrics
from selfheal.bot.server.spend import daily_spend, model_cost, within_daily_cap
from selfheal.bot.service import Bot
from selfheal.bot.settings import BotSettings
from selfheal.sandbox.exceptions import SandboxError

DEFAULT_HEAL_MINUTES = 10.0
JOB_OVERHEAD = timedelta(minutes=15)  # clone, baseline, publish: on top of the repair search's budget


class Executor(Protocol):
    name: str

    def screen(self, trigger: Trigger) -> str | None: ...

    def run(self, job: Job) -> JobResult: ...


class _Base:
    name = "base"
    # what a job's token may do, in its one repository (metadata: read comes with any token)
    token_permissions: dict[str, str] = {}

    def __init__(
        self,
        config: ServerConfig,
        tokens: AppTokens,
        log: ServerLog,
        locks: Queue | None = None,
        metrics: ServerMetrics | None = None,
    ) -> None:
        self.config = config
        self.tokens = tokens
        self.log = log
        self.locks = locks  # the queue's lanes by failure signature
        self.metrics = metrics

    def screen(self, trigger: Trigger) -> str | None:
        return None

    def run(self, job: Job) -> JobResult:
        try:
            trigger = parse_event(job.event, job.payload)
        except EventError as exc:
            return JobResult(False, f"bad event: {exc}")
        if isinstance(trigger, Skip):
            return JobResult(True, f"{IGNORED}: {trigger.reason}")
        reason = self.screen(trigger)
        if reason:
            return JobResult(True, f"{IGNORED}: {reason}")
        try:
            return self._run(job, trigger)
        except (EventError, ConfigError) as exc:  # the same request would fail the same way again
            return JobResult(False, f"{type(exc).__name__}: {exc}")
        except CredentialsError as exc:
            return JobResult(False, f"CredentialsError: {exc}", retry=True)
        except GitHubError as exc:
            permanent = exc.status is not None and 400 <= exc.status < 500 and exc.status not in (403, 429)
            return JobResult(False, f"GitHubError: {exc}", retry=not permanent)
        except (BotError, SelfhealError, SandboxError) as exc:
            return JobResult(False, f"{type(exc).__name__}: {exc}", retry=True)

    def _run(self, job: Job, trigger: Trigger) -> JobResult:
        raise NotImplementedError

    def _client(self, job: Job, trigger: Trigger) -> tuple[GitHubClient, str]:
        installation = job.installation_id or self.tokens.installation_for(trigger.repo)
        minutes = self.config.max_minutes or DEFAULT_HEAL_MINUTES
        token = self.tokens.token(
            installation, valid_for=timedelta(minutes=minutes) + JOB_OVERHEAD,
            repo=trigger.repo, permissions=self.token_permissions,
        )  # fmt: skip
        client = GitHubClient(
            trigger.repo, token, api_url=self.config.api_url, write_interval=self.config.write_interval
        )
        return client, token

    def _settings(self) -> BotSettings:
        flags = {
            "sandbox": self.config.sandbox,
            "allow_direct_requirements": self.config.allow_direct_requirements or None,
            "test_command": self.config.test_command,
            "max_minutes": self.config.max_minutes,
            **model_flags(self.config),
        }
        return BotSettings(
            min_permission=self.config.permission,
            mode=self.config.mode,
            heal_flags={k: v for k, v in flags.items() if v is not None},
            workdir=self.config.work,
            memory=self.config.memory,
            model_env=self.config.model_env,
            proposal_key=proposal_key(self.config.webhook_secret),
            memory_key=memory_key(self.config.webhook_secret),
        )


def model_flags(config: ServerConfig) -> dict:
    return {"provider": config.provider, "model": config.model, "roles": config.roles or None,
            "max_usd": config.max_usd, "max_tokens": config.max_tokens,
            "prices": config.prices or None}  # fmt: skip


def model_inputs(config: ServerConfig) -> dict[str, str]:
    """The server's model settings as the heal workflow's dispatch inputs (heal.yml passes them to
    the action): a heal scaled out to the repository's runners uses the model and budgets the
    operator chose, with the repository's own key. Only what differs from the action's defaults,
    so a workflow that declares just `ref` and `test-command` still takes a server without a model."""
    inputs = {
        "provider": config.provider if config.provider != "none" or config.roles else "",
        "model": config.model or "",
        "roles": "\n".join(config.roles),
        "max-usd": f"{config.max_usd:g}" if config.max_usd is not None and config.provider != "none" else "",
        "max-tokens": str(config.max_tokens) if config.max_tokens is not None else "",
        "model-prices": "\n".join(config.prices),
    }
    return {name: value for name, value in inputs.items() if value}


class LocalExecutor(_Base):
    name = "local"
    # clone and push the fix and the memory branch; open the pull request; comment and react
    token_permissions = {"contents": "write", "pull_requests": "write", "issues": "write"}

    def _run(self, job: Job, trigger: Trigger) -> JobResult:
        client, token = self._client(job, trigger)
        out_dir = self.config.runs / f"job-{job.id}-{job.attempts}"
        installation = job.installation_id or 0
        spend = daily_spend(self.config)
        settings = within_daily_cap(replace(self._settings(), out_dir=out_dir), spend, installation)
        bot = Bot(client, token, settings, log=JobLog(self.log, job.id), publish_lock=self._lane(job))
        try:
            outcome = bot.handle(trigger)
            spend.record(installation, model_cost(outcome))
            if self.metrics is not None:
                self.metrics.count_model_use(outcome.report)
            return JobResult(True, describe(outcome))
        finally:
            self._observe(job, client)

    def _observe(self, job: Job, client: GitHubClient) -> None:
        if self.metrics is None:
            return
        for (operation, outcome), count in client.calls.items():
            self.metrics.github_calls.labels(operation, outcome).inc(count)
        try:
            remaining = client.rate_remaining()
        except BotError:
            return  # a metric is not worth a failed job
        self.metrics.rate_limit_remaining.labels(str(job.installation_id or "")).set(remaining)

    def _lane(self, job: Job) -> Callable[[str], AbstractContextManager[object]]:
        locks = self.locks
        if locks is None:
            return lambda signature: nullcontext()
        holder = f"job-{job.id}-{job.attempts}:{job.claim}"
        return lambda signature: locks.lane_lock(f"{job.repo.lower()}!{signature}", holder)


class ActionsExecutor(_Base):
    name = "actions"
    # dispatch the heal workflow; read branches and pull requests; comment and react
    token_permissions = {"actions": "write", "contents": "read", "pull_requests": "read", "issues": "write"}

    def screen(self, trigger: Trigger) -> str | None:
        if trigger.kind == DISPATCH:
            return "a workflow_dispatch is already a run on GitHub Actions; it is not dispatched again"
        if trigger.kind == WORKFLOW_RUN and trigger.run:
            run = trigger.run
            if run.is_fork_of(trigger.repo):
                return f"the red run is of {run.fork}; fork code is not healed"
            if run.head_branch.startswith("selfheal/"):
                return f"{run.head_branch} is selfheal's own branch; it is not healed again"
        return None

    def _run(self, job: Job, trigger: Trigger) -> JobResult:
        if trigger.kind == WORKFLOW_RUN and self._is_heal_workflow(job):
            return JobResult(True, f"{IGNORED}: the heal workflow's own run failed; not dispatched again")
        client, token = self._client(job, trigger)
        if trigger.kind == WORKFLOW_RUN:
            assert trigger.run is not None
            return self._forward(client, trigger, trigger.run.head_branch)
        assert trigger.kind == COMMENT and trigger.command is not None
        bot = Bot(client, token, self._settings(), log=JobLog(self.log, job.id))
        if trigger.command.approve:  # opens the PR of an earlier proposal: API calls only
            return JobResult(True, describe(bot.handle(trigger)))
        refusal = bot.authorize(trigger)
        if refusal:
            return JobResult(True, describe(refusal))
        if trigger.dry_run:
            self._say(client, trigger, f"{MARKER}\n" + DRY_RUN_TEXT.format(workflow=self.config.workflow))
            self._react(client, trigger, "confused")
            return JobResult(True, f"{REFUSED}: a dry run cannot be forwarded to the heal workflow")
        target = bot.resolve(trigger)
        if isinstance(target, Outcome):
            return JobResult(True, describe(target))
        self._react(client, trigger, "eyes")
        return self._forward(client, trigger, target.branch)

    def _forward(self, client: GitHubClient, trigger: Trigger, branch: str) -> JobResult:
        inputs = {"ref": branch, **model_inputs(self.config)}
        if self.config.test_command:
            inputs["test-command"] = self.config.test_command
        try:
            done = dispatch_workflow(client, self.config.workflow, client.default_branch, inputs)
        except BotError as exc:
            if trigger.comment_id:
                self._react(client, trigger, "confused")
                self._say(client, trigger, f"{MARKER}\n😕 selfheal could not start the heal workflow: {exc}")
            raise
        if trigger.kind == COMMENT:
            dropped = ""
            if trigger.command and trigger.command.targets:
                dropped = (
                    "\n\nThe test targets in the command are not passed on (the workflow takes only a "
                    "branch and a test command): the heal looks at every failing test."
                )
            self._say(
                client,
                trigger,
                f"{MARKER}\n👀 selfheal is healing `{branch}` on GitHub Actions ({done.workflow}): "
                f"{done.run_url}\nThe pull request will be opened against `{branch}`; it is not linked "
                f"back here.{dropped}",
            )
        return JobResult(True, f"dispatched {done.workflow} on {done.ref} to heal {branch}: {done.run_url}")

    def _is_heal_workflow(self, job: Job) -> bool:
        run = job.payload.get("workflow_run") or {}
        workflow = job.payload.get("workflow") or {}
        paths = (run.get("path"), workflow.get("path"))
        return any(isinstance(p, str) and p.split("@")[0].endswith(f"/{self.config.workflow}") for p in paths)

    @staticmethod
    def _say(client: GitHubClient, trigger: Trigger, body: str) -> None:
        if trigger.issue_number:
            try:
                # a branch name may hold "<!--": what follows selfheal's marker is made inert
                client.comment(trigger.issue_number, after_marker(MARKER, body))
            except BotError:
                pass  # the dispatch (or refusal) stands; a lost comment is not worth a retry

    @staticmethod
    def _react(client: GitHubClient, trigger: Trigger, content: str) -> None:
        if trigger.issue_number and trigger.comment_id:
            try:
                client.react(trigger.issue_number, trigger.comment_id, content)
            except BotError:
                pass


DRY_RUN_TEXT = (
    "selfheal heals on GitHub Actions here ({workflow}), and a dispatched workflow run always pushes its "
    "branch and opens the pull request: it cannot do a dry run. Comment `/heal` to heal for real, or "
    "run `selfheal heal` on a checkout to see the patch without pushing anything."
)


def make_executor(
    config: ServerConfig,
    tokens: AppTokens,
    log: ServerLog,
    locks: Queue | None = None,
    metrics: ServerMetrics | None = None,
) -> Executor:
    if config.executor == "actions":
        return ActionsExecutor(config, tokens, log, locks, metrics)
    return LocalExecutor(config, tokens, log, locks, metrics)


def describe(outcome: Outcome) -> str:
    text = outcome.status if outcome.message == outcome.status else f"{outcome.status}: {outcome.message}"
    publication = outcome.publication
    if publication and publication.pr_url:
        text += f"; pull request {publication.operation}: {publication.pr_url}"
    elif outcome.result and outcome.result.status in (HEALED, PARTIAL) and publication:
        text += f"; branch {publication.branch}"
    if outcome.out_dir:
        text += f"; report {outcome.out_dir}"
    return text
