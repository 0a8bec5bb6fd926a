import pytest

from iprange import int_to_ip, ip_to_int


def test_round_trip():
    assert ip_to_int("10.0.0.1") == 167772161
    assert int_to_ip(167772161) == "10.0.0.1"


@pytest.mark.parametrize("text", ["10.0.0", "10.0.0.256", "a.b.c.d"])
def test_rejects_malformed(text):
    with pytest.raises(ValueError):
        ip_to_int(text)
