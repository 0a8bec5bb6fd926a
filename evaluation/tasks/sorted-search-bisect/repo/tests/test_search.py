from sortedsearch import contains, count_between, insert_sorted, lower_bound, upper_bound

ITEMS = [1, 3, 3, 3, 7, 9]


def test_lower_bound():
    assert lower_bound(ITEMS, 3) == 1
    assert lower_bound(ITEMS, 4) == 4
    assert lower_bound(ITEMS, 0) == 0


def test_lower_bound_past_the_end():
    assert lower_bound(ITEMS, 10) == 6


def test_upper_bound():
    assert upper_bound(ITEMS, 3) == 4
    assert upper_bound(ITEMS, 9) == 6


def test_contains():
    assert contains(ITEMS, 7)
    assert not contains(ITEMS, 5)
    assert not contains([], 5)


def test_count_between():
    assert count_between(ITEMS, 2, 7) == 4


def test_insert_keeps_order():
    items = [2, 4, 6]
    insert_sorted(items, 5)
    insert_sorted(items, 8)
    assert items == [2, 4, 5, 6, 8]


def test_key():
    people = [("ann", 31), ("bob", 40), ("cy", 52)]
    assert lower_bound(people, 40, key=lambda p: p[1]) == 1
