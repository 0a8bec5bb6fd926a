import pytest

from addresses import normalize_postcode, normalize_street


def test_street_abbreviations_are_expanded():
    assert normalize_street("high st.") == "High Street"
    assert normalize_street("  station   rd ") == "Station Road"


def test_postcode_spacing_and_case():
    assert normalize_postcode("b33  8th") == "B33 8TH"
    assert normalize_postcode("LS14AP") == "LS1 4AP"


@pytest.mark.parametrize("code", ["B3", "ABCDEFGH1", "B33 8T!"])
def test_postcode_rejects_garbage(code):
    with pytest.raises(ValueError):
        normalize_postcode(code)
