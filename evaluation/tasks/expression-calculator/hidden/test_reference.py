import pytest

from calc import evaluate


@pytest.mark.parametrize(
    "text",
    [
        "1 - 1 - 1 - 1",
        "20 - 5 + 3 - 2 + 1",
        "2 * 3 - 4 * 5 - 6",
        "-1 - -2 - 3",
        "10 - (4 - 3) - 2",
        "7 % 4 - 2 ** 2 - 1",
        "1 + 2 + 3 - 4 - 5 + 6",
    ],
)
def test_matches_python(text):
    assert evaluate(text) == eval(text)


def test_subtraction_in_function_arguments():
    assert evaluate("max(10 - 4 - 3, 1) - min(2, 9 - 1 - 1)") == 1


def test_variables_in_chains():
    assert evaluate("a - b - c", {"a": 10, "b": 4, "c": 1}) == 5
