"""Recall: the earlier heals of this repository most like the failure at hand.

    recalled = recall(records, query)          # BM25 over error types, messages, names and paths
    order_of(recalled)                         # the search's reorder (embedded mode)
    lessons_of(recalled)                       # the debugger's and generator's lessons (model mode)

Ranked by Okapi BM25+ (Trotman et al., "Improvements to BM25 and Language Models Examined"; BM25+
because its idf stays positive in a store of one or two records, where plain Okapi's goes
negative). A record is recalled only when it shares enough of the query's words; its weight, the
share of the query's distinct words it holds, says how much it may reorder the search. No
network, no model.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from selfheal.agent.localize.spectrum import Localization
from selfheal.agent.repair.recalled import RecalledOrder
from selfheal.agent.report.memory import MemoryRecord
from selfheal.agent.run.junit import error_type
from selfheal.agent.run.testrun import TestReport

MAX_RECALLED = 3
MIN_SHARED = 0.2  # of the query's distinct words a record must hold to be recalled
_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|\d+")
_STOP = frozenset({"py", "test", "tests", "self", "the", "in", "of", "to", "is", "and", "assert", "where"})


def words(text: str) -> list[str]:
    """Lower-cased words, snake_case and CamelCase split: `ZeroDivisionError` -> zero division error."""
    return [w.lower() for w in _WORD.findall(text) if w.lower() not in _STOP]


@dataclass(frozen=True)
class Recalled:
    record: MemoryRecord
    score: float  # BM25+
    weight: float  # 0..1: the share of the query's words it holds


def query_of(baseline: TestReport, targets: Sequence[str], localization: Localization | None) -> str:
    """The failure at hand as recall reads it: the targets' ids, error types and first message
    lines, and the suspects' names and paths."""
    parts: list[str] = []
    for nodeid in targets:
        outcome = baseline.outcomes.get(nodeid)
        message = outcome.message if outcome else ""
        first = (message or "").strip().splitlines()
        parts += [nodeid, error_type(message, outcome.outcome if outcome else ""), first[0] if first else ""]
    if localization is not None:
        for target in localization.targets[:5]:
            parts += [target.function, target.file]
    return " ".join(parts)


def recall(records: Sequence[MemoryRecord], query: str, limit: int = MAX_RECALLED) -> list[Recalled]:
    query_words = words(query)
    distinct = set(query_words)
    if not records or not distinct:
        return []
    corpus = [words(r.text()) or ["_"] for r in records]
    scores = bm25plus_scores(corpus, query_words)
    found = []
    for record, doc, score in zip(records, corpus, scores, strict=True):
        weight = len(distinct & set(doc)) / len(distinct)
        if weight >= MIN_SHARED:
            found.append(Recalled(record, round(float(score), 4), round(weight, 3)))
    found.sort(key=lambda r: (-r.score, r.record.created))
    return found[:limit]


def bm25plus_scores(
    corpus: Sequence[Sequence[str]],
    query: Sequence[str],
    *,
    k1: float = 1.5,
    b: float = 0.75,
    delta: float = 1.0,
) -> list[float]:
    """Each document's BM25+ score for `query` (a repeated query word counts each time), with
    idf = log((N + 1) / n(word)). Plain Python: a store holds hundreds of records, not millions,
    and numpy's import would cost every heal with a memory a tenth of a CPU-second."""
    counts = [Counter(doc) for doc in corpus]
    holding = Counter(word for doc in counts for word in doc)
    size = len(corpus)
    average = sum(len(doc) for doc in corpus) / size
    idf = {word: math.log((size + 1) / n) for word, n in holding.items()}
    # the length part of each document's norm, once per document, not once per query word
    length_norms = [k1 * (1 - b + b * len(doc) / average) for doc in corpus]
    scores = [0.0] * size
    for word in query:
        weight = idf.get(word, 0.0)
        for index, doc in enumerate(counts):
            freq = doc.get(word, 0)
            scores[index] += weight * (delta + (freq * (k1 + 1)) / (length_norms[index] + freq))
    return scores


def order_of(recalled: Iterable[Recalled]) -> RecalledOrder:
    """Families and sites of the recalled fixes, each at its best record's weight."""
    families: dict[str, float] = {}
    sites: dict[tuple[str, str], float] = {}
    for item in recalled:
        if item.record.status not in ("healed", "partial"):
            continue
        for family in item.record.families:
            families[family] = max(families.get(family, 0.0), item.weight)
        for site in item.record.fix_sites:
            sites[site] = max(sites.get(site, 0.0), item.weight)
    return RecalledOrder(families=families, sites=sites)


def lesson_of(record: MemoryRecord) -> str:
    """One lesson (under 200 characters) a recalled record teaches."""
    where = ", ".join(f"{f} ({p})" for p, f in record.fix_sites[:2]) or ", ".join(record.functions[:2])
    kinds = "/".join(record.error_types[:2]) or "a failure"
    if record.status in ("healed", "partial") and record.families:
        text = f"A similar {kinds} in {where} was fixed by a {', '.join(dict.fromkeys(record.families))} edit"
        change = [line for line in record.changed_lines if line.startswith("+")][:1]
        text += f": {change[0][1:].strip()}" if change else "."
    else:
        ruled_out = ", ".join(record.ruled_out[:4]) or "nothing"
        text = f"A similar {kinds} in {where} was not healed; ruled out: {ruled_out}."
    return text if len(text) <= 200 else text[:197] + "..."


def lessons_of(recalled: Iterable[Recalled]) -> list[str]:
    return [lesson_of(item.record) for item in recalled]


def helped(item: Recalled, fixes: Iterable[tuple[str, str, str]]) -> bool:
    """Whether the shipped fix ((family, file, function) per edit) is of a recalled family or at a
    recalled site: the recall pointed where the fix was."""
    return any(
        family in item.record.families or (file, function) in item.record.fix_sites
        for family, file, function in fixes
    )
