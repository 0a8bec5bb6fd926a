import pytest

from wordwrap import fill, wrap, wrap_paragraphs

TEXT = "The quick brown fox jumps over the lazy dog"


def test_short_text_is_one_line():
    assert wrap("hello world", 20) == ["hello world"]


def test_exact_fit():
    assert wrap("aaa bbb ccc", 7) == ["aaa bbb", "ccc"]


def test_lines_never_exceed_width():
    lines = wrap(TEXT, 9)
    assert lines == ["The quick", "brown fox", "jumps", "over the", "lazy dog"]


def test_long_word_is_split():
    assert wrap("a abcdefghij b", 4) == ["a", "abcd", "efgh", "ij b"]


def test_fill_with_indent():
    assert fill("one two three four", 10, indent="> ") == "> one two\n> three\n> four"


def test_paragraphs():
    text = "first para here\n\n\n  second one"
    assert wrap_paragraphs(text, 11) == "first para\nhere\n\nsecond one"


def test_bad_width():
    with pytest.raises(ValueError):
        wrap("x", 0)
