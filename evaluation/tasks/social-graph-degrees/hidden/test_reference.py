from socialgraph import Network, build_graph


def test_friendship_is_mutual():
    graph = build_graph([("ann", "bo"), ("bo", "cy")])
    assert graph == {"ann": {"bo"}, "bo": {"ann", "cy"}, "cy": {"bo"}}


def test_friends_either_way_round():
    network = Network(["x,y", "z,x"])
    assert network.friends("x") == ["y", "z"]
    assert network.friends("y") == ["x"]


def test_suggestions_use_both_directions():
    network = Network(["ann,bo", "cy,bo", "dee,bo", "dee,cy", "ann,dee"])
    assert network.suggest("cy") == ["ann"]
    assert network.suggest("bo") == []


def test_separation_all_pairs_symmetric():
    lines = ["a,b", "c,b", "d,c", "d,e", "f,e"]
    network = Network(lines)
    names = "abcdef"
    for i, x in enumerate(names):
        for j, y in enumerate(names):
            assert network.separation(x, y) == abs(i - j)
