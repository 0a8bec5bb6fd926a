from foldacl import Folder, can, effective_roles


def test_override_at_every_level():
    root = Folder("root")
    root.grant("u", "viewer")
    a = Folder("a", root)
    a.grant("u", "owner")
    b = Folder("b", a)
    c = Folder("c", b)
    c.grant("u", "editor")
    d = Folder("d", c)
    assert [effective_roles(f)["u"] for f in (root, a, b, c, d)] == ["viewer", "owner", "owner", "editor", "editor"]
    assert can(b, "u", "share") and not can(d, "u", "share")


def test_mixed_users():
    root = Folder("root")
    root.grant("x", "owner")
    root.grant("y", "viewer")
    child = Folder("child", root)
    child.grant("x", "viewer")
    child.grant("z", "editor")
    assert effective_roles(child) == {"x": "viewer", "y": "viewer", "z": "editor"}


def test_revocation_is_inherited_further_down():
    root = Folder("root")
    root.grant("u", "editor")
    locked = Folder("locked", root)
    locked.grant("u", "none")
    inner = Folder("inner", locked)
    assert not can(inner, "u", "read")
