import pytest

from aspect import common_divisor, reduce_pair


def test_divisor_with_zero():
    assert common_divisor(12, 0) == 12


def test_divisor_of_coprime_numbers():
    assert common_divisor(9, 16) == 1


def test_reduce_full_hd():
    assert reduce_pair(1920, 1080) == (16, 9)


def test_reduce_rejects_zero():
    with pytest.raises(ValueError):
        reduce_pair(0, 10)
