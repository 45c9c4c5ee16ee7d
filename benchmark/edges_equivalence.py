"""Does a change of the resolver change any answer? Both trees index the same corpora into fresh
SQLite stores, and every edge row (type, source, target, lines, count, via, confidence) and
every unresolved row (with its reason) is compared, sorted, byte for byte.

For a refactoring the answer must be "identical" on every corpus; for a new rule the rows each
side alone has are what the rule added or took away (the first few are printed).

    python -m benchmark.edges_equivalence --baseline REV [--corpora click,flask,pytest,...]
        [--npm typeorm,...] [--show N]

The baseline is checked out into a temporary worktree. Corpora: `benchmark.corpora`'s sdists
(Python) and npm packages (TypeScript/JavaScript). Nothing is written to benchmark/results:
this is a check to run before committing a change of the resolver, not a report.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmark.corpora import fetch, fetch_npm

ROOT = Path(__file__).resolve().parent.parent
CHILD = (
    "import sys; from cartograph.index import index_repository; "
    "from cartograph.store import open_store; "
    "store = open_store(sys.argv[2]); index_repository(store, sys.argv[1], name=sys.argv[3], "
    "history=False); store.close()"
)


def rows(tree: Path, corpus: Path, name: str, folder: Path, side: str) -> list[str]:
    """The sorted edge and unresolved rows the code of `tree` writes for `corpus` (indexed as
    repository `name`, so both sides' symbol ids agree)."""
    database = folder / f"{name}-{side}.db"
    database.unlink(missing_ok=True)
    path = os.pathsep.join(str(tree / part) for part in ("platform", "api", "workers"))
    data = folder / f"{name}-{side}-data"
    data.mkdir(exist_ok=True)
    subprocess.run(
        [sys.executable, "-c", CHILD, str(corpus), f"sqlite:///{database}", name],
        check=True,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": path, "CARTOGRAPH_DATA": str(data)},
    )
    with sqlite3.connect(database) as db:
        edges = db.execute("SELECT type, src, dst, lines, count, via, confidence FROM edges")
        found = ["\t".join(map(str, row)) for row in edges]
        unresolved = db.execute("SELECT src, name, line, external, kind, reason FROM unresolved")
        found += ["U\t" + "\t".join(map(str, row)) for row in unresolved]
    return sorted(found)


def compare(baseline: str, corpora: dict[str, Path], show: int) -> bool:
    """Print each corpus's verdict; True when every corpus is identical."""
    same = True
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        before_tree = folder / "baseline"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before_tree), baseline],
            check=True,
            capture_output=True,
        )
        try:
            for name, corpus in corpora.items():
                after = rows(ROOT, corpus, name, folder, "after")
                before = rows(before_tree, corpus, name, folder, "before")
                if after == before:
                    print(f"{name}: identical ({len(after):,} rows)")
                    continue
                same = False
                added = sorted(set(after) - set(before))
                removed = sorted(set(before) - set(after))
                print(f"{name}: {len(added):,} rows only after, {len(removed):,} only before")
                for row in added[:show]:
                    print(f"  + {row}")
                for row in removed[:show]:
                    print(f"  - {row}")
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before_tree)],
                check=False,
                capture_output=True,
            )
    return same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="the commit to compare against")
    parser.add_argument("--corpora", default="click,flask,pytest,markdown,werkzeug,django")
    parser.add_argument("--npm", default="", help="npm packages too, e.g. typeorm")
    parser.add_argument("--show", type=int, default=10, help="rows shown per side")
    args = parser.parse_args(argv)
    corpora = {name: fetch(name) for name in args.corpora.split(",") if name}
    for name in filter(None, args.npm.split(",")):
        corpora[name] = fetch_npm(name)
    return 0 if compare(args.baseline, corpora, args.show) else 1


if __name__ == "__main__":
    raise SystemExit(main())
