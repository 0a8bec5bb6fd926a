import pytest

from bisector import first_bad


def bad_from(builds, first):
    index = builds.index(first)
    return lambda build: builds.index(build) >= index


@pytest.mark.parametrize("size", [1, 2, 3, 7, 16, 33])
def test_every_position(size):
    builds = [f"r{n}" for n in range(size)]
    for first in builds:
        result = first_bad(builds, bad_from(builds, first))
        assert result.first_bad == first
        assert len(result.tested) <= size.bit_length() + 1
    assert first_bad(builds, lambda b: False).first_bad is None


def test_skipped_builds_are_not_tested():
    builds = [f"r{n}" for n in range(10)]
    broken = {"r4", "r5"}
    result = first_bad(builds, bad_from(builds, "r7"), skip=lambda b: b in broken)
    assert result.first_bad == "r7"
    assert not broken & set(result.tested)


def test_single_good_build():
    assert first_bad(["only"], lambda b: False).tested == ["only"]
