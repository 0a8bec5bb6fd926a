from highlight import highlight, snippet


def test_highlight_without_match_leaves_text():
    assert highlight("plain text", ["zzz"]) == "plain text"


def test_highlight_marks_each_term():
    assert highlight("red fox, red hen", ["red"]) == "<mark>red</mark> fox, <mark>red</mark> hen"


def test_snippet_missing_term():
    assert snippet("nothing here", "absent") is None

