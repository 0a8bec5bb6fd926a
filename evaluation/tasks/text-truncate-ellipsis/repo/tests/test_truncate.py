import pytest

from shorten import truncate, truncate_middle, truncate_words


def test_truncate():
    assert truncate("Hello world", 8) == "Hello w…"
    assert truncate("Hello", 8) == "Hello"


def test_truncate_custom_ellipsis():
    assert truncate("Hello world", 8, "...") == "Hello..."


def test_width_too_small_for_ellipsis():
    with pytest.raises(ValueError):
        truncate("Hello", 2, "...")


def test_truncate_words():
    assert truncate_words("Hello brave world", 14) == "Hello brave…"
    assert truncate_words("Supercalifragilistic", 6) == "Super…"


def test_truncate_middle():
    assert truncate_middle("/home/user/projects/report.txt", 15) == "/home/u…ort.txt"


def test_middle_with_room_for_one_character():
    assert truncate_middle("abcdef", 2) == "a…"
