import pytest

from paging import PageOutOfRange, page_count, page_links, paginate

ITEMS = list(range(1, 26))


def test_first_page():
    page = paginate(ITEMS, 1)
    assert page.items == list(range(1, 11))
    assert page.has_next and not page.has_previous


def test_page_count():
    assert page_count(25, 10) == 3
    assert page_count(20, 10) == 2
    assert page_count(0, 10) == 1


def test_last_partial_page():
    page = paginate(ITEMS, 3)
    assert page.items == [21, 22, 23, 24, 25]
    assert not page.has_next


def test_out_of_range():
    with pytest.raises(PageOutOfRange):
        paginate(ITEMS, 0)
    with pytest.raises(PageOutOfRange):
        paginate(ITEMS, 4)


def test_empty_list_has_one_page():
    assert paginate([], 1).items == []


def test_page_links():
    assert page_links(5, 10) == [1, None, 3, 4, 5, 6, 7, None, 10]
    assert page_links(1, 3) == [1, 2, 3]
