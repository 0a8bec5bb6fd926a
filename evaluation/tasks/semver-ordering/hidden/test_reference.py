from semverlite import Version, latest

SPEC_ORDER = [
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0-rc.1",
    "1.0.0",
    "1.0.1-rc.1",
    "1.0.1",
    "2.0.0-0",
    "2.0.0",
]


def test_spec_example_order():
    versions = [Version.parse(text) for text in SPEC_ORDER]
    for lower, higher in zip(versions, versions[1:]):
        assert lower < higher, (str(lower), str(higher))
    assert [str(v) for v in sorted(reversed(versions))] == SPEC_ORDER


def test_latest_with_prereleases():
    assert latest(["1.0.0", "1.0.0-rc.2"], include_prerelease=True) == "1.0.0"
    assert latest(["1.0.0-rc.2", "0.9.0"], include_prerelease=True) == "1.0.0-rc.2"


def test_release_candidate_below_release_in_max():
    assert max(Version.parse("3.1.0"), Version.parse("3.1.0-rc.9")) == Version.parse("3.1.0")
