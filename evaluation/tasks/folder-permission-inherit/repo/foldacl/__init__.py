"""Roles on a tree of folders."""

from foldacl.tree import ROLES, Folder, can, effective_roles

__all__ = ["Folder", "ROLES", "can", "effective_roles"]
