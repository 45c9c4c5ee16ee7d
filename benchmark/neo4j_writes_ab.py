"""The Neo4j 1-file re-index with two versions of the index writer, paired on one graph:
this checkout's `Neo4jIndexWriter.write_files`/`write_edges` against those of another checkout
(`--before`, e.g. a `git worktree` of an earlier commit). Both write the same graph, so they
can take turns on one Django 5.1.4 index in one Neo4j server: each of 60 random library files
gets a one-statement edit re-indexed by each version (in alternating order), and is restored
after each. Pairing on the same files in the same minutes keeps the machine's drift (which
moves separate runs by 1.5-2x here) out of the comparison.

    git worktree add /tmp/before <commit>
    python -m benchmark.neo4j_writes_ab --before /tmp/before
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import cartograph.store.neo4j.index as current
from cartograph.index import index_repository
from cartograph.store import open_store

from benchmark.corpora import fetch
from benchmark.neo4j_store import _neo4jdev
from benchmark.report import latency_stats, run_facts, write_report
from benchmark.run import _edit_inside_function, _git_commit_all, _python_files

SEED = 20261130


def _writer_of(checkout: Path):
    path = checkout / "platform" / "cartograph" / "store" / "neo4j" / "index.py"
    spec = importlib.util.spec_from_file_location("cartograph_before_index", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Neo4jIndexWriter


def measure(before: Path, edits: int) -> dict:
    versions = {"before": _writer_of(before), "this checkout": current.Neo4jIndexWriter}
    methods = {name: (writer.write_files, writer.write_edges) for name, writer in versions.items()}

    def use(name: str) -> None:
        current.Neo4jIndexWriter.write_files, current.Neo4jIndexWriter.write_edges = methods[name]

    server = _neo4jdev().start(heap="2g", pagecache="1g")
    work = Path(tempfile.mkdtemp(prefix="cartograph-writes-ab-"))
    try:
        root = work / "django"
        shutil.copytree(fetch("django"), root)
        _git_commit_all(root)
        store = open_store(server.url)
        use("this checkout")
        index_repository(store, root, "django", history=False)
        files = sorted(p for p in _python_files(root) if os.path.getsize(p) > 200)
        times: dict[str, list[float]] = {name: [] for name in versions}
        for i, path in enumerate(random.Random(SEED).sample(files, edits)):
            target = Path(path)
            original = target.read_bytes()
            named = [str(target.relative_to(root))]
            for name in list(versions) if i % 2 == 0 else list(reversed(versions)):
                use(name)
                _edit_inside_function(target, i)
                started = time.perf_counter()
                index_repository(store, root, "django", files=named)
                times[name].append(time.perf_counter() - started)
                target.write_bytes(original)
                index_repository(store, root, "django", files=named)
        use("this checkout")
        store.close()
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)

    return {
        **run_facts(),
        "before": subprocess.run(
            ["git", "-C", str(before), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        or str(before),
        "corpus": "django 5.1.4 (sdist), Neo4j 5.26 (tools/neo4j-dev, 2 GiB heap)",
        "versions": {
            name: {**latency_stats(values), "mean_ms": round(statistics.mean(values) * 1000, 1)}
            for name, values in times.items()
        },
    }


def markdown(report: dict) -> str:
    lines = [
        "# Neo4j 1-file re-index: two index writers, paired on one graph",
        "",
        f"{report['date']} · {report['machine']} · commit {report['commit']} against "
        f"{report['before']} · {report['corpus']}",
        "",
        "| writer | p50 | p95 | mean | runs |",
        "|---|---|---|---|---|",
    ]
    for name, row in report["versions"].items():
        lines.append(f"| {name} | {row['p50_ms']} ms | {row['p95_ms']} ms | "
                     f"{row['mean_ms']} ms | {row['runs']} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the old code")
    parser.add_argument("--edits", type=int, default=60)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    report = measure(args.before.resolve(), args.edits)
    write_report("neo4j-writes-ab", report, markdown(report), not args.no_write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
