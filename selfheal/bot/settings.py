"""How the heal service acts for one request: who may ask, auto or review mode, drafts and dry runs,
the heal's own flags, how it publishes, the repository's memory, and the keys that sign what it makes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from selfheal.bot.github.client import PERMISSION_RANK
from selfheal.bot.github.gitops import Identity


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
