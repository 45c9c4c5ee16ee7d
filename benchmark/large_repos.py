"""Large real repositories indexed end to end: every one finishes, and what its resolution cost.

Issue 37: an astropy test function (a list appended to with values built from its own
elements) kept an index busy for over 30 minutes. The resolver now cuts such a cycle where it
closes, and whatever else grows too costly meets a budget (`resolve.core.Memo.budget`: per
reference and per file, in computations; past it a reference is left unresolved and the run
says so). This harness indexes a set of large real trees of different kinds and reports, for
each: the files, the wall time of the full index (SQLite, one process: the resolver's work is
counted in this process), its peak RSS, the references that went past a budget, and how much
of the budgets real code uses — the costliest reference and file in computations, and the
99.9th percentile of references.

Corpora: Django 5.1.4, astropy 5.2.2 (the release holding the test function of the issue) and sympy 1.13.3 (PyPI sdists), Home Assistant 2024.3.0
(the wheel's sources), typeorm 0.3.20 (npm: JavaScript with declarations).

    python -m benchmark.large_repos [--corpus django,astropy,...] [--no-write]

Writes benchmark/results/large-repos-<date>.json and .md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from benchmark.corpora import fetch, fetch_npm
from benchmark.memory import fetch_homeassistant
from benchmark.report import run_facts, write_report

CORPORA = {
    "django": lambda: fetch("django", "5.1.4"),
    "astropy": lambda: fetch("astropy", "5.2.2"),
    "sympy": lambda: fetch("sympy", "1.13.3"),
    "homeassistant": fetch_homeassistant,
    "typeorm": lambda: fetch_npm("typeorm", "0.3.20"),
}
TIMEOUT = 3600.0  # a corpus that takes longer failed: the point is that every one finishes

# Indexes one tree in this interpreter with the memo's budgets observed: each budget entered
# reports what it used when it ends (reference budgets and file budgets told apart by size).
CHILD = r"""
import json, resource, sys, tempfile, time
from contextlib import contextmanager
from pathlib import Path
from cartograph.index import index_repository
from cartograph.resolve import core
from cartograph.store import open_store

used = {"reference": [], "file": []}
plain_budget = core.Memo.budget

@contextmanager
def observed(memo, computations):
    kind = "reference" if computations == memo.reference_budget else "file"
    before = memo.computations
    try:
        with plain_budget(memo, computations):
            yield
    finally:
        used[kind].append(memo.computations - before)

core.Memo.budget = observed
root = sys.argv[1]
with tempfile.TemporaryDirectory() as folder:
    store = open_store(f"sqlite:///{folder}/graph.db")
    started = time.perf_counter()
    result = index_repository(store, root, name="corpus", workers=1, history=False)
    seconds = time.perf_counter() - started
    store.close()
references = sorted(used["reference"])
files = sorted(used["file"])
print(json.dumps({
    "files": result.files,
    "parsed": result.parsed,
    "symbols": result.symbols_written,
    "edges": result.edges_written,
    "seconds": round(seconds, 1),
    "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    "budget_notes": [n for n in result.notes if "budget" in n],
    "references": len(references),
    "reference_max": references[-1] if references else 0,
    "reference_p999": references[int(len(references) * 0.999) - 1] if references else 0,
    "file_max": files[-1] if files else 0,
    "reference_budget": core.REFERENCE_BUDGET,
    "file_budget": core.FILE_BUDGET,
}))
"""


def measure(name: str) -> dict:
    root = CORPORA[name]()
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    if done.returncode != 0:
        return {"corpus": name, "error": done.stderr[-2000:]}
    row = json.loads(done.stdout.strip().splitlines()[-1])
    row["corpus"] = name
    row["wall_seconds"] = round(time.perf_counter() - started, 1)
    return row


def to_markdown(report: dict) -> str:
    lines = [
        f"# Large repositories end to end ({report['date'][:10]}, {report['commit']})",
        "",
        f"Machine: {report['machine']}. {report['note']}",
        "",
        "| corpus | files | index s | peak RSS MB | references | over budget | costliest "
        "reference | p99.9 reference | costliest file |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in report["corpora"]:
        if "error" in row:
            lines.append(f"| {row['corpus']} | failed: {row['error'][:200]!r} |||||||")
            continue
        over = sum(int(n.split()[0]) for n in row["budget_notes"])
        lines.append(
            f"| {row['corpus']} | {row['files']:,} | {row['seconds']} | {row['peak_rss_mb']} | "
            f"{row['references']:,} | {over} | {row['reference_max']:,} | "
            f"{row['reference_p999']:,} | {row['file_max']:,} |"
        )
    budgets = report["corpora"][0] if report["corpora"] else {}
    lines += [
        "",
        f"Budgets (computations a memo runs; cache hits are free): a reference "
        f"{budgets.get('reference_budget', 0):,}, a file {budgets.get('file_budget', 0):,}.",
        "The costliest reference and file are what real code used of them.",
        "",
    ]
    for row in report["corpora"]:
        for note in row.get("budget_notes", []):
            lines.append(f"- {row['corpus']}: {note}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=",".join(CORPORA))
    parser.add_argument("--note", default="", help="what else ran on the machine")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    report = {**run_facts(), "note": args.note, "corpora": []}
    for name in args.corpus.split(","):
        report["corpora"].append(measure(name))
        sys.stderr.write(json.dumps(report["corpora"][-1]) + "\n")
    write_report("large-repos", report, to_markdown(report), write=not args.no_write)
    return 0 if all("error" not in row for row in report["corpora"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
