"""The embedded search engine: mutation-based program repair, no model needed.

Candidates come from the directed families, the mutation operators, the fix templates and
expression synthesis (capped per statement and per heal) applied to the most suspicious
statements first, ranked by suspiciousness x operator prior (ties broken by a seeded shuffle, so
a given seed always gives the same order). Each is screened; once one is plausible, a few more
are screened so that the smallest plausible edit can win. When no single mutation fixes
anything, pairs of the most promising singles are tried (bounded). When even those leave the
budget unspent, the search widens to the lines the failing tests point to only weakly (below a
quarter of the best line's suspiciousness, down to `wide_floor`), for its best-ranked
`wide_candidates` single mutations: the quarter floor keeps the first pass precise, it should not
end a heal that has budget left.
"""

from __future__ import annotations

import ast
import difflib
import io
import itertools
import random
import re
import time
import tokenize
import warnings
from dataclasses import dataclass

from selfheal.agent.localize.spectrum import FIRST_LOOK_SHARE
from selfheal.agent.repair.directed import directed_mutations
from selfheal.agent.repair.edits import Candidate, Edit, SourceFile, TopLevelSpans, apply_edits, content_key
from selfheal.agent.repair.evidence import FailureEvidence
from selfheal.agent.repair.mutation import (
    FunctionFacts,
    ModuleFacts,
    enclosing_function,
    header_nodes,
    parent_map,
    statement_at,
)
from selfheal.agent.repair.operators import statement_mutations
from selfheal.agent.repair.scope import scope_at
from selfheal.agent.repair.strategy import Budget, RepairContext, RepairOutcome, ScreenFn, Screening
from selfheal.agent.repair.synthesis import MAX_PER_STATEMENT, synthesized_mutations
from selfheal.agent.repair.templates import template_mutations
from selfheal.agent.repair.value_evidence import ValueEvidence

ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


@dataclass(frozen=True)
class SearchSettings:
    max_lines: int = 40
    # suspicious lines first searched: at least this share of the best line's suspiciousness
    floor: float = FIRST_LOOK_SHARE
    # the widened pass, once the first found nothing: down to this share, up to max_lines in all,
    # and at most this many candidates: its lines are weakly suspect, so it gets a short look
    # (about ten seconds of screening), not the rest of the budget
    wide_floor: float = 0.05
    wide_candidates: int = 200
    explore_after_plausible: int = 40
    explore_seconds: float = 15.0  # ... or this long, whichever ends first
    # distinct plausible patches to collect, so that where they disagree can be shown: at most
    # this many in all, and a handful at one line (more at one line are spellings of one idea)
    max_plausible: int = 8
    plausible_per_location: int = 3
    max_synthesized: int = 160  # expression synthesis: its cap per pass (first lines, widened)
    pair_pool: int = 14
    pair_pool_disruptive: int = 4  # places in the pool for singles that broke a passing test
    max_pairs: int = 250
    single_share: float = 0.75  # of the candidate budget, before pairs get their turn
    module_definition_discount: float = 0.5  # a module-level constant read by a suspicious line


def edit_size(candidate: Candidate, sources: dict[str, str]) -> int:
    """Tokens inserted, deleted or replaced: `<` -> `<=` is 1, a new guard about 8."""
    size = 0
    for edit in candidate.edits:
        old = sources[edit.file].encode("utf-8")[edit.start : edit.end].decode("utf-8")
        before, after = _tokens(old), _tokens(edit.text)
        matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
        size += sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal")
    return size


def _tokens(text: str) -> list[str]:
    try:
        return [
            t.string
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type
            not in (
                tokenize.NL,
                tokenize.NEWLINE,
                tokenize.INDENT,
                tokenize.DEDENT,
                tokenize.ENDMARKER,
                tokenize.COMMENT,
            )
        ]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return text.split()


def _definitions_read(statement: ast.stmt, parents, module: ModuleFacts) -> list[ast.stmt]:
    """The module- and class-level assignments a statement's own lines read, directly or one
    step back through the local names they read (`m = self.RE.search(block)` then `m.group(1)`:
    the pattern that made `m` decides what the suspicious line sees)."""
    owner = _enclosing_class(statement, parents)
    read = _definitions_on(header_nodes(statement), owner, module)
    function = enclosing_function(statement, parents)
    if function is not None:
        local = {
            node.id
            for header in header_nodes(statement)
            for node in ast.walk(header)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
        }
        assignments = (ast.Assign, ast.AnnAssign, ast.AugAssign)
        for assignment in ast.walk(function):
            if assignment is not statement and isinstance(assignment, assignments):
                targets = assignment.targets if isinstance(assignment, ast.Assign) else [assignment.target]
                if any(isinstance(t, ast.Name) and t.id in local for t in targets):
                    read += _definitions_on([assignment.value], owner, module)
    return list(dict.fromkeys(read))


def _definitions_on(nodes, owner: str | None, module: ModuleFacts) -> list[ast.stmt]:
    read: list[ast.stmt] = []
    for node in (n for top in nodes if top is not None for n in ast.walk(top)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in module.definitions:
            read.append(module.definitions[node.id])
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            receiver = node.value.id
            if receiver in ("self", "cls") and owner is not None:
                definition = module.class_definition(owner, node.attr)
            elif receiver in module.class_bases:
                definition = module.class_definition(receiver, node.attr)
            else:
                continue
            if definition is not None:
                read.append(definition)
    return read


def _enclosing_class(statement: ast.stmt, parents) -> str | None:
    node = parents.get(statement)
    while node is not None and not isinstance(node, ast.ClassDef):
        node = parents.get(node)
    return node.name if node is not None else None


@dataclass
class _Walk:
    """What one repair's candidate generation reads once for all its passes: the files parsed so
    far (path -> source, parents, module facts), the statements already taken as sites, and the
    failing tests' evidence."""

    files: dict[str, tuple[SourceFile, dict, ModuleFacts]]
    statements_seen: set[tuple[str, int, int]]
    evidence: FailureEvidence
    spans: TopLevelSpans
    values: ValueEvidence

    @classmethod
    def of(cls, context: RepairContext) -> _Walk:
        return cls(
            {}, set(), FailureEvidence.of(context), TopLevelSpans(context.sources), ValueEvidence.of(context)
        )


class SearchStrategy:
    name = "search"

    def __init__(self, settings: SearchSettings | None = None) -> None:
        self.settings = settings or SearchSettings()

    # -- candidate generation ------------------------------------------------------------
    def candidates(self, context: RepairContext, wide: bool = False) -> list[Candidate]:
        """The first pass's candidates; with `wide`, those of the lines only the widened pass
        reaches (the first pass's statements left out)."""
        walk = _Walk.of(context)
        sites = self._next_sites(context, walk, self.settings.floor)
        if wide:
            sites = self._next_sites(context, walk, self.settings.wide_floor)
        return self._mutations_at(context, walk, sites)

    def _next_sites(self, context, walk: _Walk, floor: float) -> list[tuple[str, ast.stmt, float, str]]:
        """The statements of the suspicious lines down to `floor` (file, statement, suspiciousness,
        function), most suspicious first, then the definitions they read; none the walk has
        taken already, and the walk takes these."""
        sites: list[tuple[str, ast.stmt, float, str]] = []
        files, statements_seen = walk.files, walk.statements_seen
        for suspect in context.localization.top_lines(self.settings.max_lines, floor=floor):
            if suspect.file not in context.sources:
                continue
            if suspect.file not in files:
                try:
                    src = SourceFile(suspect.file, context.sources[suspect.file])
                except SyntaxError:
                    continue
                files[suspect.file] = (src, parent_map(src.tree), ModuleFacts(src))
            src, parents, _ = files[suspect.file]
            statement = statement_at(src, suspect.line, parents)
            if statement is None:
                continue
            key = (suspect.file, statement.lineno, statement.col_offset)
            if key in statements_seen:
                continue
            statements_seen.add(key)
            sites.append((suspect.file, statement, suspect.score, suspect.function))
        return sites + self._module_definitions(sites, files, statements_seen)

    def _mutations_at(self, context, walk: _Walk, sites) -> list[Candidate]:
        files, evidence, spans, values = walk.files, walk.evidence, walk.spans, walk.values
        contents_seen: set[str] = set()
        found: list[Candidate] = []
        synthesized_left = self.settings.max_synthesized
        recalled = context.recalled  # earlier heals of this repository: a reorder, never a filter
        for path, statement, score, function_name in sites:
            src, parents, module = files[path]
            facts = FunctionFacts(src, enclosing_function(statement, parents))
            scope = scope_at(src, statement, parents, facts, module)
            synthesized = synthesized_mutations(
                src,
                statement,
                parents,
                facts,
                module,
                values,
                limit=min(MAX_PER_STATEMENT, synthesized_left),
                scope=scope,
            )
            synthesized_left -= len(synthesized)
            mutations = itertools.chain(
                directed_mutations(src, statement, parents, facts, evidence, context.sources),
                statement_mutations(src, statement, parents, facts, module, context.hints),
                template_mutations(src, statement, parents, facts, module, scope),
                synthesized,  # last: a candidate another family also makes keeps that family's name
            )
            for mutation in mutations:
                try:
                    changed = changed_text(spans, context.sources, mutation.edits)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        for changed_path, text in changed.items():
                            compile(text, changed_path.partition(":")[0], "exec")
                except (SyntaxError, ValueError):
                    continue
                digest = content_key(changed)
                if digest in contents_seen:
                    continue
                contents_seen.add(digest)
                found.append(Candidate(
                    edits=mutation.edits,
                    family=mutation.family,
                    description=f"{path}:{statement.lineno}: {mutation.description}",
                    file=path,
                    line=statement.lineno,
                    function=function_name,
                    score=score * mutation.prior * recalled.boost(mutation.family, path, function_name),
                ))  # fmt: skip
        rng = random.Random(context.seed)
        tiebreak = {id(c): rng.random() for c in found}
        found.sort(key=lambda c: (-round(c.score, 9), tiebreak[id(c)]))
        return found

    def _module_definitions(self, sites, files, statements_seen) -> list[tuple[str, ast.stmt, float, str]]:
        """Definitions run at import that suspicious statements read: module-level
        (`PATTERN = re.compile(...)`, `UNITS = {...}`) and class-level, read through `self`, `cls`
        or the class's name (`RE = re.compile(...)` read as `self.RE.search(block)`). Coverage
        never blames them, as they run before any test; the bug can still be there. Each is a
        site at a discount of the best statement reading it."""
        found: dict[tuple[str, int, int], tuple[str, ast.stmt, float, str]] = {}
        for path, statement, score, _ in sites:
            _, parents, module = files[path]
            discounted = score * self.settings.module_definition_discount
            for definition in _definitions_read(statement, parents, module):
                key = (path, definition.lineno, definition.col_offset)
                if key in statements_seen or (key in found and found[key][2] >= discounted):
                    continue
                found[key] = (path, definition, discounted, "<module>")
        statements_seen.update(found)
        return list(found.values())

    # -- search ---------------------------------------------------------------------------
    def repair(self, context: RepairContext, screen: ScreenFn, budget: Budget) -> RepairOutcome:
        outcome = RepairOutcome()
        walk = _Walk.of(context)
        singles = self._mutations_at(context, walk, self._next_sites(context, walk, self.settings.floor))
        single_limit = budget.spent + max(
            1, int((budget.max_candidates - budget.spent) * self.settings.single_share)
        )
        promising, disruptive = self._singles(singles, screen, budget, outcome, single_limit)
        # Pairs also when a single fixed some tests: a partial fix found first can be a
        # coincidence (arguments swapped into a lucky result) that a pair does properly.
        if not outcome.plausible and not budget.exhausted:
            self._pairs(context, screen, budget, singles, promising, disruptive, outcome)
        if not outcome.plausible and not budget.exhausted:
            wide_sites = self._next_sites(context, walk, self.settings.wide_floor)
            wider = self._mutations_at(context, walk, wide_sites)[: self.settings.wide_candidates]
            outcome.widened = bool(wider)
            self._singles(wider, screen, budget, outcome, budget.max_candidates)
        outcome.plausible.sort(key=lambda s: (edit_size(s.candidate, context.sources), -s.candidate.score))
        if not outcome.stopped_because and budget.exhausted:
            outcome.stopped_because = budget.reason
        return outcome

    def _singles(
        self, singles, screen, budget, outcome, single_limit
    ) -> tuple[list[Screening], list[Screening]]:
        """Screen single mutations in order until the budget, `single_limit` without a plausible
        one, or the exploring after the first plausible one ends; returns the screenings that
        broke nothing (promising) and those that broke a passing test (disruptive), for pairs."""
        settings = self.settings
        since_plausible = 0
        first_plausible_at = 0.0
        promising: list[Screening] = []  # changed nothing for the worse
        disruptive: list[Screening] = []  # broke a passing test: half of a two-edit fix can
        for candidate in singles:
            if outcome.plausible and (
                since_plausible >= settings.explore_after_plausible
                or len(outcome.plausible) >= settings.max_plausible
                or time.monotonic() - first_plausible_at > settings.explore_seconds
            ):
                break
            if budget.spent >= single_limit and not outcome.plausible:
                break
            if not budget.take():
                outcome.stopped_because = budget.reason
                break
            result = self._screen(screen, candidate, outcome)
            if outcome.plausible:
                since_plausible += 1
            if result.plausible:
                if not outcome.plausible:
                    first_plausible_at = time.monotonic()
                if self._room_at(outcome, candidate):
                    outcome.plausible.append(result)
            elif result.improving:
                if outcome.partial is None or _better_partial(result, outcome.partial):
                    outcome.partial = result
            elif result.error is None and not result.broken:
                promising.append(result)
            elif result.error is None and len(disruptive) < 200:
                disruptive.append(result)
        return promising, disruptive

    def _room_at(self, outcome: RepairOutcome, candidate: Candidate) -> bool:
        """Another plausible patch at this candidate's line is kept while the line has fewer than
        `plausible_per_location`."""
        here = sum(
            1
            for s in outcome.plausible
            if (s.candidate.file, s.candidate.line) == (candidate.file, candidate.line)
        )
        return here < self.settings.plausible_per_location

    def _screen(self, screen: ScreenFn, candidate: Candidate, outcome: RepairOutcome) -> Screening:
        result = screen(candidate)
        outcome.tried += 1
        outcome.families_tried[candidate.family] = outcome.families_tried.get(candidate.family, 0) + 1
        if not result.plausible and len(outcome.ruled_out) < 200:
            outcome.ruled_out.append(result)
        return result

    def _pairs(self, context, screen, budget, singles, promising, disruptive, outcome) -> None:
        """Two mutations together, when no single one fixes anything.

        The pool: singles that changed how a target fails without breaking anything, then a few
        that changed it but broke a passing test (each half of `+=`/`-=` swapped on two lines
        breaks a "money is conserved" test alone), then the best-ranked singles.
        """
        reserved = self.settings.pair_pool_disruptive
        clean = sorted(
            (s for s in promising if s.messages and _moved(s, context)), key=lambda s: -s.candidate.score
        )
        broken = sorted(
            (s for s in disruptive if s.messages and _moved(s, context)), key=lambda s: -s.candidate.score
        )
        pool = [s.candidate for s in clean[: self.settings.pair_pool - min(reserved, len(broken))]]
        pool += [s.candidate for s in broken[:reserved]]
        for candidate in singles:
            if len(pool) >= self.settings.pair_pool:
                break
            if candidate not in pool:
                pool.append(candidate)
        pool = pool[: self.settings.pair_pool]
        pairs = []
        for i, first in enumerate(pool):
            for second in pool[i + 1 :]:
                if not first.conflicts_with(second):
                    pairs.append(first.combined_with(second))
        pairs.sort(key=lambda c: -c.score)
        for candidate in pairs[: self.settings.max_pairs]:
            if outcome.plausible and len(outcome.plausible) >= self.settings.max_plausible:
                break
            if not budget.take():
                outcome.stopped_because = budget.reason
                return
            try:
                apply_edits(context.sources, candidate.edits)
            except ValueError:
                continue
            result = self._screen(screen, candidate, outcome)
            if result.plausible:
                if self._room_at(outcome, candidate):
                    outcome.plausible.append(result)
            elif result.improving and (outcome.partial is None or _better_partial(result, outcome.partial)):
                outcome.partial = result


def _better_partial(new: Screening, old: Screening) -> bool:
    return (len(new.fixed), new.candidate.score) > (len(old.fixed), old.candidate.score)


def _moved(result: Screening, context: RepairContext) -> bool:
    """Did the candidate change how a target fails (a sign it touches the bug)? An object's
    address in a message (`<Cart object at 0x7f...>`) changes from one process to the next."""

    def plain(message: str) -> str:
        return ADDRESS.sub(" at 0x", message)

    return any(
        plain(result.messages.get(t, "")) != plain(context.baseline_messages.get(t, ""))
        for t in context.targets
        if t in result.still_failing
    )


def changed_text(spans: TopLevelSpans, sources: dict[str, str], edits: tuple[Edit, ...]) -> dict[str, str]:
    """What a mutation changes, to compile and to key: `path:start:end` -> the new text of the
    top-level statements it touches, or `path` -> the whole new file where no such span holds
    it. Either way the key determines the whole new content."""
    touched = spans.touched(edits)
    if touched is None:
        return apply_edits(sources, edits)
    return {f"{path}:{start}:{end}": text for path, (start, end, text) in touched.items()}
