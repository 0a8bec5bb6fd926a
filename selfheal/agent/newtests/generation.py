"""New tests for a repair: collect cases from every test writer, prove them, keep what holds.

    NewTests(...).spec_first(localization)         once, before any repair: spec-blind tests
    NewTests(...).for_patch(changes, base_texts, fixes, failing) -> TestGeneration, {path: text}

Writers: the model's spec_tests and qa_adversarial roles (when configured) and the embedded
edge-case generator (always). Each function the patch changed gets one test file. A case ships
only with its proof: it fails on the base code and passes on the patch (fail_to_pass), or it
passes on both and is labelled a guard. A case that fails on the patched code is discarded with
the reason: the code is never bent to fit a generated test.
"""

from __future__ import annotations

import ast
import textwrap
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from selfheal.agent.events import Event, EventSink
from selfheal.agent.localize.codeindex import CodeBase, CodeIndex, Definition
from selfheal.agent.localize.spectrum import Localization
from selfheal.agent.newtests.cases import FAIL_TO_PASS, TestCase, TestFile, TestGeneration, module_name
from selfheal.agent.newtests.edgecases.generate import EdgeCaseResult
from selfheal.agent.newtests.proof import TestProver, new_test_path
from selfheal.agent.repair.edits import Candidate

MAX_FUNCTIONS = 3
MAX_SPEC_FUNCTIONS = 2
LABELS = {
    FAIL_TO_PASS: "fails on the code before the fix, passes with it",
    "guard": "guard: passes before and after the fix; it keeps behaviour the fix must not change",
}
HEADERS = {
    "spec_tests": "written from the docstring and signature",
    "qa_adversarial": "edge cases aimed at the fixed code",
    "embedded": "behaviour the fix changed, found by running both versions on generated inputs",
}

# (definition, module, base text, patched text, the file under the other fixes the tests allow)
# -> the embedded generator's cases and risks
EdgeCaseFn = Callable[[Definition, str, str, str, Sequence[str]], EdgeCaseResult]
CONTESTED = (
    "asserts what only some of the fixes the tests allow give (it fails on another plausible patch): "
    "a guess, not shipped; the pull request shows where the fixes differ"
)


class ModelTestWriters(Protocol):
    """The model's test writers (`model.qa.ModelQA`); `spec` and `adversarial` are None where
    that role has no model."""

    @property
    def spec(self) -> object | None: ...

    @property
    def adversarial(self) -> object | None: ...

    def spec_tests(self, definition: Definition, module: str, issue: str, lessons: str) -> list[TestCase]: ...

    def adversarial_tests(
        self, definition: Definition, module: str, code: str, failing: str, existing: str, lessons: str
    ) -> list[TestCase]: ...


@dataclass(frozen=True)
class TestContext:
    __test__ = False

    failing: str  # the baseline failures, for the QA prompt
    existing: str  # the failing tests' own files, so the model does not repeat them
    issue: str
    lessons: Callable[[], str]


class NewTests:
    def __init__(
        self,
        prover: TestProver,
        events: EventSink,
        *,
        qa: ModelTestWriters | None,
        edge_cases: EdgeCaseFn | None,
        context: TestContext,
        existing_files: frozenset[str],
    ) -> None:
        self.prover = prover
        self.events = events
        self.qa = qa
        self.edge_cases = edge_cases
        self.context = context
        self.existing_files = existing_files
        self.spec_cases: list[TestCase] = []
        self.collected: dict[str, list[TestCase]] = {}  # target -> the cases of the last for_patch

    def spec_first(self, localization: Localization, sources: dict[str, str], tests: dict[str, str]) -> None:
        """Spec-blind tests for the functions the failing tests call, before the model reads a body.
        `tests`: failing test id -> the source of its test function."""
        if self.qa is None or self.qa.spec is None:
            return
        for definition in entry_functions(tests, sources, localization)[:MAX_SPEC_FUNCTIONS]:
            started = time.time()
            found = self.qa.spec_tests(
                definition, module_name(definition.file), self.context.issue, self.context.lessons()
            )
            self.spec_cases += found
            self._emit("spec_tests", started, function=definition.qualname, cases=[c.name for c in found])

    def for_patch(
        self,
        changes: dict[str, str],
        base_texts: dict[str, str],
        fixes: Sequence[Candidate],
        failing_tests: list[str],
        *,
        reuse: bool = False,
        alternatives: Sequence[Mapping[str, str]] = (),
    ) -> tuple[TestGeneration, dict[str, str]]:
        """Write, prove and render the tests for a patch: `changes` (path -> patched text) over
        `base_texts`, made by the accepted `fixes`. `reuse` (a replacement
        patch): the model's cases of the previous call are proven again instead of asking the model
        anew; the embedded generator runs again, since its tests pin the patched code's results.
        `alternatives`: the other fixes the tests allow (path -> text each); a case that fails on
        one of them asserts a guess, and ships only when an oracle backs it."""
        generation = TestGeneration()
        files: dict[str, str] = {}
        patched = {**base_texts, **changes}
        functions = _changed_functions(fixes, patched)
        by_target: dict[str, list[TestCase]] = {}
        kept = [c for cases in self.collected.values() for c in cases if c.origin != "embedded"]
        for case in kept if reuse else self.spec_cases:
            by_target.setdefault(case.target, []).append(case)
        for definition in functions:
            module = module_name(definition.file)
            target = f"{definition.file}::{definition.qualname}"
            cases = by_target.setdefault(target, [])
            if self.qa is not None and self.qa.adversarial is not None and not reuse:
                started = time.time()
                code = "\n".join(
                    patched[definition.file].splitlines()[definition.line - 1 : definition.end_line]
                )
                found = self.qa.adversarial_tests(
                    definition,
                    module,
                    code,
                    self.context.failing,
                    self.context.existing,
                    self.context.lessons(),
                )
                cases += found
                self._emit(
                    "qa_adversarial", started, function=definition.qualname, cases=[c.name for c in found]
                )
            if self.edge_cases is not None:
                started = time.time()
                others = [a.get(definition.file, base_texts[definition.file]) for a in alternatives]
                edge = self.edge_cases(
                    definition, module, base_texts[definition.file], patched[definition.file], others
                )
                cases += edge.cases
                generation.risks += edge.risks
                self._emit(
                    "edge_cases", started, function=definition.qualname, cases=[c.name for c in edge.cases],
                    probes=edge.probes, risks=list(edge.risks), notes=list(edge.notes),
                )  # fmt: skip
        self.collected = {t: list(c) for t, c in by_target.items()}
        taken = set(self.existing_files)
        for target, cases in by_target.items():
            if not cases:
                continue
            cases = _unique_names(cases)
            function = target.rsplit("::", 1)[-1]
            path = new_test_path(function, failing_tests, taken)
            taken.add(path)
            origins = sorted({c.origin for c in cases})
            header = (
                f"Tests selfheal wrote for `{function}` ({target.split('::')[0]}): "
                + "; ".join(HEADERS[o] for o in origins)
                + ".\nEach test says what its proof run showed."
            )
            started = time.time()
            proof = self.prover.prove(TestFile(path, tuple(cases), header), changes, alternatives)
            proven, discarded = proof.proven, proof.discarded
            generation.proven += proven
            generation.discarded += discarded
            generation.patch_wrote += proof.patch_wrote
            shipped = [p for p in proven if p.kind is not None]
            self._emit(
                "prove_tests", started, path=path,
                fail_to_pass=sum(p.kind == FAIL_TO_PASS for p in shipped),
                guard=sum(p.kind == "guard" for p in shipped),
                discarded=[f"{c.name}: {why}" for c, why in discarded][:10],
                **({"patch_wrote": list(proof.patch_wrote[:10])} if proof.patch_wrote else {}),
            )  # fmt: skip
            if shipped:
                labels = {p.case.name: LABELS[p.kind] for p in shipped}
                files[path] = TestFile(path, tuple(p.case for p in shipped), header).render(labels)
        for proven in generation.proven:
            if proven.contested:
                generation.discarded.append((proven.case, CONTESTED))
            elif proven.kind is None:
                generation.discarded.append(
                    (
                        proven.case,
                        f"fails on the patched code ({proven.patch_message or 'failed'}); not shipped",
                    )
                )
        return generation, files

    def _emit(self, node: str, started: float, **data: object) -> None:
        self.events.emit(Event(node, started, time.time(), data))


def _definition(sources: dict[str, str], file: str, function: str) -> Definition | None:
    if file not in sources:
        return None
    index = CodeIndex(CodeBase({file: sources[file]}))
    found = [d for d in index.find(function, file=file) if d.kind in ("function", "method")]
    return found[0] if found else None


def entry_functions(
    tests: dict[str, str], sources: dict[str, str], localization: Localization
) -> list[Definition]:
    """Source functions the failing tests call by name: the API whose promise they check. Ordered
    by how many failing tests call them, then by suspiciousness; the most suspicious targets when
    the tests call nothing found in the sources."""
    index = CodeIndex(CodeBase(dict(sources)))
    public = {d.name: d for d in index.definitions if d.kind in ("function", "method") and not d.readonly}
    counts: dict[Definition, int] = {}
    for code in tests.values():
        called: set[str] = set()
        try:
            tree = ast.parse(textwrap.dedent(code))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
                if name in public:
                    called.add(name)
        for name in called:
            counts[public[name]] = counts.get(public[name], 0) + 1
    score = {(t.file, t.function): t.suspiciousness for t in localization.targets}
    ranked = sorted(counts, key=lambda d: (-counts[d], -score.get((d.file, d.qualname), 0.0), d.file, d.line))
    if ranked:
        return ranked
    found = [_definition(sources, t.file, t.function) for t in localization.targets]
    return [d for d in found if d is not None]


def _changed_functions(fixes: Sequence[Candidate], patched: dict[str, str]) -> list[Definition]:
    """The functions the accepted fixes edited, in the patched text, at most MAX_FUNCTIONS."""
    found: dict[tuple[str, str], Definition] = {}
    for fix in fixes:
        for part in fix.parts or (fix,):
            definition = _definition(patched, part.file, part.function) if part.function else None
            if definition is not None:
                found.setdefault((definition.file, definition.qualname), definition)
    return list(found.values())[:MAX_FUNCTIONS]


def _unique_names(cases: list[TestCase]) -> list[TestCase]:
    """Writers do not know each other's names: a clash gets a suffix, and a case whose code is the
    same as an earlier one is dropped."""
    from dataclasses import replace

    seen_names: set[str] = set()
    seen_code: set[str] = set()
    out = []
    for case in cases:
        body = case.code.split(":", 1)[-1].strip()
        if body in seen_code:
            continue
        seen_code.add(body)
        name = case.name
        number = 2
        while name in seen_names:
            name = f"{case.name}_{number}"
            number += 1
        if name != case.name:
            case = replace(case, name=name, code=case.code.replace(f"def {case.name}(", f"def {name}(", 1))
        seen_names.add(name)
        out.append(case)
    return out
