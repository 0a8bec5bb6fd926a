import pytest

from jsonpick import get

DOC = {"xs": [10, 20, 30], "empty": [], "nested": [[1, 2], [3]]}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("xs[0]", 10),
        ("xs[2]", 30),
        ("xs[3]", "d"),
        ("xs[4]", "d"),
        ("xs[-1]", 30),
        ("xs[-3]", 10),
        ("xs[-4]", "d"),
        ("empty[0]", "d"),
        ("empty[-1]", "d"),
        ("nested[1][0]", 3),
        ("nested[1][1]", "d"),
        ("nested[2][0]", "d"),
    ],
)
def test_indexes(path, expected):
    assert get(DOC, path, "d") == expected
