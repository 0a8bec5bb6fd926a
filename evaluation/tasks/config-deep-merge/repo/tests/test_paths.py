from confdict import flatten, get_path, set_path, unflatten

CONFIG = {"db": {"host": "localhost", "pool": {"size": 5}}, "debug": False, "plugins": {}}


def test_get_path():
    assert get_path(CONFIG, "db.pool.size") == 5
    assert get_path(CONFIG, "db.user", "admin") == "admin"
    assert get_path(CONFIG, "debug.level") is None


def test_set_path_creates_parents():
    data = {"db": "sqlite"}
    set_path(data, "db.pool.size", 10)
    assert data == {"db": {"pool": {"size": 10}}}


def test_flatten_round_trip():
    flat = flatten(CONFIG)
    assert flat == {"db.host": "localhost", "db.pool.size": 5, "debug": False, "plugins": {}}
    assert unflatten(flat) == CONFIG
