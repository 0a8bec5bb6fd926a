import pytest

from calc import CalcError, evaluate


def test_precedence():
    assert evaluate("2 + 3 * 4") == 14
    assert evaluate("(2 + 3) * 4") == 20


def test_division_chain():
    assert evaluate("100 / 10 / 2") == 5


def test_subtraction_is_left_associative():
    assert evaluate("10 - 3 - 2") == 5


def test_mixed_additive_chain():
    assert evaluate("1 - 2 + 3") == 2


def test_power_is_right_associative():
    assert evaluate("2 ** 3 ** 2") == 512


def test_unary_minus():
    assert evaluate("-3 * -(2 + 1)") == 9


def test_variables_and_functions():
    assert evaluate("max(a, b * 2) + sqrt(16)", {"a": 3, "b": 5}) == 14


@pytest.mark.parametrize("text", ["1 +", "2 * (3", "1 / 0", "foo(1)", "x + 1", "3 $ 4"])
def test_errors(text):
    with pytest.raises(CalcError):
        evaluate(text)
