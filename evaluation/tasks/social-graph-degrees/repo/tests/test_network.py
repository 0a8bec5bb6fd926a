from socialgraph import Network

LINES = """\
alice,bob
bob,carol
carol,dave
alice,erin
erin,dave
frank
""".splitlines()


def test_friends():
    assert Network(LINES).friends("Alice") == ["bob", "erin"]


def test_separation():
    assert Network(LINES).separation("alice", "carol") == 2


def test_separation_is_symmetric():
    network = Network(LINES)
    assert network.separation("dave", "alice") == 2
    assert network.separation("Carol", "Alice") == 2


def test_loner():
    network = Network(LINES)
    assert len(network) == 6
    assert network.separation("frank", "alice") is None


def test_most_connected():
    assert Network(LINES).most_connected(3) == [("alice", 2), ("bob", 2), ("carol", 2)]
