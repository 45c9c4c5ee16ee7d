"""Precision and recall of the Python resolver over the fixture suites.

- tests/resolution: the rules the resolver implements (the tests require all of it);
- tests/resolution_challenge: harder, realistic patterns written from Python's semantics as
  what a perfect static resolver could justify (the tests only require no `must_not` edge);
- tests/resolution_values and its challenge/ folder: calls through values (issue 13), one
  fixture per rule and realistic snippets; measured here until the rules are implemented
  (the default tests require only that no `must_not` edge appears).

Each fixture's expected.json lists the complete set of CALLS, REFERENCES and INHERITS edges. An
edge counts as found when type, source and target match; `via` agreement is reported separately.

    python -m benchmark.accuracy [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

from cartograph.index import index_repository
from cartograph.model import split_symbol_id
from cartograph.store.interfaces import Store
from cartograph.store.sqlite import open_sqlite

TESTS = Path(__file__).resolve().parent.parent / "tests"
SUITES = {
    "rules": TESTS / "resolution",
    "challenge": TESTS / "resolution_challenge",
    "values": TESTS / "resolution_values",
    "values challenge": TESTS / "resolution_values" / "challenge",
}
TYPES = ("CALLS", "REFERENCES", "INHERITS")


def _edges(store: Store, repo: str) -> dict[tuple[str, str, str], str | None]:
    found = {}
    for item in store.graph.export(repo):
        if item["type"] == "edge" and item["label"] in TYPES:
            key = (item["label"], split_symbol_id(item["src"])[2], split_symbol_id(item["dst"])[2])
            found[key] = None if item["label"] == "INHERITS" else item["via"]
    return found


def measure(fixtures: Path) -> dict:
    totals: dict[str, Counter] = {t: Counter() for t in TYPES}
    per_fixture = []
    with tempfile.TemporaryDirectory() as tmp:
        for fixture in sorted(p for p in fixtures.iterdir() if (p / "expected.json").exists()):
            spec = json.loads((fixture / "expected.json").read_text())
            expected = {(t, s, d): v for t, s, d, v in spec["edges"]}
            store = open_sqlite(Path(tmp) / f"{fixture.name}.db")
            index_repository(store, fixture, name="fixture", workers=1)
            actual = _edges(store, "fixture")
            store.close()
            row = {"fixture": fixture.name, "expected": len(expected), "found": len(actual)}
            tp = fp = fn = via_ok = 0
            for key, via in expected.items():
                counter = totals[key[0]]
                if key in actual:
                    tp += 1
                    counter["tp"] += 1
                    if actual[key] == via:
                        via_ok += 1
                        counter["via_ok"] += 1
                else:
                    fn += 1
                    counter["fn"] += 1
            for key in actual:
                if key not in expected:
                    fp += 1
                    totals[key[0]]["fp"] += 1
            invented = [e for e in spec.get("must_not", []) if tuple(e) in actual]
            row.update(tp=tp, fp=fp, fn=fn, via_ok=via_ok, must_not_violations=len(invented))
            per_fixture.append(row)
    summary = {}
    for etype, counter in [*totals.items(), ("ALL", sum(totals.values(), Counter()))]:
        tp, fp, fn = counter["tp"], counter["fp"], counter["fn"]
        summary[etype] = {
            "expected": tp + fn,
            "found": tp + fp,
            "precision": round(tp / (tp + fp), 4) if tp + fp else 1.0,
            "recall": round(tp / (tp + fn), 4) if tp + fn else 1.0,
            "via_agreement": round(counter["via_ok"] / tp, 4) if tp else 1.0,
        }
    violations = sum(f["must_not_violations"] for f in per_fixture)
    return {"fixtures": per_fixture, "summary": summary, "must_not_violations": violations}


def to_markdown(results: dict[str, dict]) -> str:
    lines = []
    for suite, result in results.items():
        lines += [
            f"### {suite} ({len(result['fixtures'])} fixtures, "
            f"{result['must_not_violations']} must-not violations)",
            "",
            "| edges | expected | found | precision | recall | via agrees |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for etype, row in result["summary"].items():
            lines.append(
                f"| {etype} | {row['expected']} | {row['found']} | {row['precision']:.1%} | "
                f"{row['recall']:.1%} | {row['via_agreement']:.1%} |"
            )
        misses = [f for f in result["fixtures"] if f["fp"] or f["fn"]]
        if misses:
            lines.append("")
            lines.append(
                "Fixtures with differences (+extra / -missing): "
                + ", ".join(f"{f['fixture']} (+{f['fp']} / -{f['fn']})" for f in misses)
            )
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--write", action="store_true", help="also write benchmark/results/")
    args = parser.parse_args(argv)
    results = {name: measure(path) for name, path in SUITES.items() if path.is_dir()}
    text = to_markdown(results)
    print(json.dumps(results, indent=1) if args.json else text)
    if args.write:
        out = Path(__file__).parent / "results"
        out.mkdir(exist_ok=True)
        (out / "accuracy.json").write_text(json.dumps(results, indent=1) + "\n")
        (out / "accuracy.md").write_text("# Resolver accuracy\n\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
