"""How fast `impact` answers: a 10-file diff on Django, in Neo4j (the team store) and in SQLite.

Django 5.1.4 is indexed once into a real Neo4j 5.26 (tools/neo4j-dev) and into SQLite. Each
sample is a fresh patch of `--files` random Python files of django/ (a statement added at the
top of one function body in each, so every sample changes symbols, reaches callers and tests);
`impact --patch` is timed in-process after one warm-up call, `--samples` times per store.

    python -m benchmark.impact_latency [--samples 40] [--files 10]

Writes benchmark/results/impact-latency-<date>.json and .md.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from benchmark.corpora import CORPORA, fetch
from benchmark.neo4j_store import _neo4jdev
from benchmark.report import run_facts, write_report
from benchmark.run import _edit_inside_function, _git_commit_all, _percentile

TARGET_P95_SECONDS = 1.0


def _patch(root: Path, rng: random.Random, files: int, marker: int) -> str:
    """A diff of `files` random Django modules, each with a function body edited (the tree
    is put back afterwards)."""
    candidates = sorted(str(p.relative_to(root)) for p in (root / "django").rglob("*.py"))
    chosen = rng.sample(candidates, files * 3)
    edited = 0
    for rel in chosen:
        before = (root / rel).read_text(encoding="utf-8")
        _edit_inside_function(root / rel, marker)
        if (root / rel).read_text(encoding="utf-8") != before:
            edited += 1
        if edited == files:
            break
    diff = subprocess.run(
        ["git", "diff"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=root, check=True)
    return diff


def measure(store_url: str, root: Path, samples: int, files: int, seed: int) -> dict:
    from cartograph.impact.report import impact
    from cartograph.store import open_store

    store = open_store(store_url)
    rng = random.Random(seed)
    impact(store, "django", patch=_patch(root, rng, files, 0))  # warm-up
    timings, sizes = [], []
    for sample in range(samples):
        patch = _patch(root, rng, files, sample + 1)
        started = time.perf_counter()
        answer = impact(store, "django", patch=patch)
        timings.append(time.perf_counter() - started)
        sizes.append(
            {"changed": len(answer.changed), "affected": answer.affected_total,
             "tests": answer.tests_total, "will_break": len(answer.will_break)}
        )  # fmt: skip
    store.close()
    return {
        "samples": samples,
        "p50_s": round(statistics.median(timings), 3),
        "p95_s": round(_percentile(timings, 95), 3),
        "max_s": round(max(timings), 3),
        "median_changed": statistics.median(s["changed"] for s in sizes),
        "median_affected": statistics.median(s["affected"] for s in sizes),
        "median_tests": statistics.median(s["tests"] for s in sizes),
    }


def to_markdown(report: dict) -> str:
    facts = report["facts"]
    out = [
        "# impact latency: a 10-file diff on Django",
        "",
        f"{facts['date']} · {facts['machine']} · commit {facts['commit']}",
        "",
        f"Django {CORPORA['django']} ({report['files_indexed']} files), indexed once per store; "
        f"each sample a fresh patch of {report['files_per_diff']} random django/ modules (a "
        "statement added to one function body each); `impact --patch` timed in-process after a "
        f"warm-up. Target: Neo4j p95 ≤ {TARGET_P95_SECONDS} s.",
        "",
        "| store | samples | p50 s | p95 s | max s | changed symbols (median) | "
        "may be affected (median) | tests to run (median) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, row in report["stores"].items():
        out.append(
            f"| {name} | {row['samples']} | {row['p50_s']} | {row['p95_s']} | {row['max_s']} | "
            f"{row['median_changed']} | {row['median_affected']} | {row['median_tests']} |"
        )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="impact latency on Django")
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    from cartograph.index import index_repository
    from cartograph.store import open_store

    neo4jdev = _neo4jdev()
    neo4jdev.build()
    server = neo4jdev.start(heap="2g", pagecache="1g")
    try:
        with tempfile.TemporaryDirectory(prefix="cartograph-impact-latency-") as tmp:
            root = Path(tmp) / "django"
            shutil.copytree(fetch("django"), root, symlinks=True)
            _git_commit_all(root)
            urls = {"neo4j": server.url, "sqlite": f"sqlite:///{Path(tmp) / 'graph.db'}"}
            files = 0
            for url in urls.values():
                store = open_store(url)
                files = index_repository(store, root, name="django", history=False).files
                store.close()
            facts = run_facts()
            report = {
                "date": facts["date"],
                "facts": facts,
                "files_indexed": files,
                "files_per_diff": args.files,
                "target_p95_s": TARGET_P95_SECONDS,
                "stores": {
                    name: measure(url, root, args.samples, args.files, args.seed)
                    for name, url in urls.items()
                },
            }
    finally:
        server.stop()
    write_report("impact-latency", report, to_markdown(report), write=not args.no_write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
