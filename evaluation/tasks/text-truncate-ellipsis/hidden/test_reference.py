import pytest

from shorten import truncate, truncate_middle, truncate_words


@pytest.mark.parametrize("width", range(1, 12))
def test_middle_never_exceeds_width(width):
    text = "abcdefghijkl"
    result = truncate_middle(text, width)
    keep = width - 1
    assert len(result) == width
    assert result == text[: (keep + 1) // 2] + "…" + text[len(text) - keep // 2 :]


@pytest.mark.parametrize("width", range(3, 12))
def test_middle_with_long_ellipsis(width):
    result = truncate_middle("abcdefghijklmnop", width, "...")
    assert len(result) == width
    assert "..." in result


def test_middle_keeps_head_and_tail():
    assert truncate_middle("abcdefghij", 6) == "abc…ij"
    assert truncate_middle("abcdefghij", 1) == "…"


def test_other_functions_respect_width():
    for width in range(1, 10):
        assert len(truncate("abcdefghijkl", width)) <= width
        assert len(truncate_words("ab cd ef gh ij", width)) <= width
