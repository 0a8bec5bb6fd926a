import json

from csvtyped import Column, to_json

SCHEMA = [Column("id", "int", required=True), Column("shipped", "date"), Column("paid", "bool")]


def test_export_orders():
    text = "id,shipped,paid,note\n1,05/03/2024,yes,first\n2,,no,\n3,2024-04-01,1,x\n"
    document = json.loads(to_json(text, SCHEMA))
    assert document == {
        "records": [
            {"id": 1, "shipped": "2024-03-05", "paid": True},
            {"id": 2, "shipped": None, "paid": False},
            {"id": 3, "shipped": "2024-04-01", "paid": True},
        ],
        "errors": [],
    }


def test_export_reports_bad_lines():
    text = "id,shipped,paid\n1,25/12/2024,no\nx,,yes\n3,,perhaps\n"
    document = json.loads(to_json(text, SCHEMA))
    assert document["records"] == [{"id": 1, "shipped": "2024-12-25", "paid": False}]
    assert [error.split(":")[0] for error in document["errors"]] == ["line 3, id", "line 4, paid"]


def test_export_of_header_only():
    assert json.loads(to_json("id,shipped,paid\n", SCHEMA)) == {"errors": [], "records": []}
