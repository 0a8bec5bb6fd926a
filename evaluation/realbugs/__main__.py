"""`python -m evaluation.realbugs`: download, build and verify the real-bug tasks.

Prints one line per bug (built / reproduced / excluded + why / unavailable + why) and a count.
Exit 0 when every selected bug reproduced, 1 when some did not, 2 on a bad manifest.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from evaluation.realbugs.build import REPRODUCED
from evaluation.realbugs.manifest import MANIFEST, ManifestError, load_manifest
from evaluation.realbugs.sdist import SdistCache, default_cache
from evaluation.realbugs.suite import build_suite, counts, tasks_dir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.realbugs", description=__doc__)
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--cache", type=Path, default=None, help="default $SELFHEAL_REALBUGS_CACHE or "
                        "~/.cache/selfheal/realbugs")  # fmt: skip
    parser.add_argument("--find-links", metavar="DIR", help="take sdists from DIR, not from PyPI")
    parser.add_argument("--only", metavar="ID,...", help="these bugs only")
    parser.add_argument("--subset", metavar="NAME", help="the bugs of a manifest subset")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rebuild", action="store_true", help="rebuild tasks built before")
    args = parser.parse_args(argv)
    try:
        manifest = load_manifest(args.manifest)
        bugs = list(manifest.bugs)
        if args.subset:
            if args.subset not in manifest.subsets:
                raise ManifestError(f"no subset {args.subset!r}")
            bugs = [manifest.bug(i) for i in manifest.subsets[args.subset]]
        if args.only:
            bugs = [manifest.bug(i.strip()) for i in args.only.split(",") if i.strip()]
    except ManifestError as exc:
        print(f"realbugs: {exc}", file=sys.stderr)
        return 2
    cache = SdistCache((args.cache or default_cache()).expanduser(), args.find_links)
    outcomes = build_suite(manifest, cache, bugs, jobs=args.jobs, rebuild=args.rebuild,
                           report=lambda o: print(o.describe(), flush=True))  # fmt: skip
    print(f"{counts(outcomes, bugs)}; tasks in {tasks_dir(cache)}")
    return 0 if all(o.state == REPRODUCED for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
