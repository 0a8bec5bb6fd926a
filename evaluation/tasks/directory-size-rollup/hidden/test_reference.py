from dirsize import build_tree, du, largest_dirs, total_size

LISTING = [
    "a/x 1",
    "a/b/y 10",
    "a/b/z 100",
    "a/b/c/w 1000",
    "q 5",
    "e/f/g/h 7",
]


def test_nested_totals():
    root = build_tree(LISTING)
    a = root.children["a"]
    assert total_size(a.children["b"].children["c"]) == 1000
    assert total_size(a.children["b"]) == 1110
    assert total_size(a) == 1111
    assert total_size(root) == 1123


def test_du_depth_two():
    root = build_tree(LISTING)
    assert du(root, max_depth=2) == [("a/b/", 1110), ("a/", 1111), ("e/f/", 7), ("e/", 7), ("/", 1123)]


def test_largest_dirs():
    root = build_tree(LISTING)
    assert largest_dirs(root, 3) == [("a/", 1111), ("a/b/", 1110), ("a/b/c/", 1000)]
