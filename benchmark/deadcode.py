"""Dead code graded by what runs: of the functions, methods and classes a project's own test
suite ran, how many does `dead-code` call dead?

    python -m benchmark.deadcode [--project click,flask,pytest,markdown] [--no-write]

The suite's run-time trace is `benchmark.runtime_recall`'s (the whole suite under
`sys.setprofile`, cached beside the project's tree; child processes are not traced). A traced
function's code is mapped to the graph's symbol the same way (`runtime_recall.node_symbol`);
a method that ran makes its class count as run too (a class body runs where it is defined,
used or not: it does not count). The tree is indexed into a fresh SQLite store and
every candidate classified (`query.deadcode.classify`). Reported per project and verdict: the
symbols, and how many of them ran; a symbol that ran and is called "dead" is a false "dead"
(the target is none), listed with its reason. "unknown" that ran is the verdict doing its
job; "dead" that did not run is not proof of death (the suite does not run everything).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

from benchmark.corpora import CORPORA
from benchmark.faults import PROJECTS, prepare
from benchmark.report import run_facts, write_report
from benchmark.runtime_recall import Symbols, node_symbol, suite_trace

DEFAULT_PROJECTS = ("click", "flask", "pytest", "markdown", "mkdocs")
SHOWN = 25  # false "dead" listed per project


def evaluate(name: str) -> dict:
    from cartograph.index import index_repository
    from cartograph.query.deadcode import classify
    from cartograph.store.sqlite import open_sqlite

    trace, _facts = suite_trace(name)
    tree = prepare(name)
    with tempfile.TemporaryDirectory(prefix="cartograph-deadcode-") as scratch:
        store = open_sqlite(Path(scratch) / "graph.db")
        try:
            index_repository(store, tree, name=name, workers=2, history=False)
            symbols = Symbols.from_export(store.graph.export(name))
            items = classify(store, name, "", tree)
            tests = {p for p, record in store.graph.files(name).items() if record.is_test}
        finally:
            store.close()
    ran: set[str] = set()
    for node in trace.nodes:
        if node[3] != "function":  # a class body runs where it is defined, used or not
            continue
        sid, _how = node_symbol(node, symbols)
        if sid is not None:
            ran.add(sid)
            parent = sid.rpartition(".")[0]  # a method ran: its class was used
            if parent in symbols.by_id and symbols.by_id[parent].kind == "class":
                ran.add(parent)
    library = [i for i in items if i.symbol.path not in tests]
    by_verdict = Counter(i.verdict for i in library)
    ran_by_verdict = Counter(i.verdict for i in library if i.symbol.id in ran)
    false_dead = [i for i in library if i.verdict == "dead" and i.symbol.id in ran]
    return {
        "project": f"{name}-{CORPORA[name]}",
        "library": PROJECTS[name].package,
        "candidates": len(library),
        "ran": sum(1 for i in library if i.symbol.id in ran),
        "verdicts": {v: by_verdict[v] for v in ("dead", "unknown", "live")},
        "ran_by_verdict": {v: ran_by_verdict[v] for v in ("dead", "unknown", "live")},
        "false_dead": len(false_dead),
        "false_dead_examples": [
            {"symbol": f"{i.symbol.path}:{i.symbol.qualname}", "reason": i.reason}
            for i in false_dead[:SHOWN]
        ],
    }


def to_markdown(results: list[dict], facts: dict) -> str:
    out = [
        "# Dead code graded by what the suite ran",
        "",
        f"{facts.get('date', '')} · {facts.get('machine', '')} · commit {facts.get('commit', '')}",
        "",
        "The project's own suite traced at run time (`benchmark.runtime_recall`'s traces); its "
        "code outside test files classified by `dead-code`. *ran*: of the symbols with that "
        "verdict, how many the suite ran. A symbol that ran and is called dead is a false "
        '"dead" (target: none).',
        "",
        "| project | candidates | ran | dead (ran) | unknown (ran) | live (ran) | false dead |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        v, ran = r["verdicts"], r["ran_by_verdict"]
        out.append(
            f"| {r['project']} | {r['candidates']} | {r['ran']} | {v['dead']} ({ran['dead']}) | "
            f"{v['unknown']} ({ran['unknown']}) | {v['live']} ({ran['live']}) | "
            f"{r['false_dead']} |"
        )
    for r in results:
        if r["false_dead_examples"]:
            out += ["", f"## {r['project']}: called dead, yet ran", ""]
            out += [f"- `{e['symbol']}` — {e['reason']}" for e in r["false_dead_examples"]]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", default=",".join(DEFAULT_PROJECTS))
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    results = [evaluate(name) for name in args.project.split(",")]
    facts = run_facts()
    report = {"date": facts["date"], "facts": facts, "results": results}
    path = write_report("deadcode", report, to_markdown(results, facts), write=not args.no_write)
    print(f"written: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
