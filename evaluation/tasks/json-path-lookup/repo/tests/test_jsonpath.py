import pytest

from jsonpick import find_all, get, leaf_paths, parse_path

DOC = {
    "customer": {"name": "Ada", "tags": ["vip", "early"]},
    "orders": [
        {"id": 1, "items": [{"sku": "A1"}, {"sku": "B2"}]},
        {"id": 2, "items": []},
    ],
}


def test_parse_path():
    assert parse_path("orders[0].items[-1].sku") == ["orders", 0, "items", -1, "sku"]
    with pytest.raises(ValueError):
        parse_path("orders..id")


def test_get():
    assert get(DOC, "customer.name") == "Ada"
    assert get(DOC, "orders[0].items[-1].sku") == "B2"


def test_missing_key_gives_default():
    assert get(DOC, "customer.email", "n/a") == "n/a"
    assert get(DOC, "customer.name.first") is None


def test_index_past_the_end_gives_default():
    assert get(DOC, "customer.tags[2]", "none") == "none"


def test_leaf_paths():
    assert list(leaf_paths({"a": [1, {"b": 2}]})) == ["a[0]", "a[1].b"]


def test_find_all():
    assert find_all(DOC, "sku") == ["A1", "B2"]
