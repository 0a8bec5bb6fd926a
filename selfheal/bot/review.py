"""Review mode: the repair proposed in a comment on its own branch, and the pull request that
`/heal approve` opens once the proposal proves to be selfheal's."""

from __future__ import annotations

from selfheal.bot.events import Trigger
from selfheal.bot.github.markup import MARKER
from selfheal.bot.github.progress import ProgressComment
from selfheal.bot.github.proposal import Proposal, ProposalError
from selfheal.bot.github.publish import NONE, Change, Publication, fit_body
from selfheal.bot.outcome import REFUSED, Outcome
from selfheal.bot.settings import BotSettings
from selfheal.bot.talk import Talk

SUMMARY_START, SUMMARY_END = "<!-- selfheal:summary -->", "<!-- /selfheal:summary -->"


def propose(
    talk: Talk,
    settings: BotSettings,
    trigger: Trigger,
    progress: ProgressComment | None,
    change: Change,
    proposal: Proposal,
) -> None:
    body = "\n".join([
        MARKER,
        proposal.marker(settings.proposal_key),
        f"**selfheal proposes a repair** (branch `{change.branch}`). Someone with "
        f"{settings.min_permission} access can comment `/heal approve` to open the pull request.",
        "",
        SUMMARY_START,
        change.body,
        SUMMARY_END,
    ])  # fmt: skip
    assert trigger.issue_number
    talk.client.comment(trigger.issue_number, fit_body(body, settings.run_url))
    if progress:
        progress.finish("The proposal is in the next comment.")


def approve(talk: Talk, settings: BotSettings, trigger: Trigger, me: str | None) -> Outcome:
    """Open the pull request of this bot's own latest proposal here, once it is proven.

    `me` is the login the 👀 reaction was made as: only that account's comments are read, since
    any other app's bot can post one that looks like a proposal. Even there, the proposal is
    believed for what only selfheal could have made: its marker in the comment's own header
    (the quoted summary is made inert), the branch at the commit it names, that commit's
    trailer naming this issue and the base, and with a key (the bot's) a signature over all of it.
    """
    client = talk.client
    assert trigger.issue_number
    if not me:
        talk.say(
            trigger,
            f"{MARKER}\nselfheal could not tell which comments are its own (reacting to the command "
            "failed), so it opens nothing; comment `/heal approve` again.",
        )
        return Outcome(REFUSED, "own login unknown")
    found = [
        (c, proposal)
        for c in client.comments(trigger.issue_number)
        if c.author == me and (proposal := Proposal.in_comment(c.body.split(SUMMARY_START, 1)[0]))
    ]
    if not found:
        talk.say(trigger, f"{MARKER}\nThere is no selfheal proposal here to approve; comment `/heal` first.")
        return Outcome(REFUSED, "no proposal to approve")
    # the newest proposal that proves to be selfheal's; a claim that does not is passed over
    unproven: list[str] = []
    for candidate, claimed in reversed(found):
        try:
            proposal = claimed.proven(client, trigger.issue_number, settings.proposal_key)
        except ProposalError as exc:
            unproven.append(str(exc))
            continue
        comment = candidate
        break
    else:
        talk.say(trigger, f"{MARKER}\nThe proposal cannot be opened: {unproven[0]}; comment `/heal` again.")
        return Outcome(REFUSED, unproven[0])
    owner = client.repo_name.split("/")[0]
    existing = client.open_pulls(owner, proposal.branch, base=proposal.base)
    if existing:
        publication = Publication(
            NONE, proposal.branch, proposal.sha, existing[0].number, existing[0].url, draft=existing[0].draft
        )
    else:
        body = comment.body.split(SUMMARY_START, 1)[-1].split(SUMMARY_END, 1)[0].strip() + "\n"
        pull = client.create_pull(
            title=client.commit_message(proposal.sha).splitlines()[0] or "selfheal: repair",
            body=fit_body(body, settings.run_url),
            head=proposal.branch, base=proposal.base, draft=proposal.draft,
        )  # fmt: skip
        client.add_label(pull.number, "selfheal")
        refused = client.request_review(pull.number, trigger.requester or "")
        notes = (refused,) if refused else ()
        publication = Publication(
            "created", proposal.branch, proposal.sha, pull.number, pull.url, notes, draft=pull.draft
        )
    talk.say(trigger, f"{MARKER}\n🚀 Pull request #{publication.pr_number}: {publication.pr_url}")
    talk.react(trigger, "rocket")
    return Outcome("approved", f"pull request #{publication.pr_number}", publication=publication)
