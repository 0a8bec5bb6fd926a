from aspect import AspectRatio, fit_within


def test_parse_and_name():
    ratio = AspectRatio.parse("4:3")
    assert (ratio.width, ratio.height, ratio.name) == (4, 3, "standard")


def test_unknown_ratio_has_no_name():
    assert AspectRatio(5, 7).name is None


def test_str():
    assert str(AspectRatio(21, 9)) == "21:9"


def test_fit_within_box():
    assert fit_within(AspectRatio(16, 9), 1000, 1000) == (992, 558)
