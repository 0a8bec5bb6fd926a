"""Each folder grants roles to users; subfolders inherit their parent's roles.

A folder's own grant for a user replaces whatever the user inherits (so a folder can lower a
user's role, or revoke it with the role "none"); inherit=False starts from nothing.
"""

from __future__ import annotations

from typing import Optional

ROLES = {
    "none": set(),
    "viewer": {"read"},
    "editor": {"read", "write"},
    "owner": {"read", "write", "share"},
}


class Folder:
    def __init__(self, name: str, parent: Optional[Folder] = None, inherit: bool = True) -> None:
        self.name = name
        self.parent = parent
        self.inherit = inherit
        self.grants: dict[str, str] = {}
        self.children: list[Folder] = []
        if parent is not None:
            parent.children.append(self)

    def grant(self, user: str, role: str) -> None:
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}")
        self.grants[user] = role

    @property
    def path(self) -> str:
        return self.name if self.parent is None else f"{self.parent.path}/{self.name}"

    def find(self, path: str) -> Folder:
        """The descendant at a relative path such as 'projects/2024'."""
        head, _, rest = path.partition("/")
        for child in self.children:
            if child.name == head:
                return child.find(rest) if rest else child
        raise KeyError(f"{self.path}/{path}")


def effective_roles(folder: Folder) -> dict[str, str]:
    """Every user's role on `folder`, after inheritance."""
    own = dict(folder.grants)
    if folder.parent is None or not folder.inherit:
        return own
    inherited = effective_roles(folder.parent)
    return {**own, **inherited}


def can(folder: Folder, user: str, action: str) -> bool:
    role = effective_roles(folder).get(user, "none")
    return action in ROLES[role]
