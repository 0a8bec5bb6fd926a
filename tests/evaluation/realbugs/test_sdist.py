"""The sdist cache's unpacked trees, from archives already in the cache (no pip, no network)."""

from __future__ import annotations

import tarfile
import threading
from pathlib import Path

from evaluation.realbugs.sdist import SdistCache


def _archive(cache: Path) -> None:
    root = cache / "made" / "tinyrange-1.0"
    (root / "tinyrange").mkdir(parents=True)
    (root / "tinyrange" / "__init__.py").write_text("VERSION = '1.0'\n", encoding="utf-8")
    (cache / "sdists").mkdir(parents=True)
    with tarfile.open(cache / "sdists" / "tinyrange-1.0.tar.gz", "w:gz") as tar:
        tar.add(root, arcname=root.name)


def test_builds_of_one_release_at_once_share_one_unpacked_tree(tmp_path):
    _archive(tmp_path)
    cache = SdistCache(tmp_path)
    start = threading.Barrier(6)
    trees: list[Path] = []
    errors: list[BaseException] = []

    def unpack() -> None:
        start.wait()
        try:
            trees.append(cache.tree("tinyrange", "1.0"))
        except BaseException as exc:  # what a build thread raised is the test's finding
            errors.append(exc)

    threads = [threading.Thread(target=unpack) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert trees == [tmp_path / "src" / "tinyrange-1.0"] * 6
    assert (trees[0] / "tinyrange" / "__init__.py").read_text(encoding="utf-8") == "VERSION = '1.0'\n"
    assert sorted(p.name for p in (tmp_path / "src").iterdir()) == ["tinyrange-1.0"]
