"""What the walk graph costs an API process (issue 41): Django's walk graph held by each
process (`CARTOGRAPH_WALK_GRAPHS=memory`: in dictionaries until 2026-12-07, the report of
2026-12-06; since then the file's bytes) against the mapped walk-graph file (`impact.walkfile`,
the default), as repositories are added to the process.

Django 5.1.4 (the sdist, `benchmark.corpora`) is committed into a fresh git repository and
indexed once into SQLite; the store file is copied `--copies` times, so one process can hold
the walk graphs of several Django-sized repositories (each copy is a store of its own, as each
repository of a team holds its own edges). Then, in a fresh interpreter per run, runs
interleaved by mode (memory, files building them, files mapping them, memory, files):

- memory after the imports, the stores opened and their file states read, and after each
  copy's graph is loaded (`ReverseGraph.edges`):
  RSS and PSS of the process (`/proc/self/smaps_rollup`), and its private pages (what no other
  process shares: Private_Clean + Private_Dirty), with the seconds each load took (in "files"
  mode the first process writes each file; the next maps it);
- then `impact` of real Django patches (`benchmark.agent_surface.DJANGO_PATCHES`) on the first
  copy, each twice (the first walk after the load, and again warm), and whether every answer
  is the same in both modes.

The machine is shared: the load average at start and end is in the report.

    python -m benchmark.walk_graphs [--copies 4] [--keep-work] [--no-write]

Writes benchmark/results/walk-graphs-<date>.md and .json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmark.agent_surface import DJANGO_PATCHES, commit_tree, patch_of
from benchmark.corpora import fetch
from benchmark.report import run_facts, write_report

WORK = Path("/tmp/cartograph-walk-graphs")
RUNS = ("memory", "files", "files", "memory", "files")


def _memory() -> dict[str, float]:
    fields: dict[str, float] = {}
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines()[1:]:
        name, _, rest = line.partition(":")
        fields[name] = int(rest.split()[0]) / 1024
    return {
        "rss_mb": fields["Rss"],
        "pss_mb": fields["Pss"],
        "private_mb": fields["Private_Clean"] + fields["Private_Dirty"],
    }


def child(mode: str, stores: list[str], root: str) -> dict[str, Any]:
    """One run in this interpreter: load each store's graph, then walk the patches."""
    os.environ["CARTOGRAPH_WALK_GRAPHS"] = mode
    from cartograph.impact.graph import ReverseGraph
    from cartograph.impact.report import impact
    from cartograph.render import to_data
    from cartograph.store import open_store

    # the stores opened and their file states read first: what a load adds is the graph's
    opened = [open_store(url) for url in stores]
    graphs = [ReverseGraph(store) for store in opened]
    for graph in graphs:
        graph.states["django"] = graph.store.index.file_states("django")
    out: dict[str, Any] = {"mode": mode, "imported": _memory(), "loads": [], "walks": []}
    for graph in graphs:
        started = time.perf_counter()
        graph.edges("django")
        out["loads"].append({"seconds": time.perf_counter() - started, **_memory()})
    answers = {}
    for label, path, old, new in DJANGO_PATCHES:
        patch = patch_of(Path(root), path, old, new)
        times = []
        for _ in range(2):
            started = time.perf_counter()
            answer = impact(opened[0], "django", patch=patch)
            times.append(time.perf_counter() - started)
        # compared across runs and modes by digest (the answers themselves are megabytes)
        written = json.dumps(to_data(answer), sort_keys=True, default=str)
        answers[label] = hashlib.sha256(written.encode()).hexdigest()
        out["walks"].append({"patch": label, "first": times[0], "warm": times[1]})
    out["after_walks"] = _memory()
    out["answers"] = answers
    return out


def _load_average() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def measure(copies: int, keep: bool) -> dict[str, Any]:
    if WORK.exists() and not keep:
        shutil.rmtree(WORK)
    WORK.mkdir(parents=True, exist_ok=True)
    root = WORK / "django"
    database = WORK / "django.db"
    index_seconds = None
    if not database.exists():
        if root.exists():
            shutil.rmtree(root)
        commit_tree(fetch("django", "5.1.4"), root)
        from cartograph.index import index_repository
        from cartograph.store import open_store

        started = time.perf_counter()
        index_repository(open_store(f"sqlite:///{database}"), root, "django")
        index_seconds = time.perf_counter() - started
    stores = []
    for n in range(copies):
        folder = WORK / f"copy-{n}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        shutil.copy(database, folder / "graph.db")
        stores.append(f"sqlite:///{folder / 'graph.db'}")
    load_before = _load_average()
    runs = []
    for mode in RUNS:
        done = subprocess.run(
            [sys.executable, "-m", "benchmark.walk_graphs", "--child", mode, str(root), *stores],
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(done.stdout.splitlines()[-1]))
        print(f"{mode}: {runs[-1]['loads'][-1]}", file=sys.stderr)
    walk_files = sorted((WORK / "copy-0" / "graph.db.walks").glob("*.walk"))
    return {
        "copies": copies,
        "index_seconds": index_seconds,
        "runs": runs,
        "walk_file_mb": walk_files[0].stat().st_size / 2**20 if walk_files else None,
        "load_average": [load_before, _load_average()],
    }


def summarise(found: dict[str, Any]) -> dict[str, Any]:
    runs = found["runs"]
    memory = [r for r in runs if r["mode"] == "memory"]
    building, *mapping = [r for r in runs if r["mode"] == "files"]

    def per_copy(run: dict[str, Any], key: str) -> float:
        loads = run["loads"]
        return (loads[-1][key] - run["imported"][key]) / len(loads)

    same = all(run["answers"] == memory[0]["answers"] for run in runs)  # every run, both modes
    walks = {}
    for index, walk in enumerate(memory[0]["walks"]):
        walks[walk["patch"]] = {
            mode: {
                "first": statistics.median(r["walks"][index]["first"] for r in chosen),
                "warm": statistics.median(r["walks"][index]["warm"] for r in chosen),
            }
            for mode, chosen in (("memory", memory), ("files", mapping))
        }
    return {
        "same_answers": same,
        "per_copy_mb": {
            mode: {
                key: statistics.median(per_copy(r, key) for r in chosen)
                for key in ("rss_mb", "pss_mb", "private_mb")
            }
            for mode, chosen in (("memory", memory), ("files", mapping))
        },
        "load_seconds": {
            "memory": statistics.median(load["seconds"] for r in memory for load in r["loads"]),
            "files, writing": statistics.median(load["seconds"] for load in building["loads"]),
            "files, mapping": statistics.median(
                load["seconds"] for r in mapping for load in r["loads"]
            ),
        },
        "walks": walks,
    }


def markdown(report: dict[str, Any]) -> str:
    found, summary = report["measured"], report["summary"]
    out = [
        "# The walk graph in an API process: built in the process against a mapped file",
        "",
        f"{report['date']} · {report['machine']} · commit {report['commit']}",
        "",
        f"Django 5.1.4, indexed once into SQLite, its store copied {found['copies']} times (a "
        "process holding the walk graphs of that many Django-sized repositories); a fresh "
        "interpreter per run, runs interleaved: " + ", ".join(RUNS) + ". Load average "
        f"{found['load_average'][0]:.2f} at start, {found['load_average'][1]:.2f} at end "
        "(nothing else of ours ran). Walk-graph file: "
        f"{found['walk_file_mb']:.1f} MB. `python -m benchmark.walk_graphs` (method in its "
        "docstring).",
        "",
        "## Memory a repository's walk graph adds to a process (median over runs)",
        "",
        "| mode | RSS | PSS | private |",
        "|---|---:|---:|---:|",
    ]
    for mode, sizes in summary["per_copy_mb"].items():
        out.append(
            f"| {mode} | {sizes['rss_mb']:.1f} MB | {sizes['pss_mb']:.1f} MB | "
            f"{sizes['private_mb']:.1f} MB |"
        )
    out += ["", "Each run, after the imports and after each copy's graph:", ""]
    out += [
        "| run | mode | stores open: RSS / private | "
        + " | ".join(f"{n + 1} loaded: RSS / private" for n in range(found["copies"]))
        + " | after the walks: RSS / private |"
    ]
    out += ["|---|---|---:|" + "---:|" * found["copies"] + "---:|"]
    for n, run in enumerate(found["runs"]):
        cells = [f"{run['imported']['rss_mb']:.0f} / {run['imported']['private_mb']:.0f}"]
        cells += [f"{load['rss_mb']:.0f} / {load['private_mb']:.0f}" for load in run["loads"]]
        cells.append(f"{run['after_walks']['rss_mb']:.0f} / {run['after_walks']['private_mb']:.0f}")
        out.append(f"| {n + 1} | {run['mode']} | " + " | ".join(cells) + " |")
    out += ["", "## Time", "", "| load of one graph (median) | seconds |", "|---|---:|"]
    out += [f"| {mode} | {seconds:.2f} |" for mode, seconds in summary["load_seconds"].items()]
    out += [
        "",
        "| impact of | memory: first / warm | files: first / warm |",
        "|---|---:|---:|",
    ]
    for patch, modes in summary["walks"].items():
        memory, files = modes["memory"], modes["files"]
        out.append(
            f"| {patch} | {memory['first']:.2f} s / {memory['warm']:.2f} s | "
            f"{files['first']:.2f} s / {files['warm']:.2f} s |"
        )
    out += [
        "",
        f"Every impact answer the same in both modes, every run: {'yes' if summary['same_answers'] else '**no**'}.",
        "",
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--keep-work", action="store_true")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        mode, root, *stores = args.child
        print(json.dumps(child(mode, stores, root)))
        return 0
    found = measure(args.copies, args.keep_work)
    report = {**run_facts(), "measured": found, "summary": summarise(found)}
    write_report("walk-graphs", report, markdown(report), write=not args.no_write)
    return 0 if report["summary"]["same_answers"] else 1


if __name__ == "__main__":
    sys.exit(main())
