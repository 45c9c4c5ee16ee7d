"""Localization: given the text a user wrote about a change, are the files and functions its fix
changed among the first answers? `locate` beside a plain BM25 over files and functions
(`benchmark.bm25`) and beside `search` given the same text, on the same tasks
(`benchmark.localization_sets`: real fixes of twelve projects, each set split once by a hash
of the task's id into a tuning half and a held-out half; `locate`'s weights are chosen on the
tuning half only, and the report is of the held-out half unless `--half` says otherwise).

For each set, its tasks run in date order: the tree is moved to the task's `before` commit
(only the files that differ are rewritten) and indexed incrementally into one SQLite store per
set (no history), then each ranker is given the task's text:

- locate: `query.locate.rank` — its functions, best first, and its files;
- search: `query.search.search` with the text as the query, functions and methods kept (its
  files: the paths of its hits, in order);
- bm25: `benchmark.bm25.BM25Index` over the same tree.

File hit@1/3/5 and function hit@1/5/10 as `localization_sets.score` counts them. For locate
also: how often its confidence withholds the map (below MIN_CONFIDENCE) and its function hit@5
on the tasks it does answer, and its latency (wall time of `rank`, p50/p95).

    python -m benchmark.localization [--project flask,click] [--limit N] [--half tuning]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from cartograph.index import index_repository
from cartograph.query.locate import MIN_CONFIDENCE, rank
from cartograph.query.search import search
from cartograph.store import open_store

from benchmark.bm25 import BM25Index
from benchmark.localization_sets import (
    HALVES,
    LocalizationSet,
    TaskResult,
    checkout,
    load_sets,
    score,
)
from benchmark.report import run_facts, write_report

RANKERS = ("locate", "search", "bm25")
DEPTH = 10


def run_set(lset: LocalizationSet, limit: int | None, work: Path) -> dict:
    store = open_store(f"sqlite:///{work / (lset.project + '.db')}")
    results: dict[str, list[TaskResult]] = {name: [] for name in RANKERS}
    answered: list[TaskResult] = []
    latencies: list[float] = []
    confidences: list[float] = []
    withheld = 0
    tasks = lset.tasks[:limit] if limit else lset.tasks
    for task in tasks:
        tree = checkout(lset, task)
        index_repository(store, tree, lset.project, history=False)
        started = time.perf_counter()
        ranking = rank(store, task.text, lset.project)
        latencies.append(time.perf_counter() - started)
        confidences.append(ranking.confidence)
        located = TaskResult(
            task,
            [f.path for f in ranking.files][:DEPTH],
            [(loc.symbol.path, loc.symbol.qualname) for loc in ranking.functions][:DEPTH],
        )
        results["locate"].append(located)
        if ranking.confidence * 100 < MIN_CONFIDENCE:
            withheld += 1
        else:
            answered.append(located)
        found = search(store, task.text[:500], lset.project, ["function", "method"], DEPTH * 3)
        hits = [h.symbol for h in found.hits]
        results["search"].append(
            TaskResult(
                task,
                list(dict.fromkeys(s.path for s in hits))[:DEPTH],
                [(s.path, s.qualname) for s in hits][:DEPTH],
            )
        )
        bm25 = BM25Index.build(tree, None)
        results["bm25"].append(
            TaskResult(
                task, bm25.rank_files(task.text, DEPTH), bm25.rank_functions(task.text, DEPTH)
            )
        )
    store.close()
    row: dict = {name: score(found) for name, found in results.items()}
    # each task's confidence and hits, to read withholding against (`by_confidence`)
    row["tasks"] = [
        {
            "id": located.task.id,
            "confidence": confidence,
            **{
                f"{name}_{metric}": score([results[name][i]])[metric]
                for name in RANKERS
                for metric in ("file@3", "function@5")
            },
        }
        for i, (located, confidence) in enumerate(zip(results["locate"], confidences, strict=True))
    ]
    row["locate_answered"] = score(answered) if answered else {"n": 0.0}
    row["withheld"] = withheld
    row["latency_p50_s"] = round(statistics.median(latencies), 4) if latencies else 0.0
    row["latency_p95_s"] = (
        round(statistics.quantiles(latencies, n=20)[18], 4) if len(latencies) >= 20 else None
    )
    return row


METRICS = ("file@1", "file@3", "file@5", "function@1", "function@5", "function@10")


def markdown(report: dict) -> str:
    lines = [
        "# Localization: locate beside BM25 and search",
        "",
        f"{report['date']} · {report['machine']} · commit {report['commit']}",
        "",
        f"Tasks: the **{report['half']}** half of each set of real fixes "
        "(benchmark/localization_sets.py); the text is the changelog entry. "
        "Hit@k: a file (function) the fix changed is among the first k answers.",
        "",
        "| set | tasks | ranker | " + " | ".join(METRICS) + " |",
        "|---|---|---|" + "---|" * len(METRICS),
    ]
    for name, row in report["sets"].items():
        for ranker in RANKERS:
            cells = " | ".join(f"{row[ranker][m]:.2f}" for m in METRICS)
            lines.append(f"| {name} | {int(row[ranker]['n'])} | {ranker} | {cells} |")
    lines += ["", "locate's confidence and latency:", "",
              "| set | withheld | function@5 where answered | p50 | p95 |", "|---|---|---|---|---|"]  # fmt: skip
    for name, row in report["sets"].items():
        answered = row["locate_answered"]
        at5 = f"{answered['function@5']:.2f} of {int(answered['n'])}" if answered["n"] else "-"
        p50 = f"{row['latency_p50_s'] * 1000:.0f} ms" if row["latency_p50_s"] else "-"
        p95 = f"{row['latency_p95_s'] * 1000:.0f} ms" if row["latency_p95_s"] else "-"
        lines.append(f"| {name} | {row['withheld']} | {at5} | {p50} | {p95} |")
    lines += ["", *by_confidence(report["sets"])]
    return "\n".join(lines) + "\n"


CONFIDENCE_BANDS = (0.0, 0.1, 0.2, 0.3, 0.5, 1.01)


def by_confidence(sets: dict) -> list[str]:
    """How often locate's ranking is right at each confidence (every set's tasks pooled): an
    answer is worth withholding only in a band where it is about never right."""
    tasks = [t for name, row in sets.items() if name != "all" for t in row.get("tasks", [])]
    lines = [
        "locate's ranking by its confidence (all sets pooled; withheld below "
        f"{MIN_CONFIDENCE / 100:.2f}):",
        "",
        "| confidence | tasks | locate file@3 | bm25 file@3 | locate function@5 | bm25 function@5 |",
        "|---|---|---|---|---|---|",
    ]
    for low, high in itertools.pairwise(CONFIDENCE_BANDS):
        band = [t for t in tasks if low <= t["confidence"] < high]
        if not band:
            continue
        cells = [
            f"{sum(t[key] for t in band) / len(band):.2f}"
            for key in ("locate_file@3", "bm25_file@3", "locate_function@5", "bm25_function@5")
        ]
        lines.append(
            f"| {low:.1f}-{min(high, 1.0):.1f} | {len(band)} | " + " | ".join(cells) + " |"
        )
    return lines


def pooled(sets: dict) -> dict:
    """Every task of every set, counted once."""
    out: dict[str, dict[str, float]] = {}
    for ranker in RANKERS:
        n = sum(row[ranker]["n"] for row in sets.values())
        out[ranker] = {"n": n}
        for metric in METRICS:
            out[ranker][metric] = (
                sum(row[ranker][metric] * row[ranker]["n"] for row in sets.values()) / n
            )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--project", default=None, help="comma-separated sets (default: all)")
    parser.add_argument("--limit", type=int, default=None, help="first N tasks of each set")
    parser.add_argument("--no-write", action="store_true", help="print, do not write a report")
    parser.add_argument(
        "--half", choices=(*HALVES, "all"), default="held-out", help="which tasks of each set"
    )
    args = parser.parse_args(argv)
    names = args.project.split(",") if args.project else None
    report: dict = {**run_facts(), "half": args.half, "sets": {}}
    with tempfile.TemporaryDirectory(prefix="cartograph-localization-") as work:
        for lset in load_sets(names, None if args.half == "all" else args.half):
            report["sets"][lset.project] = run_set(lset, args.limit, Path(work))
            print(lset.project, {r: round(report["sets"][lset.project][r]["function@5"], 2)
                                 for r in RANKERS}, flush=True)  # fmt: skip
    if len(report["sets"]) > 1:
        report["sets"]["all"] = {**pooled(report["sets"]), "withheld": sum(
            row["withheld"] for row in report["sets"].values()), "locate_answered": {"n": 0.0},
            "latency_p50_s": 0.0, "latency_p95_s": None}  # fmt: skip
    text = markdown(report)
    print(text)
    if not args.no_write:
        write_report("localization", report, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
