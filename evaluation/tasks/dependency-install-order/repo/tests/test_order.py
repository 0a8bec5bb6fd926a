import pytest

from depsort import CycleError, install_order, layers, missing


def test_chain():
    assert install_order({"app": ["web"], "web": ["http"], "http": []}) == ["http", "web", "app"]


def test_undeclared_dependencies_are_included():
    graph = {"app": ["requests"]}
    assert missing(graph) == {"requests"}
    assert install_order(graph) == ["requests", "app"]


def test_cycle_is_reported():
    with pytest.raises(CycleError) as info:
        install_order({"a": ["b"], "b": ["c"], "c": ["a"]})
    assert info.value.cycle == ["a", "b", "c", "a"]


def test_self_dependency_is_a_cycle():
    with pytest.raises(CycleError):
        install_order({"a": ["a"]})


def test_shared_dependency_is_not_a_cycle():
    graph = {"app": ["db", "web"], "db": ["log"], "web": ["log"], "log": []}
    assert install_order(graph) == ["log", "db", "web", "app"]


def test_cycle_behind_a_finished_dependency():
    graph = {"app": ["core"], "core": ["log", "plugins"], "log": [], "plugins": ["core"]}
    with pytest.raises(CycleError) as info:
        install_order(graph)
    assert info.value.cycle == ["core", "plugins", "core"]
    assert str(info.value) == "dependency cycle: core -> plugins -> core"


def test_layers():
    graph = {"app": ["db", "web"], "db": ["log"], "web": ["log", "http"], "http": []}
    assert layers(graph) == [["http", "log"], ["db", "web"], ["app"]]
