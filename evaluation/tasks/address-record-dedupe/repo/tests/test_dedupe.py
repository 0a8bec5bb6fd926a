from addresses import by_district, clean, dedupe

RECORDS = [
    {"line1": "12a High St", "town": "birmingham", "postcode": "b33 8th"},
    {"line1": "12A  high street.", "town": "Birmingham", "postcode": "B338TH"},
    {"line1": "4 Park Lane", "town": "leeds", "postcode": "ls1 4ap"},
]


def test_clean_record():
    address = clean(RECORDS[0])
    assert address.label() == "12A High Street, Birmingham B33 8TH"


def test_dedupe_keeps_first_of_each_address():
    assert [a.label() for a in dedupe(RECORDS)] == [
        "12A High Street, Birmingham B33 8TH",
        "4 Park Lane, Leeds LS1 4AP",
    ]


def test_group_by_district():
    records = RECORDS + [
        {"line1": "1 Piccadilly", "town": "manchester", "postcode": "m1 1ae"},
        {"line1": "10 Downing St", "town": "London", "postcode": "sw1a 2aa"},
    ]
    assert by_district(records) == {
        "B33": ["12A High Street, Birmingham B33 8TH"],
        "LS1": ["4 Park Lane, Leeds LS1 4AP"],
        "M1": ["1 Piccadilly, Manchester M1 1AE"],
        "SW1A": ["10 Downing Street, London SW1A 2AA"],
    }
