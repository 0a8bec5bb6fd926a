from highlight import find_spans, merge_spans


def test_no_occurrence():
    assert find_spans("hello world", "xyz") == []


def test_empty_term_matches_nothing():
    assert find_spans("hello", "") == []


def test_single_occurrence_ignores_case():
    assert find_spans("Hello World", "world") == [(6, 11)]


def test_every_occurrence():
    assert find_spans("the cat and the hat", "the") == [(0, 3), (12, 15)]


def test_merge_joins_overlaps_and_touching():
    assert merge_spans([(5, 8), (0, 2), (2, 4), (7, 10)]) == [(0, 4), (5, 10)]
