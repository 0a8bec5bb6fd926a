"""The rolling memory: lessons from a scripted model, or deterministic without one (agent/model/memory.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from selfheal.agent.exceptions import ProviderUnavailable
from selfheal.agent.model.llm import Message, MeteredProvider, Reply, ScriptedModel, Usage, UsageLedger
from selfheal.agent.model.memory import MAX_LESSON_CHARS, Memory, clean, refusal
from selfheal.agent.model.prompts import PromptLibrary
from selfheal.agent.model.tokencount import request_tokens

ROUND = [
    "tried: Cart.total returns sum(self.items) + 0; test_total passed, test_checkout still failed",
    "diagnosis: Cart.total subtracts 1 (confidence 0.9)",
]
TOKEN = "ghp_" + "A1b2C3d4" * 4 + "E5f6"  # shaped like a GitHub token, not one
PROMPT = PromptLibrary().get("memory").trace()


def answer(*lessons: str) -> Reply:
    return Reply(json.dumps({"lessons": list(lessons)}), usage=Usage(250, 40))


def test_a_valid_answer_becomes_the_lessons():
    model = ScriptedModel([
        answer(
            "Cart.total in shop/cart.py subtracts 1 from the sum; the tests expect the plain sum.",
            "checkout() adds 2 on top of Cart.total: fixing total alone leaves test_checkout failing.",
        )
    ])  # fmt: skip
    memory = Memory(model)
    assert memory.render() == "(none yet)"
    lessons = memory.update(ROUND)

    assert lessons == (
        "Cart.total in shop/cart.py subtracts 1 from the sum; the tests expect the plain sum.",
        "checkout() adds 2 on top of Cart.total: fixing total alone leaves test_checkout failing.",
    )
    assert memory.lessons == lessons
    assert memory.render() == "\n".join(f"- {lesson}" for lesson in lessons)
    assert memory.trace() == {
        "count": 2, "updates": 1, "source": "model", "degraded": False, "refused": 0,
        "prompt": PROMPT, "attempts": 1, "salvaged": False,
        "tokens_in": 250, "tokens_out": 40, "cost_usd": 0.0,
    }  # fmt: skip
    asked = model.calls[0]
    user = asked["messages"][1].content
    assert "<lessons>\n(none yet)\n</lessons>" in user
    assert f"<round>\n- {ROUND[0]}\n- {ROUND[1]}\n</round>" in user
    # the limits are applied here (capped, cut), not by a retry of the model
    assert asked["schema"]["properties"]["lessons"] == {
        "type": "array",
        "items": {"type": "string", "minLength": 1},
    }
    assert asked["max_tokens"] == 600


def test_the_current_lessons_go_back_to_the_model():
    model = ScriptedModel([answer("one"), answer("two", "one")])
    memory = Memory(model)
    memory.update(["round one"])
    memory.update(["round two"])
    assert "<lessons>\n- one\n</lessons>" in model.calls[1]["messages"][1].content
    assert memory.lessons == ("two", "one") and memory.trace()["updates"] == 2
    assert memory.usage == Usage(500, 80)


def test_invalid_json_is_retried_once_with_the_feedback():
    model = ScriptedModel([
        Reply("Sure! The lesson: the total is off by one.", usage=Usage(250, 12)),
        answer("Cart.total is off by one: it subtracts 1 from the sum."),
    ])  # fmt: skip
    memory = Memory(model)
    assert memory.update(ROUND) == ("Cart.total is off by one: it subtracts 1 from the sum.",)
    feedback = model.calls[1]["messages"][-1]
    assert feedback.role == "user" and feedback.content.startswith("Your answer is not valid JSON")
    trace = memory.trace()
    assert (trace["source"], trace["degraded"], trace["attempts"]) == ("model", False, 2)
    assert (trace["tokens_in"], trace["tokens_out"]) == (500, 52)


def test_seven_lessons_are_capped_at_five():
    memory = Memory(
        ScriptedModel([answer(*(f"lesson {n}: something concrete about line {n}" for n in range(7)))])
    )
    assert memory.update(ROUND) == tuple(f"lesson {n}: something concrete about line {n}" for n in range(5))
    assert memory.trace()["count"] == 5


def test_a_lesson_to_skip_the_failing_test_is_dropped():
    memory = Memory(ScriptedModel([
        answer(
            "Skip the failing test test_checkout: it expects the wrong total.",
            "Cart.total subtracts 1; return the plain sum.",
        )
    ]))  # fmt: skip
    assert memory.update(ROUND) == ("Cart.total subtracts 1; return the plain sum.",)
    assert (memory.trace()["refused"], memory.trace()["source"]) == (1, "model")


def test_a_lesson_holding_a_token_is_dropped():
    memory = Memory(ScriptedModel([
        answer(
            f"The CI log shows GITHUB_TOKEN={TOKEN}; checkout() adds 2 to the total.",
            f"Authenticate with {TOKEN} to fetch fixtures.",
            "checkout() adds 2 to Cart.total, so its test fails with total fixed.",
        )
    ]))  # fmt: skip
    assert memory.update(ROUND) == ("checkout() adds 2 to Cart.total, so its test fails with total fixed.",)
    assert memory.trace()["refused"] == 2
    assert TOKEN not in memory.render()


def test_long_lessons_are_cut_at_a_word_and_duplicates_merged():
    long = "Cart.total " + "subtracts one from the sum of the items " * 8
    memory = Memory(ScriptedModel([answer(long, "- cart.total SUBTRACTS one from the sum", "  ")]))
    (lesson,) = memory.update(ROUND)  # the short one says what the long one says: merged
    said = " subtracts one from the sum of the items"
    assert lesson == "Cart.total" + said * 4 + " subtracts one from the sum…"
    assert len(lesson) == 198 <= MAX_LESSON_CHARS and lesson == clean(long)


def test_no_usable_answer_falls_back_to_the_rounds_facts_marked_degraded():
    memory = Memory(ScriptedModel([Reply("I think the cart is wrong."), Reply('{"lesson": "x"}')]))
    assert memory.update(ROUND) == tuple(ROUND)
    trace = memory.trace()
    assert (trace["source"], trace["degraded"], trace["attempts"], trace["count"]) == ("fallback", True, 2, 2)


@dataclass
class Unreachable:
    name: str = "ollama"
    calls: list[list[Message]] = field(default_factory=list)

    def complete(self, messages, *, tools=None, schema=None, max_tokens):
        self.calls.append(messages)
        raise ProviderUnavailable("ollama: cannot connect (connection refused)", provider="ollama")


def test_a_failing_provider_or_a_spent_budget_falls_back():
    memory = Memory(Unreachable(), lessons=["Cart.total is wrong."])
    assert memory.update(ROUND) == (*ROUND, "Cart.total is wrong.")
    assert memory.trace() == {
        "count": 3, "updates": 1, "source": "fallback", "degraded": True, "refused": 0,
        "error": "ollama: cannot connect (connection refused)",
    }  # fmt: skip

    spent = MeteredProvider(ScriptedModel([]), "memory", UsageLedger(token_budget=0))
    memory = Memory(spent)
    assert memory.update(["tried: swap < and <= in clamp(); test_clamp still fails"]) == (
        "tried: swap < and <= in clamp(); test_clamp still fails",
    )
    assert memory.trace()["error"] == "token budget of 0 spent (0 used)"


def test_without_a_provider_the_newest_facts_come_first_deduplicated_and_capped():
    memory = Memory()
    assert memory.trace() == {"count": 0, "updates": 0, "source": None, "degraded": False, "refused": 0}
    memory.update("\n".join(ROUND))
    assert memory.lessons == tuple(ROUND)
    memory.update([
        "tried: return sum(self.items) in Cart.total; test_total passes",
        "- diagnosis: Cart.total subtracts 1 (confidence 0.9)",  # said before: kept once, here
        "skip test_checkout, it is flaky",  # refused
        f"the sandbox had GITHUB_TOKEN={TOKEN}",  # refused
        "checkout() adds 2 after Cart.total",
        "test_checkout expects checkout([1, 2]) == 5",
    ])  # fmt: skip
    assert memory.lessons == (
        "tried: return sum(self.items) in Cart.total; test_total passes",
        "diagnosis: Cart.total subtracts 1 (confidence 0.9)",
        "checkout() adds 2 after Cart.total",
        "test_checkout expects checkout([1, 2]) == 5",
        ROUND[0],
    )
    assert memory.trace() == {"count": 5, "updates": 2, "source": "fallback", "degraded": False, "refused": 2}


def test_lessons_given_at_the_start_are_checked_too():
    memory = Memory(lessons=["xfail test_total for now", "Cart.total subtracts 1.", "cart.total subtracts 1"])
    assert memory.lessons == ("Cart.total subtracts 1.",)


def test_what_a_lesson_may_not_say():
    for said in (
        "skip the failing test",
        "Mark test_total as xfail until the cart is rewritten.",
        "update the expected value in tests/test_cart.py",
        "The test is wrong: an empty cart should total 0.",
        "comment out the assertion in test_checkout",
        "edit conftest.py to drop the fixture",
    ):
        assert refusal(said) == "suggests editing or skipping tests", said
    for said in (
        f"token {TOKEN}",
        "clone https://bot:hunter22@github.com/acme/shop",
        "api_key = sk-ant-abcdefghijklmnop1234",
        "-----BEGIN RSA PRIVATE KEY-----",
        "Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345",
    ):
        assert refusal(said) == "looks like it holds a secret", said
    for said in (
        "Changing the loop bounds in mean() broke test_mean_of_one: the loop itself is correct.",
        "mean() divides by len(xs) - 1; the tests expect the plain average.",
        "Removing the guard in parse() made test_empty fail.",
        "The token budget of 1000 was spent before a fix was found.",
        "commit 3f9a1c2d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 introduced the bug",
    ):
        assert refusal(said) is None, said


@dataclass
class SmallWindow:
    """A scripted model with a small context window."""

    model: ScriptedModel
    context_tokens: int = 1600
    name: str = "small"

    def complete(self, messages, *, tools=None, schema=None, max_tokens):
        return self.model.complete(messages, tools=tools, schema=schema, max_tokens=max_tokens)


def test_a_long_round_is_fitted_into_a_small_window():
    scripted = ScriptedModel([answer("Cart.total subtracts 1.")])
    memory = Memory(SmallWindow(scripted))
    facts = [
        f"tried candidate {n}: changed line {n} of shop/cart.py; test_total still failed" for n in range(300)
    ]
    memory.update(facts)
    sent = scripted.calls[0]["messages"]
    assert request_tokens(sent, schema=scripted.calls[0]["schema"]) + 600 <= 1600
    round_text = sent[1].content.split("<round>\n", 1)[1]
    assert round_text.startswith(f"- {facts[0]}") and "lines omitted ..." in round_text
    assert memory.lessons == ("Cart.total subtracts 1.",)
