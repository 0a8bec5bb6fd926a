import pytest

from massunits import convert, to_grams


@pytest.mark.parametrize(
    ("text", "unit", "expected"),
    [
        ("1 lb", "g", 453.59),
        ("16 oz", "lb", 1.0),
        ("1 oz", "g", 28.35),
        ("1 stone", "kg", 6.35),
        ("11 st 4 lb", "kg", 71.67),
        ("1 kg", "lb", 2.2),
        ("100 pounds", "kg", 45.36),
    ],
)
def test_imperial_conversions(text, unit, expected):
    assert convert(text, unit) == expected


def test_grams_per_pound_is_exact():
    assert to_grams("1 lb") == pytest.approx(453.59237)
