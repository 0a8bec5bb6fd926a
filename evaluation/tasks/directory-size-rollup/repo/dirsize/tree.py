"""A directory tree built from lines like "src/app/main.py 1200"."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable


@dataclass
class Node:
    name: str
    size: int = 0
    children: dict[str, Node] = field(default_factory=dict)
    is_dir: bool = False

    def child_dir(self, name: str) -> Node:
        node = self.children.get(name)
        if node is None:
            node = self.children[name] = Node(name, is_dir=True)
        return node


def build_tree(lines: Iterable[str]) -> Node:
    """The root directory of every "path size" line; blank lines are skipped."""
    root = Node("", is_dir=True)
    for line in lines:
        if not line.strip():
            continue
        path, _, size = line.rpartition(" ")
        *dirs, filename = path.strip("/").split("/")
        node = root
        for name in dirs:
            node = node.child_dir(name)
        node.children[filename] = Node(filename, int(size))
    return root


def total_size(node: Node) -> int:
    """Bytes in a file, or in every file below a directory."""
    if not node.is_dir:
        return node.size
    total = 0
    for child in node.children.values():
        total = total_size(child)
    return total


def du(node: Node, max_depth: int = 1, prefix: str = "") -> list[tuple[str, int]]:
    """(path, total size) of directories down to max_depth, parents after their children."""
    rows: list[tuple[str, int]] = []
    if max_depth > 0:
        for child in sorted(node.children.values(), key=lambda n: n.name):
            if child.is_dir:
                rows.extend(du(child, max_depth - 1, f"{prefix}{child.name}/"))
    rows.append((prefix or "/", total_size(node)))
    return rows


def largest_dirs(root: Node, n: int = 3) -> list[tuple[str, int]]:
    """The n largest directories at any depth, largest first."""
    rows = [row for row in du(root, max_depth=10**6) if row[0] != "/"]
    return sorted(rows, key=lambda row: (-row[1], row[0]))[:n]
