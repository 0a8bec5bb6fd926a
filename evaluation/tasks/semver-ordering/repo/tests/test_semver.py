import pytest

from semverlite import Version, latest


def test_parse():
    version = Version.parse("v1.4.2-beta.3+build.7")
    assert (version.major, version.minor, version.patch) == (1, 4, 2)
    assert version.prerelease == ("beta", "3")
    assert str(version) == "1.4.2-beta.3+build.7"


@pytest.mark.parametrize("text", ["1.2", "01.2.3", "1.2.3-", "1.2.3+"])
def test_parse_rejects(text):
    with pytest.raises(ValueError):
        Version.parse(text)


def test_numeric_comparison():
    assert Version.parse("1.10.0") > Version.parse("1.9.9")


def test_build_metadata_is_ignored():
    assert Version.parse("1.0.0+a") == Version.parse("1.0.0+b")


def test_prerelease_is_lower_than_release():
    assert Version.parse("1.0.0-rc.1") < Version.parse("1.0.0")


def test_sort():
    texts = ["1.0.0", "1.0.0-alpha", "0.9.0", "1.0.0-alpha.1", "1.0.0-beta"]
    assert [str(v) for v in sorted(map(Version.parse, texts))] == [
        "0.9.0",
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-beta",
        "1.0.0",
    ]


def test_latest_skips_prereleases():
    assert latest(["1.2.0", "1.3.0-rc.1", "1.1.5"]) == "1.2.0"


def test_bump():
    assert str(Version.parse("1.2.3-rc.1").bump("minor")) == "1.3.0"
