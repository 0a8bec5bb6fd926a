import pytest

from colnames import normalize_headers, rename_rows, snake_case


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("Unit Price (EUR)", "unit_price_eur"),
        ("orderId", "order_id"),
        ("  Café name ", "cafe_name"),
        ("2nd line", "col_2nd_line"),
        ("class", "class_"),
        ("***", "column"),
    ],
)
def test_snake_case(header, expected):
    assert snake_case(header) == expected


def test_unique_headers_are_unchanged():
    assert normalize_headers(["Id", "Name", "E-mail"]) == ["id", "name", "e_mail"]


def test_repeated_headers_are_numbered():
    assert normalize_headers(["Name", "Phone", "Name"]) == ["name", "phone", "name_2"]


def test_rename_rows_pads_short_rows():
    rows = [["Id", "City"], ["1", "Lyon"], ["2"]]
    assert rename_rows(rows) == [{"id": "1", "city": "Lyon"}, {"id": "2", "city": ""}]


def test_rename_rows_keeps_every_column():
    rows = [["Phone", "phone ", "PHONE"], ["1", "2", "3"]]
    assert rename_rows(rows) == [{"phone": "1", "phone_2": "2", "phone_3": "3"}]


def test_rename_rows_of_nothing():
    assert rename_rows([]) == []
