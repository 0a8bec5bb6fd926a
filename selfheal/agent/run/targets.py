"""Which failing tests a heal aims at, when the caller names targets (`--target`)."""

from __future__ import annotations


def matches_target(nodeid: str, targets: tuple[str, ...]) -> bool:
    """A test id matches a target that names it, its file, its class or a folder above it."""
    for target in targets:
        target = target.rstrip("/") if target.endswith("/") and "::" not in target else target
        if nodeid == target or nodeid.startswith((f"{target}::", f"{target}/", f"{target}[")):
            return True
    return False
