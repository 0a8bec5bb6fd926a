import pytest

from aspect import AspectRatio, common_divisor, reduce_pair


def test_divisor_examples():
    assert common_divisor(48, 18) == 6
    assert common_divisor(18, 48) == 6
    assert common_divisor(7, 7) == 7
    assert common_divisor(0, 5) == 5
    assert common_divisor(0, 0) == 0


def test_reduce_examples():
    assert reduce_pair(1280, 1024) == (5, 4)
    assert reduce_pair(3440, 1440) == (43, 18)
    assert reduce_pair(1080, 1920) == (9, 16)
    assert reduce_pair(500, 500) == (1, 1)


def test_parse_with_x_and_spaces():
    assert AspectRatio.parse(" 2560 x 1080 ") == AspectRatio(64, 27)


def test_of_names_widescreen():
    assert AspectRatio.of(3840, 2160).name == "widescreen"


def test_parse_rejects_text_without_separator():
    with pytest.raises(ValueError):
        AspectRatio.parse("169")
