"""One GitHub request, start to end: authorize, acknowledge, resolve, clone, heal, publish, report.

    Bot.handle(trigger) -> Outcome

Refusals, "nothing to heal" and honest failures to heal are outcomes; selfheal's own failures
(GitHub or git not answering, a bad event) raise BotError after the requester has been told.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from selfheal.agent.events import EventSink
from selfheal.agent.exceptions import SelfhealError
from selfheal.agent.report.result import ERROR, HEALED, NOTHING_TO_HEAL, PARTIAL, HealResult
from selfheal.bot.change import change_for
from selfheal.bot.events import COMMENT, DISPATCH, WORKFLOW_RUN, Skip, Trigger
from selfheal.bot.exceptions import BotError, SandboxFailed, public_words
from selfheal.bot.github.client import PERMISSION_RANK, GitHubClient
from selfheal.bot.github.gitdata import ApiStage
from selfheal.bot.github.gitops import Remote
from selfheal.bot.github.markup import MARKER
from selfheal.bot.github.memorybranch import MEMORY_BRANCH, MemoryBranch
from selfheal.bot.github.progress import ProgressComment
from selfheal.bot.github.proposal import Proposal
from selfheal.bot.github.publish import NONE, Change, Publication, Publisher, publish_pull, push_branch
from selfheal.bot.healrun import recall, remember, run_heal
from selfheal.bot.outcome import IGNORED, PROPOSED, REFUSED, Outcome, Target
from selfheal.bot.review import approve, propose
from selfheal.bot.settings import BotSettings
from selfheal.bot.talk import Talk
from selfheal.sandbox.addresses import with_plain
from selfheal.sandbox.exceptions import SandboxError

SHA = re.compile(r"^[0-9a-f]{40}$")


class Bot:
    def __init__(
        self,
        client: GitHubClient,
        token: str,
        settings: BotSettings,
        log: EventSink | None = None,
        *,
        publish_lock: Callable[[str], AbstractContextManager[object]] = lambda signature: nullcontext(),
    ) -> None:
        self.publish_lock = publish_lock  # held by failure signature while a job pushes and opens its PR
        self.client = client
        self.token = token
        self.settings = settings
        self.log = log
        self.talk = Talk(client, settings.notice)
        self.login: str | None = None  # selfheal's own login, as its 👀 reaction showed it

    # -- the request ------------------------------------------------------------------------------
    def handle(self, trigger: Trigger | Skip) -> Outcome:
        if isinstance(trigger, Skip):
            return Outcome(IGNORED, trigger.reason)
        # a dispatch needs write access on GitHub's side already, and its sender may be an App's bot
        if trigger.requester and trigger.kind == COMMENT:
            refusal = self.authorize(trigger)
            if refusal:
                return refusal
        try:
            if trigger.command and trigger.command.approve:
                return approve(self.talk, self.settings, trigger, self.talk.react(trigger, "eyes"))
            target = self.resolve(trigger)
            if isinstance(target, Outcome):
                return target  # a refusal (a fork) says so with 😕 alone: 👀 means selfheal accepted
            self.login = self.talk.react(trigger, "eyes")
            return self.heal(trigger, target)
        except (BotError, SelfhealError, SandboxError) as exc:
            self.talk.react(trigger, "confused")
            self.talk.tell_failure(trigger, f"😕 selfheal could not finish: {public_words(exc)}")
            if isinstance(exc, SandboxError):  # a BotError for whoever runs the bot: a clear failure
                failed = SandboxFailed(f"the sandbox failed: {exc}")
                raise with_plain(failed, f"the sandbox failed: {public_words(exc)}") from exc
            raise
        except KeyboardInterrupt as exc:  # the run was cancelled (SIGTERM, SIGINT): say so, then stop
            self.talk.react(trigger, "confused")
            how = str(exc) or "interrupted"
            self.talk.tell_failure(
                trigger, f"😕 selfheal was {how} before it finished; nothing was published."
            )
            raise

    def authorize(self, trigger: Trigger) -> Outcome | None:
        assert trigger.requester
        role = self.client.permission(trigger.requester)
        needed = self.settings.min_permission
        if PERMISSION_RANK.get(role, 0) >= PERMISSION_RANK[needed]:
            return None
        message = (
            f"@{trigger.requester}, selfheal runs for people with **{needed}** access to "
            f"{self.client.repo_name} or more, and your access is **{role}**. A maintainer can ask "
            f"by commenting `/heal`."
        )
        if trigger.issue_number:
            self.talk.react(trigger, "confused")
            self.talk.say(trigger, f"{MARKER}\n{message}")
        return Outcome(REFUSED, f"{trigger.requester} has {role} access; {needed} is needed")

    def resolve(self, trigger: Trigger) -> Target | Outcome:
        repo = self.client.repo_name
        if trigger.kind == COMMENT and trigger.is_pull_request:
            assert trigger.issue_number
            pull = self.client.pull(trigger.issue_number)
            if pull.is_fork(repo):
                return self._refuse_fork(trigger, pull.head_repo or "deleted since")
            return Target(pull.head_sha, pull.head_ref, f"`{pull.head_ref}` (#{pull.number})")
        if trigger.kind == WORKFLOW_RUN:
            run = trigger.run
            assert run is not None
            if run.is_fork_of(repo):
                return self._refuse_fork_run(trigger)
            if run.head_branch.startswith("selfheal/"):
                return Outcome(IGNORED, f"{run.head_branch} is selfheal's own branch; it is not healed again")
            return Target(run.head_sha, run.head_branch, f"`{run.head_branch}` after the red run {run.url}")
        branch = (trigger.ref if trigger.kind == DISPATCH else None) or self.client.default_branch
        if SHA.match(branch):
            return Target(branch, self.client.default_branch, f"`{branch[:12]}`")
        sha = self.client.branch_sha(branch)
        if sha is None:
            return Outcome(ERROR, f"branch {branch!r} does not exist in {repo}")
        where = f"`{branch}`" + (f" for #{trigger.issue_number}" if trigger.issue_number else "")
        return Target(sha, branch, where)

    # -- heal and publish -------------------------------------------------------------------------
    def heal(self, trigger: Trigger, target: Target) -> Outcome:
        progress = self.talk.start_progress(trigger, target.title, self.login)
        workdir = Path(tempfile.mkdtemp(prefix="selfheal-", dir=self.settings.workdir))
        try:
            return self._heal_in(workdir, trigger, target, progress)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _heal_in(
        self, workdir: Path, trigger: Trigger, target: Target, progress: ProgressComment | None
    ) -> Outcome:
        dry_run = self.settings.dry_run or trigger.dry_run
        remote = Remote(self.client.clone_url, self.token, stall_s=self.client.timeout)
        checkout = remote.clone(workdir / "repo", sha=target.sha, branch=target.branch)
        # the memory branch is written with a git push, which publish-with api never makes
        uses_memory = self.settings.memory and self.settings.publish_with == "git"
        memory = (
            MemoryBranch(remote, self.settings.workdir, self.settings.author, key=self.settings.memory_key)
            if uses_memory
            else None
        )
        recalled_from = recall(memory, workdir, self.log)
        # a heal of any other branch (a pull request's) runs code its author chose: what it found
        # is not written where every later heal of the repository reads it
        writes = memory is not None and not dry_run and target.branch == self.client.default_branch
        unwritten = (
            ()
            if writes or memory is None or dry_run
            else (
                f"not remembered: only heals of the default branch ({self.client.default_branch}) add to "
                f"{MEMORY_BRANCH}",
            )
        )
        keep = (
            partial(remember, memory, branch=target.branch, run_url=self.settings.run_url, log=self.log)
            if memory is not None and writes
            else None
        )
        result, report, out_dir = run_heal(
            self.settings, trigger, checkout, progress, self.log, recalled_from, unwritten, keep
        )
        outcome = Outcome(result.status, result.error or result.status, result, report, None, out_dir)

        if result.status not in (HEALED, PARTIAL) or not result.changes:
            self.talk.conclude(
                trigger, progress, self._not_healed_text(result, report), ok=result.status == NOTHING_TO_HEAL
            )
            return outcome
        change = change_for(result, report, target, out_dir, self.settings)
        if dry_run:
            text = "**Dry run**: no branch pushed, no pull request opened. The patch would be:\n\n"
            text += _diff(result)
            self.talk.conclude(trigger, progress, text, ok=True)
            outcome.message = "dry run: nothing pushed"
            return outcome
        # the checkout is left alone from here on: the heal ran the repository's tests next to it,
        # so its .git may hold hooks or drivers they planted. The commit is made in a new stage.
        if self.settings.publish_with == "api":
            with self.publish_lock(change.signature), ApiStage(self.client, change.base_sha) as api:
                return self._publish(api, trigger, progress, change, outcome)
        with (
            self.publish_lock(change.signature),
            remote.stage(self.settings.workdir, base=change.base_sha, branch=target.branch) as stage,
        ):
            return self._publish(stage, trigger, progress, change, outcome)

    def _publish(
        self,
        stage: Publisher,
        trigger: Trigger,
        progress: ProgressComment | None,
        change: Change,
        outcome: Outcome,
    ) -> Outcome:
        owner = self.client.repo_name.split("/")[0]
        if (
            self.settings.mode == "review"
            and trigger.issue_number
            and not self.client.open_pulls(owner, change.branch, base=change.base_branch)
        ):
            proposal = Proposal(self.client.repo_name, trigger.issue_number, change.branch, "",
                                change.base_branch, change.draft)  # fmt: skip
            change = replace(change, message=f"{change.message}\n{proposal.trailer()}")
            sha, _ = push_branch(stage, change, self.settings.author)
            propose(self.talk, self.settings, trigger, progress, change, replace(proposal, sha=sha))
            outcome.status, outcome.message = (
                PROPOSED,
                f"proposed on {change.branch}; waiting for /heal approve",
            )
            outcome.publication = Publication(NONE, change.branch, sha)
            return outcome
        if self.settings.mode == "review" and not trigger.issue_number:
            change = replace(change, draft=True)  # no conversation to propose in: a draft asks for review
        publication = publish_pull(
            self.client, stage, change, self.settings.author, reviewer=_human(trigger.requester)
        )
        outcome.publication = publication
        verb = {"created": "opened", "updated": "updated", "none": "is unchanged at"}[publication.operation]
        self.talk.conclude(
            trigger,
            progress,
            f"🚀 Pull request {verb} #{publication.pr_number}: {publication.pr_url}"
            + _model_stopped(outcome.result, "the pull request carries the search's repair"),
            ok=True,
        )
        if trigger.comment_id:
            self.talk.react(trigger, "rocket")
        return outcome

    # -- talking ------------------------------------------------------------------------------------
    def _refuse_fork(self, trigger: Trigger, fork: str) -> Outcome:
        self.talk.react(trigger, "confused")
        self.talk.say(trigger, f"{MARKER}\n{FORK_TEXT.format(fork=fork)}")
        return Outcome(REFUSED, f"the pull request comes from the fork {fork}; fork code is not run")

    def _refuse_fork_run(self, trigger: Trigger) -> Outcome:
        run = trigger.run
        assert run is not None
        pulls = [
            p
            for p in self.client.pulls_for_commit(run.head_sha)
            if p.head_repo.lower() == run.head_repo.lower()
        ]
        if not pulls and run.head_repo:
            fork_owner = run.head_repo.split("/")[0]
            pulls = self.client.open_pulls(fork_owner, run.head_branch)
        if pulls:
            named = run.head_repo or "deleted since"
            self.client.comment(pulls[0].number, f"{MARKER}\n{FORK_TEXT.format(fork=named)}")
        return Outcome(REFUSED, f"the red run is of {run.fork}; fork code is not run")

    def _not_healed_text(self, result: HealResult, report: dict[str, Any]) -> str:
        if result.status == NOTHING_TO_HEAL:
            flaky = f" ({len(result.flaky)} flaky: they passed when re-run)" if result.flaky else ""
            return f"✅ Nothing to heal: no test fails at `{result.base_sha[:12]}`{flaky}."
        why = result.error or result.stopped_because or "no candidate passed the verdict"
        lessons = report.get("lessons", [])[:3]
        return "\n".join([
            f"😕 Not healed ({result.status.replace('_', ' ')}): {why}",
            *[f"- {lesson}" for lesson in lessons],
            *([stopped] if (stopped := _model_stopped(result, "the search had the rest").strip()) else []),
            "",
            "No pull request was opened. The full report is in the run's artifact"
            + (f": {self.settings.run_url}" if self.settings.run_url else "."),
        ])  # fmt: skip


FORK_TEXT = (
    "selfheal does not heal pull requests from forks ({fork}): it would have to run the fork's code "
    "with a token that can push to this repository. A maintainer can push the branch here and comment "
    "`/heal` on that pull request."
)


def _model_stopped(result: HealResult | None, then: str) -> str:
    """Why the model stopped before the end (a budget, the API down), for the requester."""
    stopped = ((result.model or {}).get("stopped_because") if result else None) or ""
    if not stopped:
        return ""
    return f"\n\nThe model stopped early ({stopped.removeprefix('model stopped: ')}); {then}."


def _diff(result: HealResult) -> str:
    return f"```diff\n{result.patch.rstrip()}\n```"


def _human(login: str | None) -> str | None:
    return login if login and not login.endswith("[bot]") else None
