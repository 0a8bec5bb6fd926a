import pytest

from paging import PageOutOfRange, page_count, paginate


@pytest.mark.parametrize(
    ("total", "per_page", "expected"),
    [(1, 10, 1), (9, 10, 1), (10, 10, 1), (11, 10, 2), (99, 10, 10), (100, 10, 10), (7, 1, 7), (7, 3, 3)],
)
def test_page_count(total, per_page, expected):
    assert page_count(total, per_page) == expected


def test_every_item_is_on_exactly_one_page():
    items = list(range(23))
    per_page = 5
    seen = []
    for number in range(1, page_count(len(items), per_page) + 1):
        seen.extend(paginate(items, number, per_page).items)
    assert seen == items
    with pytest.raises(PageOutOfRange):
        paginate(items, 6, per_page)
