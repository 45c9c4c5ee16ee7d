"""What an interface edit re-resolves: name-level dependencies against the module-wide rule,
on the same edits of the same tree in the same run (issue 17, "re-resolve only what a change
can reach").

The tree (Django unless told) is indexed once into SQLite. Of its Python files with at least
`--min-dependents` dependents (files whose last resolution consulted the module), a seeded
sample gets, one at a time, each of three edits that change the module's interface:

- `return`: the first top-level function's first `return X` becomes `return (X) or None`;
- `method`: a method is added to the first top-level class;
- `local`: a statement at the top of the first function's body (`benchmark.run`'s edit
  inside a function; it changes the interface when that function is a method that sets
  attributes, e.g. `__init__`: the method's locals are part of what its attributes hold).

Each edited file is re-indexed as an agent names it (`files=[path]`) twice: with name-level
narrowing (`index.dependents.name_changes`), and with it off (every file that consulted the
module: the rule before), then restored. Reported per edit kind: files re-resolved (mean,
max) and the re-index time (p50, p95, max).

    python -m benchmark.name_changes [--corpus django] [--sample 20] [--min-dependents 20]

Writes benchmark/results/name-changes-<date>.json and .md.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import tempfile
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path

from benchmark.corpora import CORPORA, fetch
from benchmark.report import latency_stats, run_facts, write_report
from benchmark.run import _edit_inside_function, _git_commit_all

KINDS = ("return", "method", "local")


def _edit_return(path: Path, marker: int) -> bool:
    text = path.read_text(encoding="utf-8")
    found = re.search(r"^def \w+\(.*?(?:\n(?=[ \t]|\n).*?)*?\n    return (.+)$", text, re.M)
    if found is None or found[1].rstrip().endswith(("(", "[", "{", ",", "\\")):
        return False
    start, end = found.span(1)
    path.write_text(text[:start] + f"({found[1]}) or None" + text[end:], encoding="utf-8")
    return True


def _edit_method(path: Path, marker: int) -> bool:
    text = path.read_text(encoding="utf-8")
    found = re.search(r"^class \w+[^\n]*:\n", text, re.M)
    if found is None:
        return False
    method = f"    def _bench_probe_{marker}(self):\n        return {marker}\n\n"
    path.write_text(text[: found.end()] + method + text[found.end() :], encoding="utf-8")
    return True


def _edit_local(path: Path, marker: int) -> bool:
    before = path.read_bytes()
    _edit_inside_function(path, marker)
    return path.read_bytes() != before


EDITS = {"return": _edit_return, "method": _edit_method, "local": _edit_local}


@contextmanager
def _module_wide():
    """The rule before name-level dependencies: no module's change is narrowed."""
    from cartograph.index import pipeline
    from cartograph.index.dependents import NameChanges

    kept = pipeline.name_changes
    pipeline.name_changes = lambda *args, **kwargs: NameChanges()
    try:
        yield
    finally:
        pipeline.name_changes = kept


def measure(name: str, sample: int, min_dependents: int) -> dict:
    from cartograph.index import index_repository
    from cartograph.store.sqlite import open_sqlite

    source = fetch(name)
    out: dict = {"corpus": f"{name}-{CORPORA[name]}", **run_facts()}
    with tempfile.TemporaryDirectory(prefix="cartograph-names-") as tmp:
        root = Path(tmp) / source.name
        shutil.copytree(source, root, symlinks=True)
        _git_commit_all(root)
        store = open_sqlite(Path(tmp) / "graph.db")
        started = time.perf_counter()
        index_repository(store, root, name, workers=2, history=False)
        out["full_index_seconds"] = round(time.perf_counter() - started, 2)
        popular = _popular_files(store, name, min_dependents)
        rng = random.Random(20261204)
        chosen = rng.sample(popular, min(sample, len(popular)))
        out["files_sampled"] = len(chosen)
        out["min_dependents"] = min_dependents
        rows: dict[str, dict] = {}
        for kind in KINDS:
            runs: dict[str, tuple[list[float], list[int]]] = {"name": ([], []), "module": ([], [])}
            for marker, relative in enumerate(chosen):
                target = root / relative
                original = target.read_bytes()
                if not EDITS[kind](target, marker):
                    continue
                # alternated, so neither rule always runs on a warmer cache
                for rule in ("module", "name") if marker % 2 else ("name", "module"):
                    with _module_wide() if rule == "module" else nullcontext():
                        began = time.perf_counter()
                        result = index_repository(store, root, name, files=[relative], workers=1)
                        seconds = time.perf_counter() - began
                    runs[rule][0].append(seconds)
                    runs[rule][1].append(result.reresolved)
                    target.write_bytes(original)
                    index_repository(store, root, name, files=[relative], workers=1)
                    EDITS[kind](target, marker)
                target.write_bytes(original)
            rows[kind] = {
                rule: {
                    "edits": len(times),
                    "reresolved_mean": round(sum(counts) / len(counts), 1) if counts else 0,
                    "reresolved_max": max(counts, default=0),
                    **latency_stats(times),
                }
                for rule, (times, counts) in runs.items()
                if times
            }
        out["kinds"] = rows
        store.close()
    return out


def _popular_files(store, repo: str, least: int) -> list[str]:
    """The Python files whose module at least `least` other files consulted."""
    from cartograph.index.plan import stored_module_map

    states = store.index.file_states(repo)
    modules = stored_module_map(states).by_path
    popular = []
    for path, module in sorted(modules.items()):
        if not path.endswith(".py"):
            continue
        dependents = store.index.dependents(repo, {module.name, *module.aliases}) - {path}
        if len(dependents) >= least:
            popular.append(path)
    return popular


def to_markdown(report: dict) -> str:
    lines = [
        f"# Name-level dependencies — {report['date']}",
        "",
        f"Machine: {report['machine']}. Commit: {report['commit']}. Corpus: {report['corpus']} "
        f"(full index into SQLite {report['full_index_seconds']} s, 2 workers). "
        f"{report['files_sampled']} files sampled among those at least "
        f"{report['min_dependents']} files consulted; each edit re-indexed with the file named "
        "(1 worker), with name-level narrowing and with the module-wide rule, in turn.",
        "",
        "| edit | rule | edits | files re-resolved: mean / max | p50 ms | p95 ms | max ms |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for kind, rules in report["kinds"].items():
        for rule in ("module", "name"):
            row = rules.get(rule)
            if row is None:
                continue
            label = "module-wide (before)" if rule == "module" else "name-level (after)"
            lines.append(
                f"| {kind} | {label} | {row['edits']} | {row['reresolved_mean']} / "
                f"{row['reresolved_max']} | {row['p50_ms']} | {row['p95_ms']} | {row['max_ms']} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="django")
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--min-dependents", type=int, default=20)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    report = measure(args.corpus, args.sample, args.min_dependents)
    write_report("name-changes", report, to_markdown(report), not args.no_write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
