from confdict import deep_merge, flatten, layered


def test_deep_merge_three_levels():
    base = {"a": {"b": {"c": 1, "d": 2}, "e": 3}}
    override = {"a": {"b": {"c": 10}, "e": 30}}
    assert deep_merge(base, override) == {"a": {"b": {"c": 10, "d": 2}, "e": 30}}


def test_override_dict_replaces_scalar_and_back():
    assert deep_merge({"a": 1}, {"a": {"x": 1}}) == {"a": {"x": 1}}
    assert deep_merge({"a": {"x": 1}}, {"a": 2}) == {"a": 2}


def test_merged_matches_flat_update():
    base = {"db": {"host": "a", "pool": {"size": 1}}, "x": 1}
    override = {"db": {"pool": {"size": 9}, "user": "u"}}
    expected = flatten(base)
    expected.update(flatten(override))
    assert flatten(deep_merge(base, override)) == expected


def test_layered_last_wins():
    assert layered([{"a": {"b": 1}}, {"a": {"b": 2}}, {"a": {"b": 3}}]) == {"a": {"b": 3}}
