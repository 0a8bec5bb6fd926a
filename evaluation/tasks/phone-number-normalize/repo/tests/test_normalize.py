import pytest

from phones import InvalidNumber, format_international, same_number, to_e164


def test_already_international():
    assert to_e164("+44 20 7946 0018") == "+442079460018"


def test_national_trunk_zero_is_dropped():
    assert to_e164("020 7946 0018") == "+442079460018"
    assert to_e164("01 234 5678", default_country="IE") == "+35312345678"


def test_international_prefix_00():
    assert to_e164("0033 1 23 45 67 89") == "+33123456789"


def test_us_number_without_prefix():
    assert to_e164("(415) 555-2671", default_country="US") == "+14155552671"


@pytest.mark.parametrize("text", ["", "12", "call me", "+44 20 7946 0018 0018 0018"])
def test_invalid(text):
    with pytest.raises(InvalidNumber):
        to_e164(text)


def test_same_number_across_formats():
    assert same_number("+44 20 7946 0018", "020-7946-0018")
    assert not same_number("020 7946 0018", "020 7946 0019")


def test_format_international():
    assert format_international("020 7946 0018") == "+44 2079460018"
