import pytest

from iprange import summarize, to_cidrs, ip_to_int


@pytest.mark.parametrize("prefix", [0, 1, 8, 16, 23, 24, 30, 31, 32])
def test_aligned_networks_summarize_to_themselves(prefix):
    network = {0: "0.0.0.0", 1: "128.0.0.0"}.get(prefix, "10.0.0.0")
    assert summarize([f"{network}/{prefix}"]) == [f"{network}/{prefix}"]


def test_two_halves_join_into_one_block():
    assert summarize(["172.16.0.0/25", "172.16.0.128/25"]) == ["172.16.0.0/24"]


def test_single_address():
    assert list(to_cidrs(ip_to_int("8.8.8.8"), ip_to_int("8.8.8.8"))) == ["8.8.8.8/32"]


def test_range_crossing_an_octet():
    assert summarize(["10.0.0.254-10.0.1.1"]) == ["10.0.0.254/31", "10.0.1.0/31"]


def test_overlapping_inputs():
    assert summarize(["10.0.0.0/24", "10.0.0.128-10.0.1.255", "10.0.0.7"]) == ["10.0.0.0/23"]
