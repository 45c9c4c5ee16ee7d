"""The Neo4j columns: the same work as benchmark.run, into a real Neo4j 5.26 (tools/neo4j-dev).

For each corpus: full index into Neo4j (fresh interpreter) and into SQLite in the same run (the
ratio is Neo4j / SQLite), single-file re-index p50/p95 over `--edits` edits of random files
(default 60; the file named, as an agent does), query p50/p95 (search, context, callers, trace depth 4) after a
warm-up pass, and the server's heap, page cache and resident memory.

    python -m benchmark.neo4j_store [--corpus django] [--repeat 2]

Writes benchmark/results/neo4j-<date>.json and .md.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmark.corpora import CORPORA, fetch
from benchmark.report import write_report
from benchmark.run import (
    _edit_inside_function,
    _git_commit_all,
    _index_in_subprocess,
    _percentile,
    _python_files,
)

NEO4JDEV = Path(__file__).resolve().parent.parent / "tools" / "neo4j-dev" / "neo4jdev.py"
# the Neo4j issue set 3x and 300 ms; issue 17 asks for 2x and 150 ms
TARGETS = {"ratio_to_sqlite": 2.0, "single_file_p95_ms": 150.0, "query_p95_ms": 30.0}


def _neo4jdev():
    spec = importlib.util.spec_from_file_location("neo4jdev", NEO4JDEV)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def _server_memory(store, pid: int, data_dir: Path) -> dict:
    """JVM heap in use and committed, the store files' size (what the page cache holds when
    everything is cached), process RSS (MB)."""
    out: dict = {}
    try:
        records = store.connection.read(
            "CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes "
            "RETURN attributes.HeapMemoryUsage.value.properties AS heap"
        )
        heap = records[0]["heap"]
        out["heap_used_mb"] = round(heap["used"] / 2**20, 1)
        out["heap_committed_mb"] = round(heap["committed"] / 2**20, 1)
    except Exception as exc:  # the JMX procedure is not everywhere: say so in the report
        out["heap_error"] = str(exc)[:200]
    # Neo4j 5 has no page cache JMX bean: report what the cache would have to hold instead
    databases = Path(data_dir) / "data" / "databases"
    if databases.is_dir():
        store_bytes = sum(f.stat().st_size for f in databases.rglob("*") if f.is_file())
        out["store_files_mb"] = round(store_bytes / 2**20, 1)
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                out["server_rss_mb"] = round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return out


def measure(name: str, repeat: int, server, edits: int = 60) -> dict:
    from cartograph.index import index_repository
    from cartograph.query import callers, context, search, trace
    from cartograph.store import open_store

    source = fetch(name)
    out: dict = {"corpus": f"{name}-{CORPORA[name]}"}
    with tempfile.TemporaryDirectory(prefix="cartograph-neo4j-bench-") as tmp:
        root = Path(tmp) / source.name
        shutil.copytree(source, root, symlinks=True)
        _git_commit_all(root)
        store = open_store(server.url)
        sqlite_runs, neo4j_runs = [], []
        for attempt in range(repeat):
            db = Path(tmp) / f"graph-{attempt}.db"
            sqlite_runs.append(_index_in_subprocess(root, f"sqlite:///{db}", name))
            store.repos.delete_repo(name)
            neo4j_runs.append(_index_in_subprocess(root, server.url, name))
        best_sqlite = min(r["seconds"] for r in sqlite_runs)
        best = min(neo4j_runs, key=lambda r: r["seconds"])
        out["sqlite_full_index_seconds"] = round(best_sqlite, 2)
        out["neo4j_full_index_seconds"] = round(best["seconds"], 2)
        out["neo4j_full_index_runs"] = [round(r["seconds"], 2) for r in neo4j_runs]
        out["neo4j_full_index_phases"] = best["phases"]
        out["ratio_to_sqlite"] = round(best["seconds"] / best_sqlite, 2)

        started = time.perf_counter()
        assert index_repository(store, root, name).parsed == 0
        out["no_change_seconds"] = round(time.perf_counter() - started, 3)

        rng = random.Random(20261130)
        files = sorted(p for p in _python_files(root) if os.path.getsize(p) > 200)
        times, reresolved = [], []
        for i, path in enumerate(rng.sample(files, min(edits, len(files)))):
            target = Path(path)
            original = target.read_bytes()
            _edit_inside_function(target, i)
            relative = [str(target.relative_to(root))]
            started = time.perf_counter()
            result = index_repository(store, root, name, files=relative)
            times.append((time.perf_counter() - started) * 1000)
            reresolved.append(result.reresolved)
            target.write_bytes(original)
            index_repository(store, root, name, files=relative)
        out["single_file_p50_ms"] = round(_percentile(times, 50), 1)
        out["single_file_p95_ms"] = round(_percentile(times, 95), 1)
        out["single_file_samples"] = len(times)
        out["single_file_max_reresolved"] = max(reresolved)

        symbols = [
            r["q"]
            for r in store.connection.read(
                "MATCH (s:Symbol {repo: $repo}) WHERE s.kind IN ['function', 'method', 'class'] "
                "RETURN s.qualname AS q ORDER BY q",
                repo=name,
            )
        ]
        picks = rng.sample(symbols, min(100, len(symbols)))
        timings: dict[str, list[float]] = {
            k: [] for k in ("search", "context", "callers", "trace4")
        }
        for warm_up in (True, False):  # the first pass compiles and caches the query plans
            for qualname in picks:
                word = qualname.rpartition(".")[2].replace("_", " ").strip() or qualname
                for key, call, arguments in (
                    ("search", search, (store, word)),
                    ("context", context, (store, qualname)),
                    ("callers", callers, (store, qualname)),
                    ("trace4", trace, (store, qualname, "out", 4)),
                ):
                    started = time.perf_counter()
                    try:
                        call(*arguments)
                    except LookupError:
                        continue
                    if not warm_up:
                        timings[key].append((time.perf_counter() - started) * 1000)
        for key, values in timings.items():
            out[f"{key}_p50_ms"] = round(_percentile(values, 50), 2)
            out[f"{key}_p95_ms"] = round(_percentile(values, 95), 2)
        out.update(_server_memory(store, server.pid, server.data_dir))
        store.repos.delete_repo(name)
        store.close()
    return out


def to_markdown(report: dict) -> str:
    lines = [
        f"# Neo4j store benchmark — {report['date']}",
        "",
        f"Machine: {report['machine']}. Commit: {report['commit']}. Server: Neo4j "
        f"{report['server']} (tools/neo4j-dev, heap {report['heap']}, page cache "
        f"{report['pagecache']}), on the same machine as the indexer.",
        "",
        "| metric | " + " | ".join(c["corpus"] for c in report["corpora"]) + " | target |",
        "|---|" + "---:|" * len(report["corpora"]) + "---|",
    ]
    rows = [
        ("full index into SQLite (s)", "sqlite_full_index_seconds", None),
        ("full index into Neo4j (s)", "neo4j_full_index_seconds", None),
        ("Neo4j / SQLite", "ratio_to_sqlite", f"≤ {TARGETS['ratio_to_sqlite']:g}x"),
        ("no-change re-index (s)", "no_change_seconds", None),
        ("1-file re-index p50 (ms)", "single_file_p50_ms", None),
        (
            "1-file re-index p95 (ms)",
            "single_file_p95_ms",
            f"≤ {TARGETS['single_file_p95_ms']:g} ms",
        ),
        ("1-file re-index samples", "single_file_samples", None),
        ("search p50 / p95 (ms)", ("search_p50_ms", "search_p95_ms"), None),
        ("context p50 / p95 (ms)", ("context_p50_ms", "context_p95_ms"), "p95 ≤ 30 ms"),
        ("callers p50 / p95 (ms)", ("callers_p50_ms", "callers_p95_ms"), "p95 ≤ 30 ms"),
        ("trace depth 4 p50 / p95 (ms)", ("trace4_p50_ms", "trace4_p95_ms"), "p95 ≤ 30 ms"),
        ("server heap used / committed (MB)", ("heap_used_mb", "heap_committed_mb"), None),
        ("server store files on disk after this corpus (MB)", "store_files_mb", None),
        ("server RSS (MB)", "server_rss_mb", None),
    ]
    for label, key, target in rows:
        cells = []
        for corpus in report["corpora"]:
            if isinstance(key, tuple):
                cells.append(" / ".join(str(corpus.get(k, "")) for k in key))
            else:
                cells.append(str(corpus.get(key, "")))
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {target or ''} |")
    lines.append("")
    for corpus in report["corpora"]:
        phases = ", ".join(f"{k} {v:.2f}" for k, v in corpus["neo4j_full_index_phases"].items())
        lines.append(
            f"- {corpus['corpus']} Neo4j full-index phases (s): {phases}; runs: "
            f"{corpus['neo4j_full_index_runs']}"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Cartograph Neo4j store benchmark")
    parser.add_argument("--corpus", default="django")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument(
        "--edits", type=int, default=60, help="single-file re-index samples (a p95 needs many)"
    )
    parser.add_argument("--heap", default="2g")
    parser.add_argument("--pagecache", default="1g")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    neo4jdev = _neo4jdev()
    neo4jdev.build()
    server = neo4jdev.start(heap=args.heap, pagecache=args.pagecache)
    try:
        import platform

        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).parent,
        ).stdout.strip()
        report = {
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "commit": commit,
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}",
            "server": "5.26.30 Community",
            "heap": args.heap,
            "pagecache": args.pagecache,
            "targets": TARGETS,
            "corpora": [
                measure(name, args.repeat, server, args.edits) for name in args.corpus.split(",")
            ],
        }
    finally:
        server.stop()
    write_report("neo4j", report, to_markdown(report), write=not args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
