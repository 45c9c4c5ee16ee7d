"""What a change of the resolver costs and moves on Django: CPU seconds of a full index, this
tree against a baseline commit, interleaved, and the edges by via before and after.

Issue 38's "no slower than today in CPU seconds": the baseline is checked out into a temporary
worktree and both trees index the Django 5.1.4 sdist into fresh SQLite stores in turn (A B A B
…, `--runs` pairs), each in a child process whose CPU seconds (user + system, its own resolve
workers included) the operating system accounts; the ratio is taken pair by pair. The last
pair's stores give the edge counts by type and via, and the spot checks: the callers of a few
Django functions the resolver rules are about (`capfirst`, decorated through a factory;
`reverse`, re-exported; `_create_user`, called through `self`).

    python -m benchmark.resolver_change --baseline 7f06097 [--runs 3] [--note TEXT] [--no-write]

Writes benchmark/results/resolver-change-<date>.json and .md.
"""

from __future__ import annotations

import argparse
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmark.corpora import fetch
from benchmark.report import run_facts, write_report

ROOT = Path(__file__).resolve().parent.parent
SPOT_CHECKS = (
    "django.utils.text.capfirst",
    "django.urls.base.reverse",
    "django.contrib.auth.models.UserManager._create_user",
    "django.core.exceptions.ValidationError.update_error_dict",
)
CHILD = (
    "import sys; from cartograph.index import index_repository; "
    "from cartograph.store import open_store; "
    "store = open_store(sys.argv[2]); index_repository(store, sys.argv[1], name='django', "
    "history=False); store.close()"
)


def _index(tree: Path, corpus: Path, database: Path) -> dict:
    """One full index by the code of `tree` in a child process: its wall and CPU seconds."""
    database.unlink(missing_ok=True)
    path = os.pathsep.join(str(tree / part) for part in ("platform", "api", "workers"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", CHILD, str(corpus), f"sqlite:///{database}"],
        check=True,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": path},
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": round(wall, 2), "cpu": round(cpu, 2)}


def _edges_by_via(database: Path) -> dict[str, int]:
    with sqlite3.connect(database) as db:
        rows = db.execute("SELECT type, via, COUNT(*) FROM edges GROUP BY type, via").fetchall()
    return {f"{kind} {via}": count for kind, via, count in sorted(rows)}


def _callers(database: Path, qualname: str) -> int:
    with sqlite3.connect(database) as db:
        row = db.execute(
            "SELECT COUNT(DISTINCT e.src) FROM edges e JOIN symbols s ON s.id = e.dst "
            "WHERE s.qualname = ? AND (e.type = 'CALLS' OR e.via = 'decorated')",
            (qualname,),
        ).fetchone()
    return int(row[0])


def measure(baseline: str, runs: int) -> dict:
    corpus = fetch("django", "5.1.4")
    with tempfile.TemporaryDirectory() as folder:
        before_tree = Path(folder) / "baseline"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before_tree), baseline],
            check=True,
            capture_output=True,
        )
        try:
            pairs = []
            databases = {"after": Path(folder) / "after.db", "before": Path(folder) / "before.db"}
            for _ in range(runs):
                after = _index(ROOT, corpus, databases["after"])
                before = _index(before_tree, corpus, databases["before"])
                pairs.append({"after": after, "before": before})
                sys.stderr.write(f"{after} / {before}\n")
            edges = {name: _edges_by_via(db) for name, db in databases.items()}
            spots = {
                name: {q: _callers(db, q) for q in SPOT_CHECKS} for name, db in databases.items()
            }
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before_tree)],
                check=False,
                capture_output=True,
            )
    ratios = [p["after"]["cpu"] / p["before"]["cpu"] for p in pairs]
    return {
        "baseline": baseline,
        "pairs": pairs,
        "cpu_ratio_median": round(statistics.median(ratios), 3),
        "cpu_ratio_min": round(min(ratios), 3),
        "cpu_ratio_max": round(max(ratios), 3),
        "edges": edges,
        "spot_checks": spots,
    }


def to_markdown(report: dict) -> str:
    pairs = report["pairs"]
    lines = [
        f"# Resolver change on Django 5.1.4 ({report['date'][:10]}, {report['commit']} "
        f"against {report['baseline']})",
        "",
        f"Machine: {report['machine']}. {report['note']}",
        "",
        f"Full index (SQLite, fresh store, history off), {len(pairs)} interleaved pairs: CPU "
        f"ratio after/before median **{report['cpu_ratio_median']}** (min "
        f"{report['cpu_ratio_min']}, max {report['cpu_ratio_max']}).",
        "",
        "| pair | after CPU s | before CPU s | after wall s | before wall s |",
        "|---:|---:|---:|---:|---:|",
    ]
    for i, pair in enumerate(pairs, 1):
        lines.append(
            f"| {i} | {pair['after']['cpu']} | {pair['before']['cpu']} | "
            f"{pair['after']['wall']} | {pair['before']['wall']} |"
        )
    lines += ["", "## Edges by type and via", "", "| edge | before | after | change |"]
    lines.append("|---|---:|---:|---:|")
    before, after = report["edges"]["before"], report["edges"]["after"]
    for key in sorted(set(before) | set(after)):
        b, a = before.get(key, 0), after.get(key, 0)
        lines.append(f"| {key} | {b:,} | {a:,} | {a - b:+,} |")
    total_b, total_a = sum(before.values()), sum(after.values())
    lines.append(f"| all | {total_b:,} | {total_a:,} | {total_a - total_b:+,} |")
    lines += ["", "## Spot checks: distinct callers (CALLS, or named through a decorator)", ""]
    lines += ["| symbol | before | after |", "|---|---:|---:|"]
    for qualname in SPOT_CHECKS:
        lines.append(
            f"| `{qualname}` | {report['spot_checks']['before'][qualname]} | "
            f"{report['spot_checks']['after'][qualname]} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="the commit to compare with")
    parser.add_argument("--runs", type=int, default=3, help="interleaved pairs")
    parser.add_argument("--note", default="", help="what else ran on the machine")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    report = {**run_facts(), "note": args.note, **measure(args.baseline, args.runs)}
    write_report("resolver-change", report, to_markdown(report), write=not args.no_write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
