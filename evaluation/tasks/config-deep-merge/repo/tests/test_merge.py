from confdict import deep_merge, layered


def test_top_level_override():
    assert deep_merge({"debug": False, "name": "app"}, {"debug": True}) == {"debug": True, "name": "app"}


def test_new_nested_keys_are_added():
    assert deep_merge({"db": {"host": "a"}}, {"db": {"port": 1}}) == {"db": {"host": "a", "port": 1}}


def test_nested_override_wins():
    assert deep_merge({"db": {"host": "a", "port": 1}}, {"db": {"host": "b"}}) == {"db": {"host": "b", "port": 1}}


def test_arguments_are_not_modified():
    base = {"db": {"host": "a"}}
    deep_merge(base, {"db": {"host": "b"}, "x": 1})
    assert base == {"db": {"host": "a"}}


def test_layered_configs():
    defaults = {"db": {"host": "localhost", "pool": {"size": 5, "timeout": 30}}, "debug": False}
    site = {"db": {"pool": {"size": 20}}}
    local = {"debug": True, "db": {"host": "db.internal"}}
    assert layered([defaults, site, local]) == {
        "db": {"host": "db.internal", "pool": {"size": 20, "timeout": 30}},
        "debug": True,
    }
