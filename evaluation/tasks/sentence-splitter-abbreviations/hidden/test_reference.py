import pytest

from sentences import split_sentences


@pytest.mark.parametrize("title", ["Mr", "Mrs", "Prof", "Dr", "St", "MR", "Approx"])
def test_capitalised_abbreviations_do_not_end_sentences(title):
    text = f"Ask {title}. Jones first. Then go."
    assert split_sentences(text) == [f"Ask {title}. Jones first.", "Then go."]


def test_abbreviation_in_brackets():
    text = "See the chart (Fig. 3) below. It is clear."
    assert split_sentences(text) == ["See the chart (Fig. 3) below.", "It is clear."]


def test_lower_case_word_not_in_list_ends_a_sentence():
    assert split_sentences("It is done. Next.") == ["It is done.", "Next."]
