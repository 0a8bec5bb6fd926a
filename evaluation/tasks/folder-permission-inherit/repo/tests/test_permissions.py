import pytest

from foldacl import Folder, can, effective_roles


def make_tree():
    root = Folder("root")
    root.grant("ana", "owner")
    root.grant("ben", "editor")
    projects = Folder("projects", root)
    secret = Folder("secret", projects, inherit=False)
    secret.grant("ana", "owner")
    return root, projects, secret


def test_roles_are_inherited():
    _, projects, _ = make_tree()
    assert effective_roles(projects) == {"ana": "owner", "ben": "editor"}
    assert can(projects, "ben", "write")


def test_inheritance_can_be_stopped():
    _, _, secret = make_tree()
    assert not can(secret, "ben", "read")
    assert can(secret, "ana", "share")


def test_new_users_below():
    _, projects, _ = make_tree()
    projects.grant("cy", "viewer")
    assert can(projects, "cy", "read") and not can(projects, "cy", "write")


def test_own_role_overrides_inherited():
    root, projects, _ = make_tree()
    projects.grant("ben", "viewer")
    assert effective_roles(projects)["ben"] == "viewer"


def test_role_none_revokes_access():
    _, projects, _ = make_tree()
    archive = Folder("archive", projects)
    archive.grant("ben", "none")
    assert not can(archive, "ben", "read")


def test_find_and_path():
    root, _, _ = make_tree()
    assert root.find("projects/secret").path == "root/projects/secret"
    with pytest.raises(KeyError):
        root.find("projects/missing")


def test_unknown_role():
    with pytest.raises(ValueError):
        Folder("x").grant("ana", "admin")
