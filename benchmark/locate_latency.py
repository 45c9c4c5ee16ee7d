"""locate's latency on a Django-sized repository (issue 42: p95 <= 100 ms).

The tree is Django's sdist (`benchmark.corpora`, Django 5.1.4: the library, its tests and its
docs), indexed once into a store (`--store`, default a new SQLite file; a Neo4j URL works too).
The texts are real Django reports: the problem statements of SWE-bench Lite's 114 Django tasks
(`benchmark.swebench_lite.load_records`; tracebacks, code and long prose among them). Each
text is answered `--rounds` times by `query.locate.locate`, the whole answer an agent gets
(ranking, tests, freshness), in one process, after one warm-up answer; the answer cache is not
in the way (`locate` is called directly).

Reported: p50, p95 and max of the wall times, over all answers and by the length of the text in
words (the longer a text, the more bodies its words match); and, as a check that a latency
change does not cost the answers, the share of texts whose patch's files are all among the first
1, 3 and 5 files. That last figure is a proxy: the tree is Django 5.1.4, not each task's base
commit (benchmark/swebench_lite.py grades at the base commits, where it can fetch the history).

    python -m benchmark.locate_latency [--store URL] [--rounds 3] [--no-write]
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from cartograph.index import index_repository
from cartograph.query.locate import locate, query_words, rank
from cartograph.query.tasktext import readable
from cartograph.store import open_store

from benchmark.corpora import fetch
from benchmark.report import latency_stats, run_facts, write_report
from benchmark.swebench_lite import TASKS, load_records

REPO = "django"
LENGTHS = ((0, 30, "up to 30 words"), (31, 80, "31-80 words"), (81, 10**9, "over 80 words"))
FILE_KS = (1, 3, 5)


def django_tasks(tasks_path: Path) -> tuple[list[dict], str]:
    """SWE-bench Lite's Django tasks: their text and the files their patch changes."""
    records, provenance = load_records(tasks_path)
    tasks = [
        {
            "id": r["instance_id"],
            "text": r["problem_statement"],
            "files": sorted(set(re.findall(r"^diff --git a/(\S+)", r["patch"], re.M))),
        }
        for r in records
        if r["repo"] == "django/django"
    ]
    return tasks, provenance


def words_in(text: str) -> int:
    return len(set(query_words(readable(text))[0]))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--store", default=None, help="store URL (default: a new SQLite file)")
    parser.add_argument("--rounds", type=int, default=3, help="answers per text")
    parser.add_argument("--tasks", type=Path, default=TASKS, help="SWE-bench Lite (JSON lines)")
    parser.add_argument("--no-write", action="store_true", help="print, do not write a report")
    args = parser.parse_args(argv)
    tasks, provenance = django_tasks(args.tasks)
    tree = fetch("django")
    with tempfile.TemporaryDirectory(prefix="cartograph-locate-latency-") as work:
        store = open_store(args.store or f"sqlite:///{work}/django.db")
        started = time.perf_counter()
        indexed = index_repository(store, tree, REPO, history=False)
        index_s = time.perf_counter() - started
        locate(store, tasks[0]["text"], REPO)  # warm-up: the store's pages, the layouts
        times: dict[str, list[float]] = {t["id"]: [] for t in tasks}
        for _round in range(args.rounds):
            for task in tasks:
                started = time.perf_counter()
                locate(store, task["text"], REPO)
                times[task["id"]].append(time.perf_counter() - started)
        hits = {k: 0 for k in FILE_KS}
        for task in tasks:
            files = [f.path for f in rank(store, task["text"], REPO).files]
            for k in FILE_KS:
                hits[k] += set(task["files"]) <= set(files[:k])
        store.close()
    lengths = {t["id"]: words_in(t["text"]) for t in tasks}
    by_length = {}
    for low, high, label in LENGTHS:
        chosen = [s for t in tasks if low <= lengths[t["id"]] <= high for s in times[t["id"]]]
        if chosen:
            by_length[label] = {"texts": len(chosen) // args.rounds, **latency_stats(chosen)}
    report = {
        **run_facts(),
        "command": " ".join(["python -m benchmark.locate_latency", *(argv or [])]),
        "tree": tree.name,
        "store": "neo4j" if args.store and args.store.startswith(("bolt", "neo4j")) else "sqlite",
        "files": indexed.files,
        "symbols": indexed.symbols_written,
        "texts": provenance,
        "index_s": round(index_s, 1),
        "rounds": args.rounds,
        "latency": latency_stats([s for runs in times.values() for s in runs]),
        "by_length": by_length,
        "files_proxy": {f"acc@{k}": round(hits[k] / len(tasks), 3) for k in FILE_KS},
        "tasks": len(tasks),
    }
    write_report("locate-latency", report, markdown(report), write=not args.no_write)
    return 0


def markdown(report: dict) -> str:
    lat = report["latency"]
    lines = [
        f"# locate latency on Django ({report['date'][:10]}, commit {report['commit']})",
        "",
        f"{report['machine']}. Tree: {report['tree']}, {report['files']} files and "
        f"{report['symbols']} symbols indexed into {report['store']} in {report['index_s']} s. Texts: the {report['tasks']} Django problem statements of "
        f"SWE-bench Lite ({report['texts']}), each answered {report['rounds']} times by "
        "`locate` in one process.",
        "",
        "| texts | answers | p50 | p95 | max |",
        "|---|---|---|---|---|",
        f"| all | {lat['runs']} | {lat['p50_ms']:.0f} ms | {lat['p95_ms']:.0f} ms | "
        f"{lat['max_ms']:.0f} ms |",
    ]
    for label, row in report["by_length"].items():
        lines.append(
            f"| {label} ({row['texts']}) | {row['runs']} | {row['p50_ms']:.0f} ms | "
            f"{row['p95_ms']:.0f} ms | {row['max_ms']:.0f} ms |"
        )
    proxy = report["files_proxy"]
    lines += [
        "",
        f"Files proxy (every file of the task's patch among the first k, on the 5.1.4 tree, not "
        f"the base commit): Acc@1 {proxy['acc@1']:.2f}, Acc@3 {proxy['acc@3']:.2f}, "
        f"Acc@5 {proxy['acc@5']:.2f}.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
