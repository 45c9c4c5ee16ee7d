"""TypeScript/JavaScript (and other languages): index speed against the parse-only floor, and
the precision/recall of the TypeScript resolver on its fixture suite.

Corpora are npm packages that publish their TypeScript sources (benchmark/corpora.py:
NPM_CORPORA): rxjs 7.8.1 (src/ in TypeScript beside dist/ in JavaScript) and
@loopback/rest 15.0.16 (NestJS-like dependency injection through constructor parameter
properties). The walk leaves out `dist/` folders, as it does for any repository, so what is
indexed is the TypeScript source tree.

    python -m benchmark.languages [--repeat 2] [--workers 2]

Writes benchmark/results/languages-<date>.json and .md.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import tempfile
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from benchmark.corpora import NPM_CORPORA, fetch_npm
from benchmark.report import write_report
from benchmark.run import _index_in_subprocess, parse_floor

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "resolution_ts"
TARGET_RATIO = 3.0


def measure_corpus(name: str, version: str, repeat: int, workers: int) -> dict:
    from cartograph.discover import discover

    root = fetch_npm(name, version)
    languages = Counter(f.language for f in discover(root).files)
    floor = parse_floor(root, workers, repeat)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for attempt in range(repeat):
            db = Path(tmp) / f"graph-{attempt}.db"
            runs.append(_index_in_subprocess(root, f"sqlite:///{db}", "corpus"))
    best = min(runs, key=lambda r: r["seconds"])
    return {
        "corpus": f"{name}@{version}",
        "files": dict(languages),
        "parse_floor_s": round(floor, 3),
        "full_index_s": round(best["seconds"], 3),
        "ratio_to_floor": round(best["seconds"] / floor, 2) if floor else None,
        "phases": {k: round(v, 3) for k, v in best["phases"].items()},
        "symbols": best["symbols"],
        "edges": best["edges"],
        "peak_rss_mb": round(max(best["main_rss_mb"], best["worker_rss_mb"]), 1),
        "runs_s": [round(r["seconds"], 3) for r in runs],
    }


def fixture_accuracy() -> dict:
    """Edges found against the fixtures' complete expected sets (type, source, target)."""
    from cartograph.index import index_repository
    from cartograph.model import split_symbol_id
    from cartograph.store.sqlite import open_sqlite

    tp = fp = fn = 0
    per_fixture = {}
    with tempfile.TemporaryDirectory() as tmp:
        for fixture in sorted(p for p in FIXTURES.iterdir() if (p / "expected.json").exists()):
            spec = json.loads((fixture / "expected.json").read_text())
            store = open_sqlite(Path(tmp) / f"{fixture.name}.db")
            index_repository(store, fixture, name="fixture", workers=1)
            actual = set()
            for item in store.graph.export("fixture"):
                if item["type"] == "edge" and item["label"] in ("CALLS", "REFERENCES", "INHERITS"):
                    ends = []
                    for sid in (item["src"], item["dst"]):
                        _repo, path, qualname = split_symbol_id(sid)
                        ends.append(f"{path}#{qualname}")
                    actual.add((item["label"], *ends))
            store.close()
            wanted = {tuple(e[:3]) for e in spec["edges"]}
            optional = {tuple(e[:3]) for e in spec.get("optional", [])}  # bonus: not counted
            actual -= optional - wanted
            hits = len(actual & wanted)
            tp, fp, fn = tp + hits, fp + len(actual - wanted), fn + len(wanted - actual)
            per_fixture[fixture.name] = {
                "expected": len(wanted),
                "found": hits,
                "invented": len(actual - wanted),
            }
    return {
        "precision": round(tp / (tp + fp), 4) if tp + fp else 1.0,
        "recall": round(tp / (tp + fn), 4) if tp + fn else 1.0,
        "fixtures": per_fixture,
    }


def to_markdown(report: dict) -> str:
    lines = [
        f"# Languages benchmark — {report['date']}",
        "",
        f"Machine: {report['machine']}. Commit: {report['commit']}. Full index into SQLite in a "
        "fresh interpreter (best of the runs); the floor is reading and tree-sitter-parsing "
        f"every indexed file in {report['workers']} processes (nothing extracted). Target: "
        f"full index ≤ {TARGET_RATIO:g}x the floor.",
        "",
        "| corpus | files | floor s | full index s | ratio | symbols | edges | peak RSS MB |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for c in report["corpora"]:
        files = ", ".join(f"{k} {v}" for k, v in sorted(c["files"].items()))
        lines.append(
            f"| {c['corpus']} | {files} | {c['parse_floor_s']} | {c['full_index_s']} | "
            f"{c['ratio_to_floor']}x | {c['symbols']} | {c['edges']} | {c['peak_rss_mb']} |"
        )
    lines += [""]
    for c in report["corpora"]:
        phases = ", ".join(f"{k} {v}" for k, v in c["phases"].items())
        lines.append(f"- {c['corpus']} phases (s): {phases}; runs {c['runs_s']}")
    acc = report["accuracy"]
    lines += [
        "",
        "## TypeScript/JavaScript resolver on tests/resolution_ts",
        "",
        f"Precision {acc['precision']:.2%}, recall {acc['recall']:.2%} over "
        f"{len(acc['fixtures'])} fixtures ((type, source, target) of every CALLS, REFERENCES "
        "and INHERITS edge, against each fixture's complete expected set).",
        "",
        "| fixture | expected | found | invented |",
        "|---|---:|---:|---:|",
    ]
    for name, row in acc["fixtures"].items():
        lines.append(f"| {name} | {row['expected']} | {row['found']} | {row['invented']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    report = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {len(__import__('os').sched_getaffinity(0))} cores, "
        f"Python {platform.python_version()}",
        "commit": commit,
        "workers": args.workers,
        "corpora": [
            measure_corpus(name, version, args.repeat, args.workers)
            for name, version in NPM_CORPORA.items()
        ],
        "accuracy": fixture_accuracy(),
    }
    write_report("languages", report, to_markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
