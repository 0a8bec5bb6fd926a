"""One GitHub request, start to end: authorize, acknowledge, resolve, clone, heal, publish, report.

    Bot.handle(trigger) -> Outcome

Refusals, "nothing to heal" and honest failures to heal are outcomes; selfheal's own failures
(GitHub or git not answering, a bad event) raise BotError after the requester has been told.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from selfheal.agent.config import build_config, choose_sandbox_for
from selfheal.agent.events import Event, EventSink, Fanout, Trace
from selfheal.agent.exceptions import ConfigError, HealInterrupted, SelfhealError
from selfheal.agent.loop import heal
from selfheal.agent.model.strategy import setup_for
from selfheal.agent.report.memory import MEMORY_FILE, render_lines, worth_keeping
from selfheal.agent.report.outputs import write_outputs
from selfheal.agent.report.result import ERROR, HEALED, NOTHING_TO_HEAL, PARTIAL, HealResult
from selfheal.bot.events import COMMENT, DISPATCH, MARKER, WORKFLOW_RUN, Skip, Trigger
from selfheal.bot.exceptions import BotError, GitError, SandboxFailed, SandboxRefused, public_words
from selfheal.bot.gitdata import ApiStage
from selfheal.bot.github import PERMISSION_RANK, GitHubClient
from selfheal.bot.gitops import Identity, Remote
from selfheal.bot.markup import after_marker, inert
from selfheal.bot.memorybranch import MEMORY_BRANCH, MemoryBranch
from selfheal.bot.progress import ProgressComment
from selfheal.bot.proposal import Proposal, ProposalError
from selfheal.bot.publish import (
    NONE,
    Change,
    Publication,
    Publisher,
    fit_body,
    publish_pull,
    push_branch,
)
from selfheal.bot.signature import branch_for, failure_signature
from selfheal.bot.spend import DailySpend, PgDailySpend
from selfheal.sandbox.addresses import with_plain
from selfheal.sandbox.exceptions import SandboxError, SandboxUnavailable
from selfheal.sandbox.secrets import process_scrubber

REFUSED, IGNORED, PROPOSED = "refused", "ignored", "proposed"
SUMMARY_START, SUMMARY_END = "<!-- selfheal:summary -->", "<!-- /selfheal:summary -->"
SHA = re.compile(r"^[0-9a-f]{40}$")


@dataclass(frozen=True)
class BotSettings:
    min_permission: str = "write"
    mode: str = "auto"  # auto: open the PR | review: propose in a comment, open on `/heal approve`
    draft: bool = False  # always open drafts (otherwise only when the verdict does not fully hold)
    dry_run: bool = False
    author: Identity = field(default_factory=Identity)
    heal_flags: dict[str, Any] = field(default_factory=dict)  # HealConfig fields set by the inputs
    extra_protected: tuple[str, ...] = ()
    run_url: str = ""  # the workflow run, whose artifact holds the full report
    out_dir: Path | None = None
    workdir: Path | None = None
    # git: commit in a git directory made after the heal and push; api: GitHub's Git Data API
    publish_with: str = "git"
    memory: bool = True  # recall from and add to the repository's selfheal-memory branch
    # keys and endpoints of the model clients (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OLLAMA_HOST),
    # from the workflow's inputs or the server's environment: read by the clients in this process
    # only, never the sandbox's environment, never the repository's to redirect
    model_env: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)
    notice: str = ""  # said with the outcome, e.g. why this job heals without its model
    # signs review-mode proposals (the bot: derived from its webhook secret); the Action has no
    # secret that outlives a run, so its proposals stand on the branch's commit alone
    proposal_key: bytes | None = field(default=None, repr=False, compare=False)
    # signs the memory branch's records, and only what it signed is recalled (the bot: derived from
    # its webhook secret; the Action: the memory-key input, when the workflow gives one)
    memory_key: bytes | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.min_permission not in PERMISSION_RANK or self.min_permission == "none":
            raise ValueError(
                f"permission {self.min_permission!r}: choose read, triage, write, maintain or admin"
            )
        if self.mode not in ("auto", "review"):
            raise ValueError(f"mode {self.mode!r}: choose auto or review")
        if self.publish_with not in ("git", "api"):
            raise ValueError(f"publish_with {self.publish_with!r}: choose git or api")


@dataclass
class Outcome:
    status: str  # a heal status, or refused | ignored | proposed
    message: str
    result: HealResult | None = None
    report: dict[str, Any] | None = None
    publication: Publication | None = None
    out_dir: Path | None = None


@dataclass(frozen=True)
class Target:
    sha: str
    branch: str  # the branch that failed: the PR's base
    title: str  # for comments: what is being healed


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
        self.progress: ProgressComment | None = None
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
                return self.approve(trigger, self._react(trigger, "eyes"))
            target = self.resolve(trigger)
            if isinstance(target, Outcome):
                return target  # a refusal (a fork) says so with 😕 alone: 👀 means selfheal accepted
            self.login = self._react(trigger, "eyes")
            return self.heal(trigger, target)
        except (BotError, SelfhealError, SandboxError) as exc:
            self._react(trigger, "confused")
            self._tell_failure(trigger, f"😕 selfheal could not finish: {public_words(exc)}")
            if isinstance(exc, SandboxError):  # a BotError for whoever runs the bot: a clear failure
                failed = SandboxFailed(f"the sandbox failed: {exc}")
                raise with_plain(failed, f"the sandbox failed: {public_words(exc)}") from exc
            raise
        except KeyboardInterrupt as exc:  # the run was cancelled (SIGTERM, SIGINT): say so, then stop
            self._react(trigger, "confused")
            how = str(exc) or "interrupted"
            self._tell_failure(trigger, f"😕 selfheal was {how} before it finished; nothing was published.")
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
            self._react(trigger, "confused")
            self._say(trigger, f"{MARKER}\n{message}")
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
        progress = self._progress(trigger, target)
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
        recalled_from = self._recall(memory, workdir)
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
        result, report, out_dir = self._run_heal(trigger, checkout, progress, recalled_from, unwritten)
        outcome = Outcome(result.status, result.error or result.status, result, report, None, out_dir)
        if memory is not None and writes:
            self._remember(memory, result, report, target.branch)

        if result.status not in (HEALED, PARTIAL) or not result.changes:
            self._conclude(
                trigger, progress, self._not_healed_text(result, report), ok=result.status == NOTHING_TO_HEAL
            )
            return outcome
        change = self._change(result, report, target, out_dir)
        if dry_run:
            text = "**Dry run**: no branch pushed, no pull request opened. The patch would be:\n\n"
            text += _diff(result)
            self._conclude(trigger, progress, text, ok=True)
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
            self._propose(trigger, progress, change, replace(proposal, sha=sha))
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
        self._conclude(
            trigger,
            progress,
            f"🚀 Pull request {verb} #{publication.pr_number}: {publication.pr_url}"
            + _model_stopped(outcome.result, "the pull request carries the search's repair"),
            ok=True,
        )
        if trigger.comment_id:
            self._react(trigger, "rocket")
        return outcome

    def _recall(self, memory: MemoryBranch | None, workdir: Path) -> Path | None:
        """The branch's records in a file beside the checkout (never in it: the sandbox copies the
        checkout), for the heal to recall from; None when memory is off or cannot be read."""
        if memory is None:
            return None
        try:
            records = memory.read()
        except GitError as exc:  # the heal goes on without memory, and says so in the log
            self._log_note(f"the {MEMORY_BRANCH} branch could not be read: {exc}")
            return None
        path = workdir / MEMORY_FILE
        path.write_text(render_lines(records), encoding="utf-8")
        return path

    def _remember(
        self, memory: MemoryBranch, result: HealResult, report: dict[str, Any], branch: str
    ) -> None:
        record = worth_keeping(result, report)
        if record is None:
            return
        record = replace(record, branch=branch, run=self.settings.run_url)
        try:
            memory.append(record)
        except GitError as exc:  # the heal and its pull request stand; only the record is lost
            self._log_note(f"the heal's record was not added to {MEMORY_BRANCH}: {exc}")
            # the notes are published: the git error's words (its remote's address) stay out of them
            result.notes.append(
                f"this heal was not remembered: the {MEMORY_BRANCH} branch could not be written"
            )

    def _log_note(self, text: str) -> None:
        if self.log is not None:
            now = time.time()
            self.log.emit(Event("memory", now, now, {"note": text}))

    def _run_heal(
        self,
        trigger: Trigger,
        path: Path,
        progress: ProgressComment | None,
        memory_file: Path | None = None,
        notes: tuple[str, ...] = (),
    ) -> tuple[HealResult, dict[str, Any], Path]:
        flags = dict(self.settings.heal_flags)
        flags["memory"] = memory_file is not None
        flags["memory_path"] = memory_file
        flags["memory_to_model"] = self.settings.memory_key is not None
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
        config = build_config(path, flags, self.settings.model_env)
        if self.settings.extra_protected:
            config = replace(config, protected=(*config.protected, *self.settings.extra_protected))
        config.extra["memory_store"] = f"branch {MEMORY_BRANCH}"
        try:
            sandbox, fallback = choose_sandbox_for(config)
        except SandboxUnavailable as exc:
            refused = ConfigError(f"sandbox {config.sandbox}: {exc}")
            raise with_plain(refused, f"sandbox {config.sandbox}: {exc.plain}") from exc
        model = setup_for(
            config.llm, self.settings.model_env, token_budget=config.max_tokens,
            usd_budget=config.max_usd, parallel=config.parallel,
        )  # fmt: skip
        if model is not None and trigger.context:
            model = replace(model, hint=trigger.context)
        trace = Trace()
        out_dir = self.settings.out_dir or Path(tempfile.mkdtemp(prefix="selfheal-out-"))
        try:
            result = heal(config, sandbox, Fanout(trace, progress, self.log), model=model)
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
        if self.settings.memory and self.settings.publish_with == "api":
            result.notes.append(
                f"memory off: the {MEMORY_BRANCH} branch is written with a git push, and publish-with "
                "api pushes nothing with git"
            )
        report = write_outputs(result, trace, out_dir)
        return result, report, out_dir

    def _change(self, result: HealResult, report: dict[str, Any], target: Target, out_dir: Path) -> Change:
        if result.base_sha != target.sha:
            raise BotError(
                f"the heal's base {result.base_sha[:12]} is not the commit asked for, {target.sha[:12]}"
            )
        prefix = f"{result.project_dir}/" if result.project_dir else ""
        files = {prefix + path: text for path, text in {**result.changes, **result.test_files}.items()}
        signature = failure_signature(result.baseline, result.flaky, target.branch)  # type: ignore[arg-type]
        fix = result.fixes[0] if result.fixes else None
        title = f"selfheal: fix `{fix.function}` in {fix.file}" if fix else "selfheal: repair"
        diagnosis = report.get("diagnosis") or {}
        message = "\n".join([
            title.replace("`", ""),
            "",
            f"Root cause: {diagnosis.get('root_cause', 'see the pull request')}",
            "",
            *[f"- {f.description}" for f in result.fixes],
            "",
            "Failing tests healed:",
            *[f"- {t}" for t in (result.verdict.healed if result.verdict else ())][:20],
            "",
            f"Selfheal-Signature: {signature}",
        ])  # fmt: skip
        # the summary quotes test ids, file names and model answers: none may pass for selfheal's markers
        body = inert((out_dir / "summary.md").read_text(encoding="utf-8"))
        if self.settings.run_url:
            body += (
                "\n---\nThe full report (report.json, trace, lessons) is in the artifact of "
                f"{self.settings.run_url}\n"
            )
        return Change(
            files=files,
            title=title,
            message=message,
            body=fit_body(body, self.settings.run_url),
            signature=signature,
            branch=branch_for(signature),
            base_branch=target.branch,
            base_sha=result.base_sha,
            draft=self.settings.draft or needs_review(result, report),
        )

    # -- review mode --------------------------------------------------------------------------------
    def _propose(
        self, trigger: Trigger, progress: ProgressComment | None, change: Change, proposal: Proposal
    ) -> None:
        body = "\n".join([
            MARKER,
            proposal.marker(self.settings.proposal_key),
            f"**selfheal proposes a repair** (branch `{change.branch}`). Someone with "
            f"{self.settings.min_permission} access can comment `/heal approve` to open the pull request.",
            "",
            SUMMARY_START,
            change.body,
            SUMMARY_END,
        ])  # fmt: skip
        assert trigger.issue_number
        self.client.comment(trigger.issue_number, fit_body(body, self.settings.run_url))
        if progress:
            progress.finish("The proposal is in the next comment.")

    def approve(self, trigger: Trigger, me: str | None) -> Outcome:
        """Open the pull request of this bot's own latest proposal here, once it is proven.

        `me` is the login the 👀 reaction was made as: only that account's comments are read, since
        any other app's bot can post one that looks like a proposal. Even there, the proposal is
        believed for what only selfheal could have made: its marker in the comment's own header
        (the quoted summary is made inert), the branch at the commit it names, that commit's
        trailer naming this issue and the base, and with a key (the bot's) a signature over all of it.
        """
        assert trigger.issue_number
        if not me:
            self._say(
                trigger,
                f"{MARKER}\nselfheal could not tell which comments are its own (reacting to the command "
                "failed), so it opens nothing; comment `/heal approve` again.",
            )
            return Outcome(REFUSED, "own login unknown")
        found = [
            (c, proposal)
            for c in self.client.comments(trigger.issue_number)
            if c.author == me and (proposal := Proposal.in_comment(c.body.split(SUMMARY_START, 1)[0]))
        ]
        if not found:
            self._say(
                trigger, f"{MARKER}\nThere is no selfheal proposal here to approve; comment `/heal` first."
            )
            return Outcome(REFUSED, "no proposal to approve")
        # the newest proposal that proves to be selfheal's; a claim that does not is passed over
        unproven: list[str] = []
        for candidate, claimed in reversed(found):
            try:
                proposal = claimed.proven(self.client, trigger.issue_number, self.settings.proposal_key)
            except ProposalError as exc:
                unproven.append(str(exc))
                continue
            comment = candidate
            break
        else:
            self._say(
                trigger, f"{MARKER}\nThe proposal cannot be opened: {unproven[0]}; comment `/heal` again."
            )
            return Outcome(REFUSED, unproven[0])
        owner = self.client.repo_name.split("/")[0]
        existing = self.client.open_pulls(owner, proposal.branch, base=proposal.base)
        if existing:
            publication = Publication(
                NONE, proposal.branch, proposal.sha, existing[0].number, existing[0].url
            )
        else:
            body = comment.body.split(SUMMARY_START, 1)[-1].split(SUMMARY_END, 1)[0].strip() + "\n"
            pull = self.client.create_pull(
                title=self.client.commit_message(proposal.sha).splitlines()[0] or "selfheal: repair",
                body=fit_body(body, self.settings.run_url),
                head=proposal.branch, base=proposal.base, draft=proposal.draft,
            )  # fmt: skip
            self.client.add_label(pull.number, "selfheal")
            refused = self.client.request_review(pull.number, trigger.requester or "")
            publication = Publication(
                "created", proposal.branch, proposal.sha, pull.number, pull.url, (refused,) if refused else ()
            )
        self._say(trigger, f"{MARKER}\n🚀 Pull request #{publication.pr_number}: {publication.pr_url}")
        self._react(trigger, "rocket")
        return Outcome("approved", f"pull request #{publication.pr_number}", publication=publication)

    # -- talking ------------------------------------------------------------------------------------
    def _refuse_fork(self, trigger: Trigger, fork: str) -> Outcome:
        self._react(trigger, "confused")
        self._say(trigger, f"{MARKER}\n{FORK_TEXT.format(fork=fork)}")
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

    def _progress(self, trigger: Trigger, target: Target) -> ProgressComment | None:
        if not trigger.issue_number:
            return None
        asked = f" (asked by @{trigger.requester})" if trigger.requester else ""
        key = f"comment-{trigger.comment_id}" if trigger.comment_id else ""
        progress = ProgressComment(
            self.client, trigger.issue_number, f"{target.title}{asked}", key=key, author=self.login
        )
        progress.start()
        self.progress = progress  # concluded with the failure, should the heal fail
        return progress

    def _conclude(self, trigger: Trigger, progress: ProgressComment | None, text: str, *, ok: bool) -> None:
        if self.settings.notice:
            text += f"\n\n{self.settings.notice}"
        text = process_scrubber().scrub(text)  # a provider's or a test's words may quote a secret
        if progress:
            progress.finish(text)
        if not ok and trigger.comment_id:
            self._react(trigger, "confused")

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

    def _tell_failure(self, trigger: Trigger, text: str) -> None:
        """In the progress comment, when there is one: its ⏳ is concluded, not left beside a second one."""
        if self.progress is not None and self.progress.comment_id is not None:
            self.progress.finish(text)
        else:
            self._say(trigger, f"{MARKER}\n{text}")

    def _say(self, trigger: Trigger, body: str) -> None:
        if not trigger.issue_number:
            return
        try:
            self.client.comment(trigger.issue_number, after_marker(MARKER, process_scrubber().scrub(body)))
        except BotError:
            pass  # telling about a failure must not hide the failure itself

    def _react(self, trigger: Trigger, content: str) -> str | None:
        """React to the command; the login that reacted, or None when it could not."""
        if not (trigger.issue_number and trigger.comment_id):
            return None
        try:
            return self.client.react(trigger.issue_number, trigger.comment_id, content) or None
        except BotError:
            return None  # a missing emoji is not worth failing a heal


FORK_TEXT = (
    "selfheal does not heal pull requests from forks ({fork}): it would have to run the fork's code "
    "with a token that can push to this repository. A maintainer can push the branch here and comment "
    "`/heal` on that pull request."
)


def within_daily_cap(
    settings: BotSettings, spend: DailySpend | PgDailySpend, installation: int
) -> BotSettings:
    """The settings of one job under its installation's daily dollar cap: its max-usd lowered to
    what is left of the day, or, with nothing left, no model at all (and a notice saying so)."""
    flags = settings.heal_flags
    if flags.get("provider", "none") == "none" and not flags.get("roles"):
        return settings
    budget = spend.budget_for(installation, flags.get("max_usd"))
    if budget is None or budget >= 0.0001:
        return replace(settings, heal_flags={**flags, "max_usd": budget})
    cap = f"${spend.cap_usd:.2f}" if spend.cap_usd is not None else "the cap"
    return replace(
        settings,
        heal_flags={**flags, "provider": "none", "roles": None, "model": None, "max_usd": None},
        notice=f"This installation spent its daily model budget ({cap} per UTC day): this heal used the "
        "search alone, without the model.",
    )


def model_cost(outcome: Outcome) -> float:
    """Dollars the heal's model calls cost (0 without a model or a report)."""
    metrics = (outcome.report or {}).get("metrics") or {}
    return float(metrics.get("cost_usd") or 0.0)


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


def needs_review(result: HealResult, report: Mapping[str, Any]) -> bool:
    """A draft, whatever the settings: a partial heal, a patch that may only fit the tests, one the
    critic sent back that nothing replaced, one of several fixes the tests allow, or one whose
    confidence (report.json `confidence`) is below the ready-for-review threshold. A human decides
    before anyone can merge it."""
    return (
        result.status != HEALED
        or bool(result.overfit_risks)
        or bool(result.critic)
        or (result.disagreement is not None and result.disagreement.open)
        or not (report.get("confidence") or {}).get("ready", False)
    )
