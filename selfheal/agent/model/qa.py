"""The model's test writers: spec-blind tests and adversarial edge-case tests, as `TestCase`s.

    ModelQA(prompts, spec=provider, adversarial=provider)
        .spec_tests(definition, module, issue, lessons)            signature + docstring only
        .adversarial_tests(definition, module, code, failing, existing, lessons)

Answers go through `ask_structured` (schema, salvage, one retry); an unusable answer gives no
tests and a degraded record, never an exception. A test item that is not even a
test (no name, an invalid name) is dropped here; unfit code is the proof run's to discard.
Provider errors and spent budgets propagate: the caller decides what a stopped model means.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from selfheal.agent.localize.codeindex import Definition
from selfheal.agent.model.answers import AnswerRecord, ask_structured
from selfheal.agent.model.llm.base import Provider, Usage
from selfheal.agent.model.prompts import PromptLibrary
from selfheal.agent.model.textfit import fit_field
from selfheal.agent.newtests.cases import TestCase

MAX_CODE_CHARS = 8_000
MAX_EXISTING_CHARS = 6_000
MAX_ISSUE_CHARS = 4_000


@dataclass
class QALog:
    """What the test-writing roles did, for the trace: one record per answer."""

    records: list[tuple[str, AnswerRecord]] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # tests refused before running, and why
    usage: Usage = field(default_factory=Usage)

    @property
    def degraded(self) -> int:
        return sum(1 for _, record in self.records if record.degraded)

    def trace(self) -> dict[str, Any]:
        return {
            "answers": [{"role": role, **record.as_dict()} for role, record in self.records],
            "degraded": self.degraded,
            "dropped": list(self.dropped),
            "tokens_in": self.usage.tokens_in,
            "tokens_out": self.usage.tokens_out,
            "cost_usd": self.usage.cost_usd,
        }


class ModelQA:
    def __init__(
        self,
        prompts: PromptLibrary,
        *,
        spec: Provider | None = None,
        adversarial: Provider | None = None,
        max_tokens: int = 2048,
    ) -> None:
        self.prompts = prompts
        self.spec = spec
        self.adversarial = adversarial
        self.max_tokens = max_tokens
        self.log = QALog()

    def spec_tests(self, definition: Definition, module: str, issue: str, lessons: str) -> list[TestCase]:
        """Tests from what the function promises; its body is never shown."""
        if self.spec is None:
            return []
        messages = self.prompts.render(
            "spec_tests",
            function=definition.qualname,
            module=module,
            file=definition.file,
            signature=definition.signature,
            docstring=definition.docstring or "(no docstring)",
            issue=(issue or "(no issue text)")[:MAX_ISSUE_CHARS],
            lessons=lessons or "(none yet)",
        )
        value = self._ask("spec_tests", self.spec, messages)
        return self._cases(value, "spec_tests", definition, reason_key="source")

    def adversarial_tests(
        self, definition: Definition, module: str, code: str, failing: str, existing: str, lessons: str
    ) -> list[TestCase]:
        """Edge-case tests aimed at `code`, the function as it is now (after the fix)."""
        if self.adversarial is None:
            return []

        def render(existing_tests: str):
            return self.prompts.render(
                "qa_adversarial", function=definition.qualname, module=module, file=definition.file,
                source=code[:MAX_CODE_CHARS], failing=failing or "(none)",
                existing_tests=existing_tests or "(none)", lessons=lessons or "(none yet)",
            )  # fmt: skip

        schema = self.prompts.get("qa_adversarial").schema
        # the existing tests are context only: in a small window they give way first
        fitted = fit_field(
            render, existing[:MAX_EXISTING_CHARS], self.adversarial, self.max_tokens, schema=schema
        )
        messages = render(fitted)
        value = self._ask("qa_adversarial", self.adversarial, messages)
        return self._cases(value, "qa_adversarial", definition, reason_key="edge_case")

    def _ask(self, role: str, provider: Provider, messages) -> Any:
        value, record = ask_structured(
            provider, messages, self.prompts.get(role).schema, max_tokens=self.max_tokens
        )
        self.log.records.append((role, record))
        self.log.usage = self.log.usage + record.usage
        return value

    def _cases(self, value: Any, origin: str, definition: Definition, *, reason_key: str) -> list[TestCase]:
        if not isinstance(value, dict):
            return []
        imports = tuple(str(line).strip() for line in value.get("imports", []) if str(line).strip())
        target = f"{definition.file}::{definition.qualname}"
        cases: list[TestCase] = []
        for item in value.get("tests", []):
            reason = str(item.get(reason_key) or "")
            oracle = item.get("oracle")
            if oracle:
                reason = f"{reason} (expected value from the {oracle})" if reason else f"from the {oracle}"
            try:
                case = TestCase(
                    name=item["name"],
                    code=item["code"],
                    origin=origin,
                    reason=reason,
                    imports=imports,
                    target=target,
                )
            except (KeyError, ValueError) as exc:
                self.log.dropped.append(f"{origin}: {exc}")
                continue
            cases.append(case)  # unfit code is discarded, with its reason, by the proof run
        return cases
