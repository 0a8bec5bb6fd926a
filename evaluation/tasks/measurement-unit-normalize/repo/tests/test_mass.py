import pytest

from massunits import UnknownUnit, convert, parse_mass, to_grams


def test_parse_compound_weight():
    assert parse_mass("2 lb 3 oz") == [(2.0, "lb"), (3.0, "oz")]


def test_decimal_comma():
    assert to_grams("1,5 kg") == 1500.0


def test_metric_conversion():
    assert convert("250g", "kg") == 0.25


def test_unknown_unit():
    with pytest.raises(UnknownUnit):
        to_grams("3 cups")


def test_rejects_trailing_text():
    with pytest.raises(ValueError):
        parse_mass("3 kg please")


def test_pounds_to_grams():
    assert convert("1 lb", "g") == 453.59


def test_pounds_and_ounces():
    assert convert("2 lb 8 oz", "kg", digits=3) == 1.134
