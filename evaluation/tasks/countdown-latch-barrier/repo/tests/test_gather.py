from synckit import run_all


def test_no_tasks():
    assert run_all([]) == []


def test_results_in_order():
    assert run_all([lambda: 1, lambda: 2, lambda: 3]) == [1, 2, 3]
