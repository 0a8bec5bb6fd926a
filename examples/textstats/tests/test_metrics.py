import pytest

from textstats import (
    average_sentence_length,
    average_word_length,
    lexical_diversity,
    word_frequencies,
)


def test_average_word_length():
    assert average_word_length("The cat sat.") == 3.0
    assert average_word_length("a bb ccc dddd") == 2.5


def test_average_word_length_rounds_to_two_places():
    assert average_word_length("ab abc abc") == pytest.approx(2.67)


def test_average_word_length_of_text_without_words_is_zero():
    assert average_word_length("--- ... !!!") == 0.0


def test_average_sentence_length():
    assert average_sentence_length("One two three. Four five.") == 2.5


def test_lexical_diversity():
    assert lexical_diversity("the cat and the hat") == 0.8
    assert lexical_diversity("") == 0.0


def test_word_frequencies():
    assert word_frequencies("b a b")["b"] == 2
