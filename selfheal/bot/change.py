"""What a heal becomes on GitHub: the files, the commit message, the pull request's title and body,
its branch by failure signature, and whether it opens as a draft."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from selfheal.agent.report.result import HEALED, HealResult
from selfheal.bot.exceptions import BotError
from selfheal.bot.github.markup import inert
from selfheal.bot.github.publish import Change, fit_body
from selfheal.bot.outcome import Target
from selfheal.bot.settings import BotSettings
from selfheal.bot.signature import branch_for, failure_signature


def change_for(
    result: HealResult, report: dict[str, Any], target: Target, out_dir: Path, settings: BotSettings
) -> Change:
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
    if settings.run_url:
        body += (
            f"\n---\nThe full report (report.json, trace, lessons) is in the artifact of {settings.run_url}\n"
        )
    return Change(
        files=files,
        title=title,
        message=message,
        body=fit_body(body, settings.run_url),
        signature=signature,
        branch=branch_for(signature),
        base_branch=target.branch,
        base_sha=result.base_sha,
        draft=settings.draft or needs_review(result, report),
    )


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
