from bisector import first_bad

BUILDS = [f"b{n}" for n in range(1, 9)]


def bad_from(first):
    index = BUILDS.index(first)
    return lambda build: BUILDS.index(build) >= index


def test_no_builds():
    assert first_bad([], lambda b: True).first_bad is None


def test_first_build_is_bad():
    assert first_bad(BUILDS, bad_from("b1")).first_bad == "b1"


def test_regression_in_the_middle():
    assert first_bad(BUILDS, bad_from("b5")).first_bad == "b5"


def test_last_build_is_bad():
    assert first_bad(BUILDS, bad_from("b8")).first_bad == "b8"


def test_every_build_good():
    assert first_bad(BUILDS, lambda b: False).first_bad is None



def test_skips_untestable_builds():
    result = first_bad(BUILDS, bad_from("b1"), skip=lambda b: b == "b4")
    assert result.first_bad == "b1"
    assert "b4" not in result.tested
