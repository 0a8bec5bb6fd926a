import pytest

from depsort import CycleError, install_order, layers


def is_valid_order(graph, order):
    position = {name: i for i, name in enumerate(order)}
    return all(position[dep] < position[name] for name, deps in graph.items() for dep in deps)


def test_wide_diamond():
    graph = {"top": ["a", "b", "c", "d"], "a": ["base"], "b": ["base"], "c": ["base", "a"], "d": ["c"]}
    order = install_order(graph)
    assert is_valid_order(graph, order)
    assert sorted(order) == ["a", "b", "base", "c", "d", "top"]


def test_independent_roots_sharing_a_leaf():
    graph = {"x": ["shared"], "y": ["shared"], "z": ["y", "x"]}
    assert install_order(graph) == ["shared", "x", "y", "z"]


def test_cycle_behind_a_shared_node_is_reported_exactly():
    graph = {"a": ["s", "b"], "b": ["s", "c"], "c": ["b"], "s": []}
    with pytest.raises(CycleError) as info:
        install_order(graph)
    assert info.value.cycle == ["b", "c", "b"]


def test_cycle_path_after_several_finished_branches():
    graph = {"a": ["b"], "b": ["c", "d", "e"], "c": ["x"], "d": [], "e": ["f"], "f": ["b"], "x": []}
    with pytest.raises(CycleError) as info:
        install_order(graph)
    assert info.value.cycle == ["b", "e", "f", "b"]


def test_cycle_back_to_the_root():
    graph = {"root": ["x", "y"], "x": [], "y": ["z"], "z": ["root"]}
    with pytest.raises(CycleError) as info:
        install_order(graph)
    assert info.value.cycle == ["root", "y", "z", "root"]


def test_second_root_reaching_a_cycle():
    graph = {"a": ["lib"], "lib": [], "m": ["n"], "n": ["lib", "o"], "o": ["m"]}
    with pytest.raises(CycleError) as info:
        install_order(graph)
    assert info.value.cycle == ["m", "n", "o", "m"]


def test_layers_of_diamond():
    assert layers({"a": ["b", "c"], "b": ["d"], "c": ["d"]}) == [["d"], ["b", "c"], ["a"]]
