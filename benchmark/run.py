"""Speed and memory of the core on real source trees (PyPI sdists of Django, networkx, click).

For each corpus, measured on this machine's cores:
- parse-only floor: tree-sitter parse of the same files (each with its grammar), in as many processes as cores;
- full index into a fresh SQLite store, and its ratio to the floor;
- no-change re-index (library call, and the `cartograph index` command end to end);
- single-file re-index after an edit, p50/p95 over 20 edits of random files (an edit inside a
  function body, and an edit that changes the file's interface, which re-resolves dependents);
- query latency p50/p95 for search, context, callers and trace depth 4 over 100 symbols;
- peak RSS of the full index (main process and parse/resolve workers), store size.

    python -m benchmark.run [--corpus django,networkx,click] [--repeat 3]

Writes benchmark/results/core-<date>.json and .md (and prints the markdown).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from benchmark.corpora import CORPORA, fetch
from benchmark.report import write_report

TARGETS = {
    "full_index_ratio": 3.0,
    "no_change_seconds": 1.0,
    "single_file_p95_ms": 100.0,
    "context_p95_ms": 10.0,
    "callers_p95_ms": 10.0,
    "search_p95_ms": 20.0,
    "peak_rss_mb": 500.0,
}


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def _python_files(root: Path) -> list[str]:
    """Every indexed source file of the tree (all languages), as absolute paths."""
    from cartograph.discover import discover

    return [str(root / f.path) for f in discover(root).files]


def _parse_only(paths: list[str]) -> int:
    """tree-sitter parse of each file with its language's grammar (nothing extracted)."""
    import tree_sitter
    import tree_sitter_python
    from cartograph.discover import language_of
    from cartograph.languages import BY_NAME
    from cartograph.parsing import family

    parsers: dict[str, tree_sitter.Parser] = {}
    nodes = 0
    for path in paths:
        language = language_of(path) or "python"
        if not BY_NAME[language].grammar[0]:  # a lexer-only language (stylesheets): read
            with open(path, "rb") as handle:
                nodes += len(handle.read()) > 0
            continue
        parser = parsers.get(language)
        if parser is None:
            if language == "python":
                grammar = tree_sitter.Language(tree_sitter_python.language())
                parser = tree_sitter.Parser(grammar)
            elif family(language) == "ecma":
                from cartograph.parsing.ecma import _parser

                parser = _parser(language)
            else:
                from cartograph.parsing.tags import _parser

                parser = _parser(language)
            parsers[language] = parser
        with open(path, "rb") as handle:
            nodes += parser.parse(handle.read()).root_node.child_count
    return nodes


def parse_floor(root: Path, workers: int, repeat: int) -> float:
    """Wall time to read and tree-sitter-parse every file, in `workers` processes."""
    paths = sorted(_python_files(root), key=os.path.getsize, reverse=True)
    chunks = [paths[i :: workers * 8] for i in range(workers * 8)]
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        with ProcessPoolExecutor(max_workers=workers) as pool:
            list(pool.map(_parse_only, chunks))
        times.append(time.perf_counter() - started)
    return min(times)


# a full index in a fresh interpreter (argv: store URL, tree, name, optionally workers),
# printing its time, phases, counts and peak memory as one JSON line
INDEX_CHILD = (
    "import json, resource, sys, time\n"
    "from cartograph.store import open_store\n"
    "from cartograph.index import index_repository\n"
    "store = open_store(sys.argv[1])\n"
    "workers = int(sys.argv[4]) if len(sys.argv) > 4 else None\n"
    "t = time.perf_counter()\n"
    "r = index_repository(store, sys.argv[2], sys.argv[3], workers=workers)\n"
    "elapsed = time.perf_counter() - t\n"
    "print(json.dumps({'seconds': elapsed, 'phases': r.seconds, 'files': r.files,\n"
    "  'symbols': r.symbols_written, 'edges': r.edges_written,\n"
    "  'main_rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,\n"
    "  'worker_rss_mb': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))\n"
)


def _index_in_subprocess(root: Path, store_url: str, name: str) -> dict:
    """A full index in a fresh interpreter, reporting its time and peak memory."""
    done = subprocess.run(
        [sys.executable, "-c", INDEX_CHILD, store_url, str(root), name],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _git_commit_all(root: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args],
            cwd=root,
            check=True,
            capture_output=True,
        )

    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "corpus")


def _clean_store(db: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)


def _edit_body(path: Path, marker: int) -> None:
    """Append a statement inside the last function of the file (its interface stays)."""
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.rstrip("\n") + f"\n\n\ndef _bench_probe_{marker}():\n    return {marker}\n"
    )


def measure_corpus(name: str, repeat: int, workers: int) -> dict:
    from cartograph.index import index_repository
    from cartograph.query import callers, context, search, trace
    from cartograph.store.sqlite import open_sqlite

    source = fetch(name)
    out: dict = {"corpus": f"{name}-{CORPORA[name]}", "workers": workers}
    with tempfile.TemporaryDirectory(prefix="cartograph-bench-") as tmp:
        root = Path(tmp) / source.name
        shutil.copytree(source, root, symlinks=True)
        _git_commit_all(root)  # a developer's checkout: files come from `git ls-files`
        db = Path(tmp) / "graph.db"
        out["python_files"] = len(_python_files(root))
        out["parse_floor_seconds"] = round(parse_floor(root, workers, repeat), 3)

        runs = []
        for _ in range(repeat):
            _clean_store(db)
            runs.append(_index_in_subprocess(root, f"sqlite:///{db}", name))
        best = min(runs, key=lambda r: r["seconds"])
        out["full_index_seconds"] = round(best["seconds"], 3)
        out["full_index_runs"] = [round(r["seconds"], 3) for r in runs]
        out["full_index_phases"] = best["phases"]
        out["full_index_ratio"] = round(best["seconds"] / out["parse_floor_seconds"], 2)
        out["peak_rss_mb"] = round(max(r["main_rss_mb"] for r in runs), 1)
        out["worker_peak_rss_mb"] = round(max(r["worker_rss_mb"] for r in runs), 1)
        out["symbols"] = best["symbols"]
        out["edges"] = best["edges"]
        out["store_mb"] = round(
            sum(Path(f"{db}{s}").stat().st_size for s in ("", "-wal") if Path(f"{db}{s}").exists())
            / 1e6,
            1,
        )

        store = open_sqlite(db)
        no_change = []
        for _ in range(5):
            started = time.perf_counter()
            result = index_repository(store, root, name)
            no_change.append(time.perf_counter() - started)
            assert result.parsed == 0, "a no-change run parsed files"
        out["no_change_seconds"] = round(statistics.median(no_change), 3)
        started = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "cartograph.cli",
                "--store",
                f"sqlite:///{db}",
                "index",
                str(root),
                "--name",
                name,
                "--quiet",
            ],
            check=True,
            capture_output=True,
        )
        out["no_change_cli_seconds"] = round(time.perf_counter() - started, 3)

        rng = random.Random(20261130)
        files = sorted(p for p in _python_files(root) if os.path.getsize(p) > 200)
        sample = rng.sample(files, min(20, len(files)))
        for mode in ("body", "interface", "scan"):
            times, reresolved = [], []
            for i, path in enumerate(sample):
                target = Path(path)
                original = target.read_bytes()
                if mode == "interface":
                    _edit_body(target, i)
                else:
                    _edit_inside_function(target, i)
                # body/interface: the agent names the file it edited; scan: a plain re-index
                files = None if mode == "scan" else [str(target.relative_to(root))]
                started = time.perf_counter()
                result = index_repository(store, root, name, files=files)
                times.append((time.perf_counter() - started) * 1000)
                reresolved.append(result.reresolved)
                assert result.parsed == 1, (path, result)
                target.write_bytes(original)
                index_repository(store, root, name)
            out[f"single_file_{mode}_p50_ms"] = round(_percentile(times, 50), 1)
            out[f"single_file_{mode}_p95_ms"] = round(_percentile(times, 95), 1)
            out[f"single_file_{mode}_max_reresolved"] = max(reresolved)
        out["single_file_p95_ms"] = out["single_file_body_p95_ms"]

        symbols = [
            row[0]
            for row in store.connection.db.execute(
                "SELECT qualname FROM symbols WHERE kind IN ('function', 'method', 'class') "
                "ORDER BY qualname"
            )
        ]
        picks = rng.sample(symbols, min(100, len(symbols)))
        words = [q.rpartition(".")[2].replace("_", " ").strip() or q for q in picks]
        timings: dict[str, list[float]] = {
            k: [] for k in ("search", "context", "callers", "trace4")
        }
        for qualname, word in zip(picks, words, strict=True):
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
                    continue  # a qualname shared by two files is ambiguous: not a latency sample
                timings[key].append((time.perf_counter() - started) * 1000)
        for key, values in timings.items():
            out[f"{key}_p50_ms"] = round(_percentile(values, 50), 2)
            out[f"{key}_p95_ms"] = round(_percentile(values, 95), 2)
        store.close()
    return out


def _edit_inside_function(path: Path, marker: int) -> None:
    """Add a statement at the top of the file's first function body (interface unchanged)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    for index, line in enumerate(lines):
        stripped = line.lstrip()
        if stripped.startswith(("def ", "async def ")) and line.rstrip().endswith(":"):
            body = index + 1
            while body < len(lines) and not lines[body].strip():
                body += 1
            if body < len(lines):
                indent = lines[body][: len(lines[body]) - len(lines[body].lstrip())]
                if indent.strip() == "" and len(indent) > len(line) - len(stripped):
                    lines.insert(body, f"{indent}_bench_probe = {marker}\n")
                    path.write_text("".join(lines), encoding="utf-8")
                    return
    _edit_body(path, marker)  # no function: append one (changes the interface)


def to_markdown(report: dict) -> str:
    lines = [
        f"# Core benchmark — {report['date']}",
        "",
        f"Machine: {report['machine']}. Commit: {report['commit']}. "
        f"Times are wall-clock seconds (best of {report['repeat']} for full index).",
        "",
        "| metric | " + " | ".join(c["corpus"] for c in report["corpora"]) + " | target |",
        "|---|" + "---:|" * len(report["corpora"]) + "---|",
    ]
    rows = [
        ("indexed files (all languages)", "python_files", None),
        ("parse-only floor (s)", "parse_floor_seconds", None),
        ("full index (s)", "full_index_seconds", None),
        ("full index / floor", "full_index_ratio", "≤ 3x"),
        ("no-change re-index, library (s)", "no_change_seconds", "≤ 1 s (Django)"),
        ("no-change re-index, CLI (s)", "no_change_cli_seconds", None),
        ("1-file edit in a body, file named: p50 (ms)", "single_file_body_p50_ms", None),
        ("1-file edit in a body, file named: p95 (ms)", "single_file_body_p95_ms", "≤ 100 ms"),
        ("1-file interface edit, file named: p50 (ms)", "single_file_interface_p50_ms", None),
        ("1-file interface edit, file named: p95 (ms)", "single_file_interface_p95_ms", None),
        ("  most files re-resolved by one edit", "single_file_interface_max_reresolved", None),
        ("1-file edit in a body, whole tree listed: p50 (ms)", "single_file_scan_p50_ms", None),
        ("1-file edit in a body, whole tree listed: p95 (ms)", "single_file_scan_p95_ms", None),
        ("search p50 / p95 (ms)", ("search_p50_ms", "search_p95_ms"), "p95 ≤ 20 ms"),
        ("context p50 / p95 (ms)", ("context_p50_ms", "context_p95_ms"), "p95 ≤ 10 ms"),
        ("callers p50 / p95 (ms)", ("callers_p50_ms", "callers_p95_ms"), "p95 ≤ 10 ms"),
        ("trace depth 4 p50 / p95 (ms)", ("trace4_p50_ms", "trace4_p95_ms"), None),
        ("peak RSS, main process (MB)", "peak_rss_mb", "≤ 500 MB"),
        ("peak RSS, largest worker (MB)", "worker_peak_rss_mb", None),
        ("store size (MB)", "store_mb", None),
        ("symbols", "symbols", None),
        ("edges", "edges", None),
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
        phases = ", ".join(f"{k} {v:.2f}" for k, v in corpus["full_index_phases"].items())
        lines.append(
            f"- {corpus['corpus']} full-index phases (s): {phases}; runs: "
            f"{corpus['full_index_runs']}"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Cartograph core benchmark")
    parser.add_argument("--corpus", default="django,networkx,click")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
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
        f"{platform.python_version()}, {platform.system()}",
        "repeat": args.repeat,
        "targets": TARGETS,
        "corpora": [
            measure_corpus(name, args.repeat, args.workers) for name in args.corpus.split(",")
        ],
    }
    write_report("core", report, to_markdown(report), write=not args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
