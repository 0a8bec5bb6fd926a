from dirsize import build_tree, du, largest_dirs, total_size

LISTING = """\
README.md 100
src/app/main.py 1200
src/app/util.py 300
src/lib/vendor.js 5000
docs/index.md 400
"""


def test_build_tree():
    root = build_tree(LISTING.splitlines())
    assert sorted(root.children) == ["README.md", "docs", "src"]
    assert root.children["src"].children["app"].children["util.py"].size == 300


def test_file_size():
    root = build_tree(["a/b.txt 42"])
    assert total_size(root.children["a"].children["b.txt"]) == 42


def test_directory_with_one_file():
    root = build_tree(["docs/index.md 400"])
    assert total_size(root.children["docs"]) == 400


def test_total_size_of_root():
    assert total_size(build_tree(LISTING.splitlines())) == 7000


def test_du_report():
    root = build_tree(LISTING.splitlines())
    assert du(root, max_depth=1) == [("docs/", 400), ("src/", 6500), ("/", 7000)]


def test_empty_listing():
    assert total_size(build_tree([])) == 0
