from sentences import sentence_lengths, split_sentences


def test_simple_sentences():
    assert split_sentences("It rained. We stayed in! Did you?") == ["It rained.", "We stayed in!", "Did you?"]


def test_no_final_punctuation():
    assert split_sentences("One. Two") == ["One.", "Two"]


def test_lower_case_abbreviation():
    text = "Bring fruit, e.g. apples or pears. Then leave."
    assert split_sentences(text) == ["Bring fruit, e.g. apples or pears.", "Then leave."]


def test_initials():
    assert split_sentences("We met J. Smith today. He was late.") == ["We met J. Smith today.", "He was late."]


def test_title_before_a_name():
    text = "We called Dr. Watson at noon. He came."
    assert split_sentences(text) == ["We called Dr. Watson at noon.", "He came."]


def test_quotes_and_decimals():
    assert split_sentences('He said "stop." It cost 3.50 pounds.') == ['He said "stop."', "It cost 3.50 pounds."]


def test_sentence_lengths():
    assert sentence_lengths("A b c. D e.") == [3, 2]
