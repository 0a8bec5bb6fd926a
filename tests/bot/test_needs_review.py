"""When the pull request is a draft whatever the settings (bot/change.py `needs_review`): a human
decides before anyone can merge a patch the heal itself doubts."""

from __future__ import annotations

from selfheal.agent.repair.overfit import OverfitRisk
from selfheal.agent.report.result import PARTIAL
from selfheal.bot.change import needs_review
from tests.agent.report.test_confidence import healed

READY = {"confidence": {"probability": 0.91, "ready": True, "threshold": 0.85, "reasons": []}}
BELOW = {"confidence": {"probability": 0.62, "ready": False, "threshold": 0.85, "reasons": ["..."]}}


def test_a_verified_patch_the_confidence_trusts_is_ready_for_review():
    assert needs_review(healed(), READY) is False


def test_a_confidence_below_the_threshold_makes_a_draft():
    assert needs_review(healed(), BELOW) is True
    assert needs_review(healed(), {"confidence": None}) is True  # no confidence: nothing says ready


def test_the_other_reasons_for_a_draft_stand_whatever_the_confidence():
    assert needs_review(healed(status=PARTIAL), READY) is True
    risk = OverfitRisk("test_literal", "pkg/age.py: is_adult", "adds 18")
    assert needs_review(healed(overfit_risks=(risk,)), READY) is True
    assert needs_review(healed(critic=["it hard-codes the boundary"]), READY) is True
