import pytest

from phones import format_international, same_number, to_e164


@pytest.mark.parametrize(
    ("text", "country", "expected"),
    [
        ("0044 20 7946 0018", "GB", "+442079460018"),
        ("00 353 1 234 5678", "GB", "+35312345678"),
        ("0049 30 901820", "FR", "+4930901820"),
        ("001 415 555 2671", "GB", "+14155552671"),
        ("06 12 34 56 78", "FR", "+33612345678"),
        ("030 901820", "DE", "+4930901820"),
        ("+31 20 123 4567", "US", "+31201234567"),
        ("415.555.2671", "US", "+14155552671"),
    ],
)
def test_to_e164(text, country, expected):
    assert to_e164(text, country) == expected


def test_all_three_spellings_are_the_same_number():
    assert same_number("+44 20 7946 0018", "0044 20 7946 0018")
    assert same_number("0044 20 7946 0018", "020 7946 0018")


def test_format_international_of_00_number():
    assert format_international("00353 1 234 5678") == "+353 12345678"
