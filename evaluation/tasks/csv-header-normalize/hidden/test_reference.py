from colnames import normalize_headers, rename_rows


def test_three_repeats():
    assert normalize_headers(["Name", "name", "NAME "]) == ["name", "name_2", "name_3"]


def test_repeats_of_several_names():
    headers = ["A", "B", "a", "b", "A"]
    assert normalize_headers(headers) == ["a", "b", "a_2", "b_2", "a_3"]


def test_empty_headers_are_numbered_columns():
    assert normalize_headers(["", "  ", "x"]) == ["column", "column_2", "x"]


def test_first_use_keeps_its_name():
    assert normalize_headers(["total", "Total"])[0] == "total"


def test_rows_with_repeated_headers():
    rows = [["Tag", "Tag"], ["a", "b"], ["c", "d"]]
    assert rename_rows(rows) == [{"tag": "a", "tag_2": "b"}, {"tag": "c", "tag_2": "d"}]
