from textstats import summary, top_words


def test_top_words_breaks_ties_alphabetically():
    assert top_words("b a c b a d", n=3) == [("a", 2), ("b", 2), ("c", 1)]


def test_summary():
    result = summary("The cat sat. The dog ran off!")
    assert result == {
        "words": 7,
        "sentences": 2,
        "average_word_length": 3.0,
        "average_sentence_length": 3.5,
        "lexical_diversity": 0.857,
        "top_words": [("the", 2), ("cat", 1), ("dog", 1)],
    }


def test_summary_of_empty_text():
    result = summary("")
    assert result["words"] == 0
    assert result["sentences"] == 0
    assert result["average_word_length"] == 0.0
    assert result["average_sentence_length"] == 0.0
    assert result["lexical_diversity"] == 0.0
    assert result["top_words"] == []
