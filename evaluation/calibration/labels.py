"""Is a self-reported heal reference-correct? The label the confidence is calibrated against.

    label_of(run, suite, judgements) -> Label(correct, how)
    load_judgements(path=None) -> {(suite, task, patch digest): Judgement}   (labels.toml)
    patch_digest(patch) -> str

A heal the verdict accepted is
- not correct when the hidden reference tests fail on its patch;
- correct when its patch is the reference fix (`TaskRun.matches_reference`: the same syntax trees);
- otherwise judged by a person, who reads the patch against the reference fix and the bug: not
  correct when it passes the hidden tests but only skips the failing path (a guard around the
  failing computation, a deleted call) or is not the release's fix in meaning (it breaks inputs
  the hidden tests do not try); correct when it computes what the reference computes. Each
  judgement names the patch by a digest of its normalised text, so a changed patch needs a new
  one; a heal without one is unjudged: shown, and left out of every figure.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from evaluation.bench.record import TaskRun

LABELS = Path(__file__).resolve().parent / "labels.toml"
SUITES = ("own", "realbugs")


class LabelsError(ValueError):
    """labels.toml cannot be used; the message says where."""


@dataclass(frozen=True)
class Judgement:
    suite: str
    task: str
    patch: str  # patch_digest of the judged patch
    correct: bool
    reason: str  # one line
    reasoning: str = ""  # how it was read: the patch against the reference fix and the bug


@dataclass(frozen=True)
class Label:
    correct: bool | None  # None: unjudged
    how: str  # hidden tests fail | reference fix | judged | unjudged
    reason: str = ""


HIDDEN_FAIL, REFERENCE, JUDGED, UNJUDGED = "hidden tests fail", "reference fix", "judged", "unjudged"


def patch_digest(patch: str) -> str:
    """A short hash of the patch without what changes when nothing in it does: `diff --git` and
    `index` lines (blob ids), hunk positions, trailing blanks."""
    kept = []
    for line in patch.splitlines():
        if line.startswith(("diff --git ", "index ")):
            continue
        kept.append("@@" if line.startswith("@@") else line.rstrip())
    return hashlib.sha256("\n".join(kept).strip().encode("utf-8")).hexdigest()[:12]


def load_judgements(path: Path | None = None) -> dict[tuple[str, str, str], Judgement]:
    source = path or LABELS
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise LabelsError(f"{source}: {exc}") from exc
    found: dict[tuple[str, str, str], Judgement] = {}
    for number, entry in enumerate(data.get("judgement", []), 1):
        try:
            judgement = Judgement(
                suite=entry["suite"], task=entry["task"], patch=entry["patch"], correct=entry["correct"],
                reason=entry["reason"], reasoning=entry.get("reasoning", "").strip(),
            )  # fmt: skip
        except KeyError as exc:
            raise LabelsError(f"{source}: judgement {number} has no {exc.args[0]!r}") from exc
        if judgement.suite not in SUITES or not isinstance(judgement.correct, bool):
            raise LabelsError(f"{source}: judgement {number} ({judgement.task}): suite or correct is wrong")
        key = (judgement.suite, judgement.task, judgement.patch)
        if key in found:
            raise LabelsError(f"{source}: {judgement.task} ({judgement.patch}) is judged twice")
        found[key] = judgement
    return found


def label_of(run: TaskRun, suite: str, judgements: Mapping[tuple[str, str, str], Judgement]) -> Label | None:
    """The label of a self-reported heal; None for a task the heal did not report healed."""
    if not run.self_reported:
        return None
    if not run.reference_validated:
        return Label(False, HIDDEN_FAIL)
    if run.matches_reference:
        return Label(True, REFERENCE)
    judgement = judgements.get((suite, run.id, patch_digest(run.patch or "")))
    if judgement is None:
        return Label(None, UNJUDGED)
    return Label(judgement.correct, JUDGED, judgement.reason)
