"""What the services stage (HTTP routes and requests, docs/services.md) costs and finds.

On real source trees in one SQLite store, 1 worker per index run as the embedded default
runs them with `--workers 1` (the stage itself is one process either way):

- Flask 3.1.0 (its examples and tests declare routes: blueprints, app factories, url
  prefixes) and Django 5.1.4 (a large tree with few routes of its own): the full index's
  time and the stage's share of it, the routes and requests found;
- 10 one-file body edits re-indexed by name (`files=`): the stage runs after each, and its
  time is reported against the run's.

    python -m benchmark.services [--edits 10] [--neo4j bolt://localhost:7699]
        [--tree express=/path/to/a/clone ...]

`--tree NAME=PATH` adds a local source tree, measured the same way (a git clone's commit is
reported). The TypeScript/JavaScript runs of the report used clones of expressjs/express
(its examples and tests: Express routes, mounted routers), lujakob/nestjs-realworld-example-app
(NestJS controllers, a global prefix) and alan2207/bulletproof-react (axios instances, fetch).

With `--neo4j`, the same runs go to that (emptied) Neo4j instead, one corpus at a time.

Writes benchmark/results/services-<date>.{json,md}.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from benchmark.corpora import fetch
from benchmark.report import run_facts, write_report

CORPORA = (("flask", "3.1.0"), ("django", "5.1.4"))


def _measure(
    name: str, version: str, edits: int, neo4j: str | None, source: Path | None = None
) -> dict:
    from cartograph.index import index_repository
    from cartograph.query.services import service_map
    from cartograph.store import open_store

    source = source or fetch(name, version)
    work = Path(tempfile.mkdtemp(prefix=f"services-{name}-"))
    try:
        root = work / name
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".git"))
        store = open_store(neo4j or f"sqlite:///{work / 'graph.db'}")
        if neo4j:
            for repo in store.repos.list_repos():
                store.repos.delete_repo(repo.name)
        started = time.perf_counter()
        result = index_repository(store, root, name=name, workers=1, history=False)
        total = time.perf_counter() - started
        found = service_map(store, name, limit=100)
        # body edits of files that declare routes or send requests when there are some
        http_paths = sorted(store.index.http_rows(name)) or sorted(
            p for p in store.graph.files(name) if p.endswith(".py")
        )
        stage, runs = [], []
        for i in range(edits):
            path = http_paths[i % len(http_paths)]
            target = root / path
            comment = "#" if path.endswith(".py") else "//"
            target.write_text(target.read_text() + f"\n{comment} edit {i}\n")
            began = time.perf_counter()
            edit = index_repository(store, root, name=name, workers=1, history=False, files=[path])
            runs.append(time.perf_counter() - began)
            stage.append(edit.seconds.get("services", 0.0))
        store.close()
        return {
            "corpus": f"{name} {version}",
            "files": result.files,
            "routes": found.route_total,
            "requests": found.request_total,
            "requests_matched": result.http_calls,
            "unmatched_by_base": found.unmatched_by_base,
            "full_index_s": round(total, 3),
            "full_index_stage_s": round(result.seconds.get("services", 0.0), 4),
            "edit_run_p50_s": round(statistics.median(runs), 4),
            "edit_stage_p50_s": round(statistics.median(stage), 4),
            "edit_stage_max_s": round(max(stage), 4),
            "edits": edits,
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _commit(folder: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(folder), "log", "-1", "--format=%h"],
        capture_output=True,
        text=True,
        check=False,
    )
    return f"@ {done.stdout.strip()}" if done.returncode == 0 else "(local)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--neo4j", default=None, help="a Neo4j URL instead of SQLite")
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="also a local source tree (a git clone: its commit is reported), repeatable",
    )
    args = parser.parse_args()
    rows = [_measure(name, version, args.edits, args.neo4j) for name, version in CORPORA]
    for given in args.tree:
        name, _, folder = given.partition("=")
        rows.append(_measure(name, _commit(Path(folder)), args.edits, args.neo4j, Path(folder)))
    facts = run_facts()
    lines = [
        "# The services stage: routes and requests",
        "",
        f"{facts.get('date', '')} · {facts.get('machine', '')} · commit {facts.get('commit', '')}",
        "",
        f"{'Neo4j' if args.neo4j else 'SQLite'}, 1 worker; `python -m benchmark.services"
        f"{' --neo4j URL' if args.neo4j else ''}` (method in its docstring).",
        "",
        "| corpus | files | routes | requests (matched) | full index | stage in it | "
        "1-file edit run p50 | stage in it p50 (max) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['corpus']} | {r['files']} | {r['routes']} | {r['requests']} "
            f"({r['requests_matched']}) | {r['full_index_s']} s | "
            f"{r['full_index_stage_s'] * 1000:.1f} ms | {r['edit_run_p50_s'] * 1000:.0f} ms | "
            f"{r['edit_stage_p50_s'] * 1000:.1f} ms ({r['edit_stage_max_s'] * 1000:.1f} ms) |"
        )
    for r in rows:
        if r["unmatched_by_base"]:
            bases = ", ".join(
                f"{b or '(relative)'}: {n}" for b, n in r["unmatched_by_base"].items()
            )
            lines.append(f"\n{r['corpus']}: unmatched requests by base URL: {bases}")
    name = "services-neo4j" if args.neo4j else "services"
    path = write_report(name, {**facts, "rows": rows}, "\n".join(lines) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
