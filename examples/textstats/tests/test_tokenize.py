from textstats import sentences, words


def test_words_are_lower_cased_and_stripped_of_punctuation():
    assert words("The cat, the HAT!") == ["the", "cat", "the", "hat"]


def test_contractions_stay_whole():
    assert words("Don't stop.") == ["don't", "stop"]


def test_sentences():
    assert sentences("One two. Three? Four!  ") == ["One two.", "Three?", "Four!"]


def test_punctuation_only_text_has_no_sentence():
    assert sentences("... !!! ?") == []
