import pytest

from wordwrap import wrap

TEXT = (
    "It was the best of times it was the worst of times it was the age of wisdom "
    "it was the age of foolishness antidisestablishmentarianism"
)


@pytest.mark.parametrize("width", range(3, 30))
def test_width_and_words_are_respected(width):
    lines = wrap(TEXT, width)
    assert all(len(line) <= width for line in lines)
    assert "".join(lines).replace(" ", "") == TEXT.replace(" ", "")


@pytest.mark.parametrize("width", range(8, 30))
def test_greedy_lines_are_full(width):
    lines = wrap(TEXT, width)
    for line, following in zip(lines, lines[1:]):
        first_word = following.split(" ")[0]
        if len(first_word) <= width:
            assert len(line) + 1 + len(first_word) > width


def test_two_letter_width():
    assert wrap("a b c d", 3) == ["a b", "c d"]
    assert wrap("ab cd", 4) == ["ab", "cd"]
