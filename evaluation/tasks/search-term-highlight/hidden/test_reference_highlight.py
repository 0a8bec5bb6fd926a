from highlight import find_spans, highlight, snippet


def test_non_overlapping_repeats():
    assert find_spans("aaaa", "aa") == [(0, 2), (2, 4)]
    assert find_spans("aaa", "aa") == [(0, 2)]


def test_case_sensitive_search():
    assert find_spans("Go go GO", "go", ignore_case=False) == [(3, 5)]


def test_match_at_the_very_end():
    assert find_spans("abcabc", "abc") == [(0, 3), (3, 6)]


def test_highlight_two_terms_overlapping():
    assert highlight("foobar", ["foo", "oba"]) == "<mark>fooba</mark>r"


def test_highlight_custom_markers():
    assert highlight("x y x", ["x"], before="[", after="]") == "[x] y [x]"


def test_snippet_cuts_both_sides():
    text = "a" * 30 + "needle" + "b" * 30
    assert snippet(text, "needle", width=16) == "...aaaaaneedlebbbbb..."


def test_snippet_in_short_text_is_whole_text():
    assert snippet("a short line", "short", width=40) == "a short line"
