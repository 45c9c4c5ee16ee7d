"""Recall and precision of Cartograph's CALLS edges on PyCG's public call-graph micro-benchmark.

PyCG (github.com/vitsalis/PyCG, Apache-2.0) ships `micro-benchmark/snippets/<category>/<case>/`:
a few Python files and a `callgraph.json` mapping each caller to its callees by dotted name
(`main.MyClass.func`; a module is named by its file, `<builtin>.len` for builtins,
`main.<lambda1>` for lambdas). Nothing of that project is stored in this repository: the harness
reads the cases at benchmark time, from a checkout or a (bare) git clone given on the command
line, copying the snippets into a temporary directory.

    git clone https://github.com/vitsalis/PyCG /tmp/PyCG
    python -m benchmark.pycg --source /tmp/PyCG [--json] [--cases]

Each case directory is indexed as its own repository into a temporary SQLite store; our CALLS
edges (source and target qualnames, which are already dotted module names here) are compared
with the expected edges:

- a CALLS edge to a class is dropped (PyCG names a construction by its `__init__`, which our
  constructor rule writes as a second edge);
- lambdas are not symbols for us (tests/resolution_values/README.md: the calls in a lambda's
  body belong to the enclosing symbol, and a site calling a lambda value calls what its body
  calls), so an expected `X.<lambdaN> → Z` becomes `X → Z`, an expected `Y → X.<lambdaN>`
  becomes `Y → Z` for each callee Z of the lambda (through nested lambdas), and a self-edge
  this makes is dropped;
- an expected callee that is a builtin (`<builtin>.…`) or not defined in the case's files
  (an external module) is counted apart (`builtin`, `external`): the contract writes no edge to
  them, so they are left out of the headline numbers, which are over edges between the
  case's own functions, methods and modules.
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from pathlib import Path

from cartograph.index import index_repository
from cartograph.model import split_symbol_id
from cartograph.store.sqlite import open_sqlite

SNIPPETS = "micro-benchmark/snippets"


def copy_snippets(source: Path, into: Path) -> Path:
    """The snippets folder of `source` (a working tree, or a git directory read at HEAD)
    copied under `into`; returns the copy's root."""
    if (source / SNIPPETS).is_dir():
        out = into / "snippets"
        for path in sorted((source / SNIPPETS).rglob("*")):
            if path.is_file():
                target = out / path.relative_to(source / SNIPPETS)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(path.read_bytes())
        return out
    archive = subprocess.run(
        ["git", f"--git-dir={source}", "archive", "--format=tar", "HEAD", SNIPPETS],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / SNIPPETS


def case_dirs(snippets: Path) -> list[Path]:
    return sorted(p.parent for p in snippets.glob("*/*/callgraph.json"))


def module_names(case: Path) -> set[str]:
    names = set()
    for path in case.rglob("*.py"):
        parts = list(path.relative_to(case).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if parts:
            names.add(".".join(parts))
    return names


def is_lambda(name: str) -> bool:
    return name.rsplit(".", 1)[-1].startswith("<lambda")


def enclosing(name: str) -> str:
    """The nearest enclosing symbol that is not a lambda."""
    parts = name.split(".")
    while len(parts) > 1 and parts[-1].startswith("<lambda"):
        parts.pop()
    return ".".join(parts)


def callees(graph: dict[str, list[str]], callee: str, seen: frozenset = frozenset()) -> set[str]:
    """What calling `callee` reaches: itself, or for a lambda what its body calls."""
    if not is_lambda(callee):
        return {callee}
    if callee in seen:
        return set()
    reached: set[str] = set()
    for inner in graph.get(callee, []):
        reached |= callees(graph, inner, seen | {callee})
    return reached


def expected_edges(case: Path) -> tuple[set[tuple[str, str]], Counter]:
    """The case's expected caller → callee pairs between its own symbols, and how many
    expected pairs were set apart (builtin / external)."""
    graph = json.loads((case / "callgraph.json").read_text())
    modules = module_names(case)
    pairs: set[tuple[str, str]] = set()
    apart: Counter = Counter()
    for caller, direct in graph.items():
        for callee in direct:
            for dst in callees(graph, callee):
                if dst.startswith("<builtin>"):
                    apart["builtin"] += 1
                elif not any(dst == m or dst.startswith(m + ".") for m in modules):
                    apart["external"] += 1
                elif enclosing(caller) != dst:
                    pairs.add((enclosing(caller), dst))
    return pairs, apart


def our_edges(case: Path, db: Path) -> set[tuple[str, str]]:
    store = open_sqlite(db)
    try:
        index_repository(store, case, name="case", workers=1, history=False)
        kinds, calls = {}, []
        for item in store.graph.export("case"):
            if item["type"] == "node" and item["label"] == "Symbol":
                kinds[item["id"]] = item["kind"]
            elif item["type"] == "edge" and item["label"] == "CALLS":
                calls.append((item["src"], item["dst"]))
    finally:
        store.close()
    return {
        (split_symbol_id(src)[2], split_symbol_id(dst)[2])
        for src, dst in calls
        if kinds.get(dst) != "class"
    }


def rates(tp: int, fp: int, fn: int) -> dict:
    return {
        "expected": tp + fn,
        "found": tp + fp,
        "tp": tp,
        "precision": round(tp / (tp + fp), 4) if tp + fp else 1.0,
        "recall": round(tp / (tp + fn), 4) if tp + fn else 1.0,
    }


def measure(source: Path) -> dict:
    per_case = []
    categories: dict[str, Counter] = {}
    with tempfile.TemporaryDirectory() as tmp:
        snippets = copy_snippets(source, Path(tmp) / "src")
        for number, case in enumerate(case_dirs(snippets)):
            category = case.parent.name
            wanted, apart = expected_edges(case)
            actual = our_edges(case, Path(tmp) / f"case{number}.db")
            tp, fp, fn = len(wanted & actual), len(actual - wanted), len(wanted - actual)
            per_case.append(
                {
                    "case": f"{category}/{case.name}",
                    **rates(tp, fp, fn),
                    "missing": sorted(map(list, wanted - actual)),
                    "extra": sorted(map(list, actual - wanted)),
                    "set_apart": dict(apart),
                }
            )
            counter = categories.setdefault(category, Counter())
            counter.update(tp=tp, fp=fp, fn=fn, cases=1, **apart)
    total = sum(categories.values(), Counter())
    summary = {
        name: {"cases": c["cases"], **rates(c["tp"], c["fp"], c["fn"])}
        for name, c in sorted(categories.items())
    }
    summary["ALL"] = {"cases": total["cases"], **rates(total["tp"], total["fp"], total["fn"])}
    return {
        "cases": per_case,
        "summary": summary,
        "set_apart": {"builtin": total["builtin"], "external": total["external"]},
    }


def to_markdown(result: dict, cases: bool = False) -> str:
    apart = result["set_apart"]
    lines = [
        f"### PyCG micro-benchmark ({result['summary']['ALL']['cases']} cases; set apart: "
        f"{apart['builtin']} edges to builtins, {apart['external']} to external modules)",
        "",
        "| category | cases | expected | found | precision | recall |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, row in result["summary"].items():
        lines.append(
            f"| {name} | {row['cases']} | {row['expected']} | {row['found']} | "
            f"{row['precision']:.1%} | {row['recall']:.1%} |"
        )
    if cases:
        lines.append("")
        for case in result["cases"]:
            if case["missing"] or case["extra"]:
                lines.append(f"- {case['case']}: missing {case['missing']}, extra {case['extra']}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--source",
        type=Path,
        required=True,
        help="a PyCG checkout or git directory (holding micro-benchmark/snippets)",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--cases", action="store_true", help="list each case's differences")
    args = parser.parse_args(argv)
    result = measure(args.source)
    print(json.dumps(result, indent=1) if args.json else to_markdown(result, args.cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
