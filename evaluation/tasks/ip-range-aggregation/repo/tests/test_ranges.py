from iprange import aggregate, ip_to_int, parse_range, summarize


def test_parse_cidr():
    assert parse_range("192.168.1.77/24") == (ip_to_int("192.168.1.0"), ip_to_int("192.168.1.255"))


def test_parse_dash_range():
    assert parse_range("10.0.0.5-10.0.0.9") == (ip_to_int("10.0.0.5"), ip_to_int("10.0.0.9"))


def test_aggregate_merges_adjacent_ranges():
    assert aggregate([(10, 19), (0, 9), (30, 40)]) == [(0, 19), (30, 40)]


def test_summarize_a_single_network():
    assert summarize(["10.1.2.0/24"]) == ["10.1.2.0/24"]


def test_summarize_unaligned_range():
    assert summarize(["10.0.0.1-10.0.0.6"]) == [
        "10.0.0.1/32",
        "10.0.0.2/31",
        "10.0.0.4/31",
        "10.0.0.6/32",
    ]
