"""Test selection graded by injected faults: does `impact`'s "tests to run" hold the tests a
fault really breaks, and how much of the suite does it select?

For a real project with a fast suite (`benchmark.faults`: flask 3.1.0, click 8.1.7), each fault
raises at the start of one function's body; the suite run with it says which tests fail. The
project is indexed once (SQLite), and `impact` is asked for each fault's diff — from the static
graph alone, then with coverage evidence (the clean suite recorded with per-test contexts,
`pytest --cov --cov-context=test`, imported with `coverage import`). A selected test name covers
all its parametrized cases.

    python -m benchmark.testselect                  # flask and click, static and coverage
    python -m benchmark.testselect --projects flask --no-coverage
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from cartograph.impact.evidence import import_coverage
from cartograph.impact.graph import MODULE_VIAS, NAME_VIA, ReverseGraph
from cartograph.impact.report import MIN_TEST_CONFIDENCE, impact
from cartograph.index import index_repository
from cartograph.store import open_store

from benchmark.faults import PROJECTS, Fault, GroundTruth, ground_truth
from benchmark.report import run_facts, write_report

PACKAGES = {"flask": "flask", "click": "click", "markdown": "markdown", "mkdocs": "mkdocs"}
TARGETS = {"recall": 0.95, "selected": 0.35}
THRESHOLDS = (0.0, 0.1, 0.12, 0.15, 0.18, 0.2, 0.3)  # least path confidence of a selected test
BUDGETS = (5, 10, 20, 35, 50)  # `impact --budget N`: the most likely tests within N % of the suite
# the kinds of step the walk takes where the graph is open or wide, each left out in turn (static
# graph, default floor): what each costs in share of the suite and buys in safety
LEFT_OUT = {
    "imports of module-level code": lambda via, why: via in MODULE_VIAS,
    "dunder methods at their class": lambda via, why: why == "protocol",
    "methods of externally based classes": lambda via, why: why == "external-base",
    "unresolved calls naming it": lambda via, why: via == NAME_VIA and why != "computed-name",
    "getattr by computed name": lambda via, why: why == "computed-name",
}


def base_node(node: str) -> str:
    """`tests/t.py::TestA::test_b[1-x]` → `tests/t.py::TestA::test_b`."""
    return node.split("[", 1)[0]


def is_selected(node: str, selected: set[str]) -> bool:
    """A test case is selected by its own name or by a class or file holding it."""
    parts = base_node(node).split("::")
    return any("::".join(parts[:end]) in selected for end in range(len(parts), 0, -1))


def grade(truth: GroundTruth, fault: Fault, selected: set[str]) -> dict:
    suite_selected = [n for n in truth.suite if is_selected(n, selected)]
    failing = set(fault.failing)
    caught = failing & set(suite_selected)
    return {
        "fault": f"{fault.path}:{fault.qualname}",
        "failing": len(failing),
        "caught": len(caught),
        "recall": len(caught) / len(failing) if failing else None,
        "selected": len(suite_selected),
        "fraction": len(suite_selected) / len(truth.suite),
        "missed": sorted(failing - caught)[:8],
    }


def record_coverage(truth: GroundTruth, data_file: Path) -> float:
    """Run the clean suite once with per-test contexts (pytest-cov in the project's
    virtualenv); seconds taken."""
    python = str(truth.python)
    subprocess.run([python, "-m", "pip", "install", "-q", "pytest-cov>=5"], check=True)
    started = time.perf_counter()
    subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-header",
         "--continue-on-collection-errors",
         f"--cov={PACKAGES[truth.project]}", "--cov-context=test", "--cov-report=",
         "-o", "addopts=", *PROJECTS[truth.project].pytest_args],
        cwd=truth.root,
        env={"COVERAGE_FILE": str(data_file), "PATH": f"{Path(python).parent}:/usr/bin:/bin"},
        check=False,
        capture_output=True,
    )  # fmt: skip
    return time.perf_counter() - started


def evaluate(name: str, faults: int, seed: int, coverage: bool) -> dict:
    truth = ground_truth(name, faults, seed)
    with tempfile.TemporaryDirectory(prefix="cartograph-testselect-") as scratch:
        store = open_store(f"sqlite:///{Path(scratch) / 'graph.db'}")
        started = time.perf_counter()
        index_repository(store, truth.root, name=name, workers=2, history=False)
        index_seconds = time.perf_counter() - started
        runs = {"static": _select(store, name, truth)}
        left_out = {kind: _left_out(store, name, truth, kind) for kind in LEFT_OUT}
        coverage_facts: dict = {}
        if coverage:
            data = Path(scratch) / "coverage.db"
            seconds = record_coverage(truth, data)
            imported = import_coverage(store, name, str(data))
            coverage_facts = {"record_seconds": round(seconds, 1), "tests": imported.tests,
                              "matched": imported.matched, "pairs": imported.pairs}  # fmt: skip
            runs["coverage"] = _select(store, name, truth)
        store.close()
    return {
        "project": name,
        "version": truth.version,
        "suite": len(truth.suite),
        "faults": len(truth.faults),
        "noticed": sum(1 for f in truth.faults if f.failing),
        "index_seconds": round(index_seconds, 1),
        "coverage": coverage_facts,
        "runs": {kind: _aggregate(rows) for kind, rows in runs.items()},
        "left_out": left_out,
        "rows": runs,
    }


@contextlib.contextmanager
def _walk_without(kind: str):
    """The impact walk with one kind of step (`LEFT_OUT`) left out: a measurement only."""
    leave = LEFT_OUT[kind]
    callers, open_of = ReverseGraph._callers_at, ReverseGraph.open_of

    def kept_callers(graph, number, index, symbol):
        return [c for c in callers(graph, number, index, symbol) if not leave(c[1], "")]

    def kept_open_of(graph, node, met=None):
        return [c for c in open_of(graph, node, met) if not leave(c[1], c[2])]

    ReverseGraph._callers_at, ReverseGraph.open_of = kept_callers, kept_open_of  # type: ignore[method-assign]
    try:
        yield
    finally:
        ReverseGraph._callers_at, ReverseGraph.open_of = callers, open_of  # type: ignore[method-assign]


def _left_out(store, name: str, truth: GroundTruth, kind: str) -> dict:
    """Complete faults, recall mean and share selected (static, default floor) without `kind`."""
    rows = []
    floor = MIN_TEST_CONFIDENCE / 100
    with _walk_without(kind):
        for fault in truth.faults:
            answer = impact(store, name, patch=fault.diff, limit=1, min_confidence=0)
            everything = [*answer.tests, *answer.possible_tests]
            rows.append(grade(truth, fault, {t.node for t in everything if t.confidence >= floor}))
    return _pooled(rows)


def _select(store, name: str, truth: GroundTruth) -> list[dict]:
    rows = []
    for fault in truth.faults:
        started = time.perf_counter()
        answer = impact(store, name, patch=fault.diff, limit=1, min_confidence=0)
        seconds = time.perf_counter() - started
        everything = [*answer.tests, *answer.possible_tests]
        floor = MIN_TEST_CONFIDENCE / 100
        row = grade(truth, fault, {t.node for t in everything if t.confidence >= floor})
        row["seconds"] = round(seconds, 3)
        row["verdict"] = answer.verdict
        row["by_threshold"] = {
            str(least): grade(truth, fault, {t.node for t in everything if t.confidence >= least})
            for least in THRESHOLDS
        }
        row["by_budget"] = {}
        for share in BUDGETS:
            within = impact(store, name, patch=fault.diff, limit=1, budget=share)
            row["by_budget"][str(share)] = grade(truth, fault, {t.node for t in within.tests})
        rows.append(row)
    return rows


def _aggregate(rows: list[dict]) -> dict:
    noticed = [r for r in rows if r["failing"]]
    pooled = sum(r["caught"] for r in noticed) / max(1, sum(r["failing"] for r in noticed))
    return {
        "recall_pooled": round(pooled, 4),
        "recall_mean": round(statistics.mean(r["recall"] for r in noticed), 4) if noticed else None,
        "complete": sum(1 for r in noticed if r["recall"] == 1.0),
        "noticed": len(noticed),
        "selected_mean": round(statistics.mean(r["fraction"] for r in rows), 4),
        "selected_mean_noticed": round(statistics.mean(r["fraction"] for r in noticed), 4)
        if noticed
        else None,
        # a fault some test notices, answered "no reach": the answer a gate must never give
        "false_no_reach": sum(1 for r in noticed if r["verdict"] == "no reach"),
        "unknown": sum(1 for r in rows if r["verdict"] == "unknown"),
        "impact_p50": round(statistics.median(r["seconds"] for r in rows), 3),
        "impact_max": round(max(r["seconds"] for r in rows), 3),
        "by_threshold": {
            least: _pooled([r["by_threshold"][str(least)] for r in rows]) for least in THRESHOLDS
        },
        "by_budget": {
            share: _pooled([r["by_budget"][str(share)] for r in rows]) for share in BUDGETS
        },
    }


def _pooled(rows: list[dict]) -> dict:
    noticed = [r for r in rows if r["failing"]]
    caught = sum(r["caught"] for r in noticed) / max(1, sum(r["failing"] for r in noticed))
    return {"recall_pooled": round(caught, 4),
            "recall_mean": round(statistics.mean(r["recall"] for r in noticed), 4)
            if noticed else None,
            "complete": sum(1 for r in noticed if r["recall"] == 1.0),
            "selected_mean": round(statistics.mean(r["fraction"] for r in rows), 4)}  # fmt: skip


def to_markdown(results: list[dict], facts: dict) -> str:
    out = [
        "# Test selection graded by injected faults",
        "",
        f"{facts.get('date', '')} · {facts.get('machine', '')} · commit {facts.get('commit', '')}",
        "",
        "Each fault raises at the start of one function; the suite run with it gives the "
        "failing tests; `impact --patch <the fault's diff>` gives the tests to run. Recall: "
        "failing tests selected (pooled over faults, and the mean per fault); selected: share "
        "of the suite selected, mean over all faults; complete: faults with every failing "
        "test selected (the safe rate); false no reach: faults some test notices answered "
        '"no reach"; unknown: faults answered "unknown". Targets (issue 39, static graph): '
        "complete ≥ 95 %, recall mean ≥ 0.98, selected ≤ 35 %, no false no reach.",
        "",
        "| project | evidence | faults noticed | recall pooled | recall mean | complete | "
        "selected mean | false no reach | unknown | impact p50 / max s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for result in results:
        for kind, agg in result["runs"].items():
            out.append(
                f"| {result['project']} {result['version']} ({result['suite']} tests) | {kind} | "
                f"{agg['noticed']}/{result['faults']} | {agg['recall_pooled']:.1%} | "
                f"{agg['recall_mean']:.1%} | {agg['complete']}/{agg['noticed']} | "
                f"{agg['selected_mean']:.1%} | {agg['false_no_reach']} | {agg['unknown']} | "
                f"{agg['impact_p50']} / {agg['impact_max']} |"
            )
    out += ["", "By the least path confidence a selected test needs (complete faults, recall "
            "pooled, selected mean):", "", "| project | evidence | " + " | ".join(f"≥ {t}" for t in THRESHOLDS)
            + " |", "|---|---|" + "---:|" * len(THRESHOLDS)]  # fmt: skip
    for result in results:
        for kind, agg in result["runs"].items():
            cells = [f"{v['complete']}/{agg['noticed']}, {v['recall_pooled']:.1%}, "
                     f"{v['selected_mean']:.1%}" for v in agg["by_threshold"].values()]  # fmt: skip
            out.append(f"| {result['project']} | {kind} | " + " | ".join(cells) + " |")
    out += ["", "The budget mode (`impact --budget N`: the most likely tests within N % of the "
            "suite; complete faults, recall mean, selected mean):", "",
            "| project | evidence | " + " | ".join(f"{b} %" for b in BUDGETS) + " |",
            "|---|---|" + "---:|" * len(BUDGETS)]  # fmt: skip
    for result in results:
        for kind, agg in result["runs"].items():
            cells = [f"{v['complete']}/{agg['noticed']}, {v['recall_mean']:.1%}, "
                     f"{v['selected_mean']:.1%}" for v in agg["by_budget"].values()]  # fmt: skip
            out.append(f"| {result['project']} | {kind} | " + " | ".join(cells) + " |")
    out += ["", "What each kind of step the walk takes where the graph is open or wide costs and "
            "buys: the static run again with that kind left out (complete faults, recall mean, "
            "selected mean; the first column is the static run with every step):", "",
            "| project | every step | " + " | ".join(f"without {k}" for k in LEFT_OUT) + " |",
            "|---|---:|" + "---:|" * len(LEFT_OUT)]  # fmt: skip
    for result in results:
        static = result["runs"]["static"]
        cells = [f"{static['complete']}/{static['noticed']}, {static['recall_mean']:.1%}, "
                 f"{static['selected_mean']:.1%}"] + [
                 f"{v['complete']}/{static['noticed']}, {v['recall_mean']:.1%}, "
                 f"{v['selected_mean']:.1%}" for v in result["left_out"].values()]  # fmt: skip
        out.append(f"| {result['project']} | " + " | ".join(cells) + " |")
    for result in results:
        for kind, rows in result["rows"].items():
            out += ["", f"## {result['project']}, {kind}: per fault", "",
                    "| fault | failing | caught | selected | missed (first) |",
                    "|---|---:|---:|---:|---|"]  # fmt: skip
            for row in rows:
                missed = ", ".join(row["missed"][:2])
                out.append(f"| {row['fault']} | {row['failing']} | {row['caught']} | "
                           f"{row['fraction']:.1%} | {missed} |")  # fmt: skip
            misses = Counter(m.split("::")[0] for r in rows for m in r["missed"])
            if misses:
                out += ["", "Missed tests by file: " + ", ".join(
                    f"{path} {n}" for path, n in misses.most_common(8))]  # fmt: skip
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", default="flask,click")
    parser.add_argument("--faults", type=int, default=80)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--no-coverage", action="store_true")
    parser.add_argument("--name", default="testselect")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    results = [
        evaluate(name, args.faults, args.seed, not args.no_coverage)
        for name in args.projects.split(",")
    ]
    facts = run_facts()
    report = {"date": facts["date"], "facts": facts, "targets": TARGETS, "results": results}
    markdown = to_markdown(results, facts)
    path = write_report(args.name, report, markdown, write=not args.no_write)
    print(f"written: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
