import pytest

from addresses import by_district, dedupe, normalize_postcode, postcode_district


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("m11ae", "M1 1AE"),
        ("M1 1AE", "M1 1AE"),
        ("b338th", "B33 8TH"),
        ("cr2 6xh", "CR2 6XH"),
        ("dn551pt", "DN55 1PT"),
        ("w1a 0ax", "W1A 0AX"),
        ("ec1a1bb", "EC1A 1BB"),
    ],
)
def test_normalize_postcode(raw, expected):
    assert normalize_postcode(raw) == expected


def test_district_is_the_outward_code():
    assert postcode_district("ec1a 1bb") == "EC1A"
    assert postcode_district("m1 1ae") == "M1"


def test_same_address_with_short_outward_code_dedupes():
    records = [
        {"line1": "1 Piccadilly", "town": "Manchester", "postcode": "M1 1AE"},
        {"line1": "1 piccadilly", "town": "manchester", "postcode": "m11ae"},
    ]
    assert [a.postcode for a in dedupe(records)] == ["M1 1AE"]


def test_by_district_groups_two_addresses():
    records = [
        {"line1": "2 Hill Rd", "town": "Croydon", "postcode": "cr26xh"},
        {"line1": "5 Vale Ave", "town": "Croydon", "postcode": "CR2 6XJ"},
    ]
    assert by_district(records) == {"CR2": ["2 Hill Road, Croydon CR2 6XH", "5 Vale Avenue, Croydon CR2 6XJ"]}
