"""What bubblewrap's view shows of the host: the answers `in_system_view` gives for the folders a
command's binds pass through."""

from __future__ import annotations

from pathlib import Path

import pytest

from selfheal.sandbox.bwrap import in_system_view


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/usr", True),
        ("/usr/lib/python3", True),
        ("/etc/passwd", True),
        ("/etc/ssl/certs", True),
        ("/etc", False),  # the folder is rebuilt empty; only its allowlisted entries come back
        ("/etc/shadow", False),
        ("/etc/ssl/private", False),
        ("/etc/ssl/private/host.key", False),
        ("/etcetera/passwd", False),
        ("/tmp/selfheal-ws-1/repo", False),
        ("/root/.venv/bin", False),
    ],
)
def test_the_view_shows_the_system_folders_and_allowlisted_etc_entries_only(path: str, shown: bool) -> None:
    assert in_system_view(Path(path)) is shown
