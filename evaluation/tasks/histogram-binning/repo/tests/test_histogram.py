from histo import bin_edges, bin_index, histogram, render


def test_bin_index():
    assert bin_index(0, 0, 10, 5) == 0
    assert bin_index(3.9, 0, 10, 5) == 1
    assert bin_index(4, 0, 10, 5) == 2


def test_outside_values_have_no_bin():
    assert bin_index(-0.1, 0, 10, 5) is None
    assert bin_index(10.5, 0, 10, 5) is None


def test_maximum_goes_into_the_last_bin():
    assert bin_index(10, 0, 10, 5) == 4


def test_histogram_with_explicit_range():
    assert histogram([1, 2, 2, 7], bins=4, lo=0, hi=8) == [1, 2, 0, 1]


def test_histogram_of_data():
    assert histogram([1, 2, 3, 4, 5], bins=2) == [2, 3]


def test_edges_and_render():
    edges = bin_edges(0, 4, 2)
    assert edges == [0, 2, 4]
    assert render([1, 2], edges, width=4) == "[0, 2) ##\n[2, 4) ####"


def test_empty_data():
    assert histogram([], bins=3) == [0, 0, 0]
