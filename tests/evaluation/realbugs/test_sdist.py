"""The sdist cache unpacking one release for several builds at once."""

from __future__ import annotations

import tarfile
import threading
from pathlib import Path

from evaluation.realbugs.sdist import SdistCache


def _cached_archive(cache: SdistCache, tmp_path: Path) -> None:
    root = tmp_path / "tiny-1.0"
    (root / "tiny").mkdir(parents=True)
    (root / "tiny" / "__init__.py").write_text("VALUE = 1\n", encoding="utf-8")
    (root / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: tiny\nVersion: 1.0\n", encoding="utf-8")
    cache.sdists.mkdir(parents=True)
    with tarfile.open(cache.sdists / "tiny-1.0.tar.gz", "w:gz") as tar:
        tar.add(root, arcname=root.name)


def test_builds_unpacking_the_same_release_at_once_share_one_tree(tmp_path):
    cache = SdistCache(tmp_path / "cache")
    _cached_archive(cache, tmp_path)
    start = threading.Barrier(4)
    trees: list[Path] = []
    errors: list[BaseException] = []

    def unpack() -> None:
        start.wait()
        try:
            trees.append(cache.tree("tiny", "1.0"))
        except BaseException as exc:  # the race this guards against raised FileExistsError here
            errors.append(exc)

    threads = [threading.Thread(target=unpack) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert trees == [cache.root / "src" / "tiny-1.0"] * 4
    assert (trees[0] / "tiny" / "__init__.py").read_text(encoding="utf-8") == "VALUE = 1\n"
    assert sorted(p.name for p in (cache.root / "src").iterdir()) == ["tiny-1.0"]
