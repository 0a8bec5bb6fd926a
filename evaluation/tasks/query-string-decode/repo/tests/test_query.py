from querystr import build_query, decode, first, parse_query


def test_plus_is_a_space():
    assert decode("hello+world") == "hello world"


def test_percent_escapes():
    assert decode("caf%C3%A9") == "café"


def test_encoded_plus_stays_a_plus():
    assert decode("1%2B1%3D2") == "1+1=2"


def test_repeated_keys():
    assert parse_query("?tag=a&tag=b&page=2") == {"tag": ["a", "b"], "page": ["2"]}


def test_blank_values():
    assert parse_query("a=&b=1&c") == {"b": ["1"]}
    assert parse_query("a=&c", keep_blank=True) == {"a": [""], "c": [""]}


def test_first():
    assert first("q=x&q=y", "q") == "x"
    assert first("q=x", "missing", "none") == "none"


def test_round_trip():
    params = {"q": "c++ & rust", "lang": ["en", "fr"], "sum": "1+1=2"}
    assert parse_query(build_query(params)) == {"q": ["c++ & rust"], "lang": ["en", "fr"], "sum": ["1+1=2"]}
