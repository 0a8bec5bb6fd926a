"""Recall: the most similar earlier heal first, a dissimilar one not at all; lessons and order."""

from __future__ import annotations

import math

from selfheal.agent.report.recall import (
    bm25plus_scores,
    helped,
    lesson_of,
    lessons_of,
    order_of,
    recall,
    words,
)
from tests.agent.report.test_memory import record


def test_words_split_names_and_drop_noise():
    assert words("tests/test_rates.py::test_hit_rate ZeroDivisionError") == [
        "rates", "hit", "rate", "zero", "division", "error",
    ]  # fmt: skip


def test_bm25plus_scores_are_the_papers_formula():
    # the scores rank_bm25's BM25Plus (k1 1.5, b 0.75, delta 1) gave for this corpus, to the last bit
    corpus = [
        ["zero", "division", "error", "average", "word", "length"],
        ["index", "error", "merge", "intervals"],
        ["zero", "division", "error", "mean"],
    ]
    query = ["zero", "division", "error", "average"]
    assert bm25plus_scores(corpus, query) == [5.771903144418262, 3.3677172843346863, 4.8492532427834245]
    # by hand for the second document: only "error" (in all three: idf log(4/3)) is in it; the
    # query's other words add idf * delta each (idf log(4/2) twice, log(4/1) once)
    by_hand = math.log(4 / 3) * (1 + 2.5 / (1.5 * (0.25 + 0.75 * 4 / (14 / 3)) + 1))
    by_hand += 2 * math.log(2) + math.log(4)
    assert math.isclose(bm25plus_scores(corpus, query)[1], by_hand, rel_tol=1e-12)
    # a word no record holds adds nothing, and a store of one record still scores above zero
    assert bm25plus_scores(corpus, ["absent"]) == [0.0, 0.0, 0.0]
    assert bm25plus_scores([["zero", "error"]], ["zero"]) == [math.log(2) * (1 + 2.5 / 2.5)]


def test_the_most_similar_record_is_recalled_first_and_an_unrelated_one_not_at_all():
    rates = record(
        "rates1", error_types=("ZeroDivisionError",), messages=("ZeroDivisionError: division by zero",),
        functions=("hit_rate",), paths=("stats/rates.py",),
        tests=("tests/test_rates.py::test_hit_rate_of_nothing",),
        families=("guard",), fix_sites=(("stats/rates.py", "hit_rate"),),
    )  # fmt: skip
    clamp = record("clamp1")
    parse = record(
        "parse1", error_types=("KeyError",), messages=("KeyError: 'port'",), functions=("read_config",),
        paths=("cfg/read.py",), tests=("tests/test_read.py::test_port",), families=("literal",),
        fix_sites=(("cfg/read.py", "read_config"),),
    )  # fmt: skip
    query = (
        "tests/test_rates.py::test_error_rate_of_nothing ZeroDivisionError division by zero "
        "error_rate stats/rates.py"
    )
    found = recall([clamp, rates, parse], query)
    assert [r.record.id for r in found] == ["rates1"]
    assert 0.5 <= found[0].weight <= 1.0 and found[0].score > 0
    order = order_of(found)
    assert order.families == {"guard": found[0].weight}
    assert order.sites == {("stats/rates.py", "hit_rate"): found[0].weight}
    assert lessons_of(found) == [lesson_of(rates)]
    assert lesson_of(rates).startswith(
        "A similar ZeroDivisionError in hit_rate (stats/rates.py) was fixed by a guard edit"
    )
    assert helped(found[0], [("guard", "stats/rates.py", "error_rate")])
    assert not helped(found[0], [("literal", "stats/rates.py", "error_rate")])


def test_nothing_is_recalled_from_an_empty_store_or_for_an_empty_query():
    assert recall([], "ZeroDivisionError") == []
    assert recall([record("a")], "") == []


def test_a_record_that_was_not_healed_teaches_what_was_ruled_out_and_orders_nothing():
    failed = record("nope", status="not_healed", families=(), fix_sites=(), ruled_out=("name", "off-by-one"))
    found = recall([failed], "AssertionError clamp pkg/a.py")
    assert [r.record.id for r in found] == ["nope"]
    assert not order_of(found)
    assert lesson_of(failed).endswith("was not healed; ruled out: name, off-by-one.")
