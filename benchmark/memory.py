"""Time and peak memory of a full index into SQLite, on a large real tree and a generated one.

Two corpora:
- Home Assistant 2024.3.0: the wheel from PyPI holds the Python sources (~6,700 files, ~970k
  lines), downloaded once and unpacked into the corpora cache (`benchmark/corpora.py: CACHE`);
- a generated Python repository of `--files` files (seeded): packages of 50 modules, each
  module with a few classes and functions, importing 2-5 other modules of the repository (most
  of its own package), calling imported and local functions, methods calling `self.` methods,
  classes deriving from imported classes: every name resolves through the imports.

Each tree is copied to a temporary folder and committed to a fresh git repository (a
developer's checkout, as `benchmark.run` does), then measured on this machine's cores:
- parse-only floor: read + tree-sitter parse of the same files, in `--workers` processes
  (`benchmark.run.parse_floor`, one run);
- full index: `index_repository` into a fresh SQLite store in a fresh interpreter (imports
  excluded from the time, not from the memory), and its ratio to the floor;
- peak memory of the index's process tree (the interpreter and every process it forks), sampled
  from this process every 0.1 s: the largest sum of PSS (`/proc/<pid>/smaps_rollup`, shared
  pages split among the processes sharing them) over one sample, and the largest RSS of a
  single process (`/proc/<pid>/status`); the interpreter's own `ru_maxrss` figures are kept
  beside them (a peak between two samples shows there).

    python -m benchmark.memory [--corpus homeassistant,synthetic] [--files 50000]
        [--workers N] [--no-write]

Writes benchmark/results/memory-<date>.json and .md (and prints the markdown).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from benchmark.corpora import CACHE, pip_download
from benchmark.report import run_facts, write_report
from benchmark.run import INDEX_CHILD, _git_commit_all, _python_files, parse_floor

HOMEASSISTANT = "2024.3.0"
TARGETS = {"index_parse_ratio": 4.0, "peak_pss_mb": 400.0}
INTERVAL = 0.1  # seconds between two memory samples
SEED = 20261203
MODULES_PER_PACKAGE = 50  # __init__.py and 49 modules

NOUNS = (
    "order", "user", "invoice", "account", "session", "report", "device", "sensor", "event",
    "message", "token", "record", "profile", "ticket", "payment", "schedule", "entry", "zone",
    "camera", "light", "switch", "climate", "cover", "lock", "scene", "group", "config", "state",
    "battery", "media", "update", "vacuum", "weather", "notify", "button", "select",
)  # fmt: skip
VERBS = (
    "load", "parse", "build", "render", "update", "fetch", "validate", "merge", "format",
    "compute", "refresh", "resolve", "collect", "publish",
)  # fmt: skip
KINDS = ("Service", "Manager", "Entity", "Handler")
METHODS = ("prepare", "apply", "describe", "reload", "close", "check")


def fetch_homeassistant(version: str = HOMEASSISTANT) -> Path:
    """The unpacked Home Assistant wheel (its Python sources), downloaded once."""
    root = CACHE / f"homeassistant-{version}"
    if root.is_dir():
        return root
    downloads = CACHE / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    wheel = next(downloads.glob(f"homeassistant-{version}-*.whl"), None)
    if wheel is None:
        pip_download(f"homeassistant=={version}", downloads, wheel=True)
        wheel = next(downloads.glob(f"homeassistant-{version}-*.whl"), None)
    if wheel is None:
        raise RuntimeError(f"pip did not download a wheel of homeassistant=={version}")
    partial = CACHE / f"homeassistant-{version}.part"
    shutil.rmtree(partial, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(partial)
    partial.rename(root)  # complete or absent: an interrupted unpack is redone
    return root


def _class_names(i: int, classes: int) -> list[str]:
    return [NOUNS[(i * 5 + k * 11) % len(NOUNS)].capitalize() + KINDS[k] for k in range(classes)]


def _function_names(i: int, functions: int) -> list[str]:
    return [
        f"{VERBS[(i + j * 5) % len(VERBS)]}_{NOUNS[(i * 3 + j) % len(NOUNS)]}"
        for j in range(functions)
    ]


def generate_repository(root: Path, files: int, seed: int = SEED) -> None:
    """`files` Python files under `root` (package pkg_P: __init__.py and mod_1 … mod_49)."""
    rng = random.Random(seed)
    # each module's shape first: its importers need the names it defines
    shapes = [(rng.randint(1, 2), rng.randint(2, 4)) for _ in range(files)]
    for i in range(0, files, MODULES_PER_PACKAGE):
        (root / f"pkg_{i // MODULES_PER_PACKAGE}").mkdir(parents=True)
    for i in range(files):
        package, slot = divmod(i, MODULES_PER_PACKAGE)
        name = "__init__" if slot == 0 else f"mod_{slot}"
        path = root / f"pkg_{package}" / f"{name}.py"
        if slot == 0:
            path.write_text(_package_source(package, i, files, shapes))
        else:
            path.write_text(_module_source(rng, package, slot, i, files, shapes))


def _package_source(package: int, i: int, files: int, shapes: list[tuple[int, int]]) -> str:
    if i + 1 >= files:
        return f'"""Package pkg_{package}."""\n'
    exported = _class_names(i + 1, shapes[i + 1][0])[0]
    return (
        f'"""Package pkg_{package}."""\n\nfrom .mod_1 import {exported}\n\n'
        f'__all__ = ["{exported}"]\n'
    )


def _module_source(
    rng: random.Random,
    package: int,
    slot: int,
    i: int,
    files: int,
    shapes: list[tuple[int, int]],
) -> str:
    classes = _class_names(i, shapes[i][0])
    functions = _function_names(i, shapes[i][1])
    bound = set(classes) | set(functions)
    first = package * MODULES_PER_PACKAGE
    lines = [
        f'"""pkg_{package}.mod_{slot}: {NOUNS[i % len(NOUNS)]} helpers (generated)."""',
        "",
        "from __future__ import annotations",
        "",
        "import logging",
    ]
    imported_classes: list[str] = []
    imported_functions: list[str] = []
    module_calls: list[str] = []  # `mod_7.load_user` through `from . import mod_7`
    for _ in range(rng.randint(2, 5)):
        if rng.random() < 0.7:  # most imports stay in the package
            target = rng.randrange(first + 1, min(first + MODULES_PER_PACKAGE, files))
        else:
            target = rng.randrange(files)
        if target == i or target % MODULES_PER_PACKAGE == 0:
            continue
        where, what = divmod(target, MODULES_PER_PACKAGE)
        if where == package and rng.random() < 0.3 and f"mod_{what}" not in bound:
            lines.append(f"from . import mod_{what}")
            bound.add(f"mod_{what}")
            module_calls.append(f"mod_{what}.{_function_names(target, 1)[0]}")
            continue
        names = []
        cls = rng.choice(_class_names(target, shapes[target][0]))
        function = rng.choice(_function_names(target, shapes[target][1]))
        for candidate, into in ((cls, imported_classes), (function, imported_functions)):
            if candidate not in bound and (into is imported_functions or rng.random() < 0.8):
                names.append(candidate)
                into.append(candidate)
                bound.add(candidate)
        if names:
            lines.append(f"from pkg_{where}.mod_{what} import {', '.join(names)}")
    lines += ["", "LOGGER = logging.getLogger(__name__)", f"LIMIT = {rng.randint(2, 40)}"]
    callables = imported_functions + module_calls + functions
    all_classes = imported_classes + classes
    for j, function in enumerate(functions):
        others = [c for c in callables if c != function] or ["len"]
        lines += [
            "",
            "",
            f"def {function}(value, limit=LIMIT):",
            f'    """{function.replace("_", " ").capitalize()} from `value`."""',
            "    items = [value] * limit",
            f"    result = {rng.choice(others)}(items, limit)",
            "    if not result:",
            f'        LOGGER.debug("no result for %s", "{function}")',
            f"        return {rng.choice(others)}(value)",
            f"    return {all_classes[(i + j) % len(all_classes)]}(result).run(limit)",
        ]
    for k, cls in enumerate(classes):
        base = rng.choice(imported_classes) if imported_classes and rng.random() < 0.4 else None
        methods = [METHODS[(i + k + t) % len(METHODS)] for t in range(rng.randint(1, 3))]
        lines += ["", "", f"class {cls}({base}):" if base else f"class {cls}:"]
        lines += [f'    """A {cls[: -len(KINDS[k])].lower()} {KINDS[k].lower()}."""', ""]
        lines.append("    def __init__(self, value=None):")
        if base:
            lines.append("        super().__init__(value)")
        lines += ["        self.value = value", "        self.items = []", ""]
        lines += [
            "    def run(self, limit=LIMIT):",
            f"        prepared = self.{methods[0]}(limit)",
            f"        return {rng.choice(callables)}(prepared, limit)",
        ]
        for t, method in enumerate(methods):
            following = methods[t + 1] if t + 1 < len(methods) else None
            lines += ["", f"    def {method}(self, limit):"]
            lines += ["        for index in range(limit):", "            self.items.append(index)"]
            if following:
                lines.append(f"        return self.{following}(len(self.items))")
            elif base:
                lines.append("        return self.run(limit) or self.items")
            else:
                lines.append(f"        return {rng.choice(callables)}(self.items)")
    return "\n".join(lines) + "\n"


def _process_tree(pid: int) -> list[int]:
    """`pid` and all its descendants (each process's PPid, from /proc/*/stat)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue  # gone since the listing
        parent = int(stat.rpartition(b")")[2].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    tree, pending = [], [pid]
    while pending:
        current = pending.pop()
        tree.append(current)
        pending.extend(children.get(current, ()))
    return tree


def _kilobytes(path: str, key: bytes) -> int | None:
    """The kB figure of the line starting with `key` (None: the process is gone)."""
    try:
        with open(path, "rb") as handle:
            for line in handle:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def _index_sampled(root: Path, db: Path, name: str, workers: int) -> dict:
    """A full index in a fresh interpreter, its process tree's memory sampled every INTERVAL."""
    out, err = db.with_suffix(".out"), db.with_suffix(".err")  # files: a pipe could fill up
    with out.open("w") as stdout, err.open("w") as stderr:
        child = subprocess.Popen(
            [sys.executable, "-c", INDEX_CHILD, f"sqlite:///{db}", str(root), name, str(workers)],
            stdout=stdout,
            stderr=stderr,
        )
        peak_pss = peak_rss = samples = most_processes = 0
        while child.poll() is None:  # until reaped, the child's pid stays its own
            started = time.monotonic()
            pss_sum, tree = 0, _process_tree(child.pid)
            for pid in tree:
                pss = _kilobytes(f"/proc/{pid}/smaps_rollup", b"Pss:")
                rss = _kilobytes(f"/proc/{pid}/status", b"VmRSS:")
                pss_sum += pss or 0
                peak_rss = max(peak_rss, rss or 0)
            peak_pss = max(peak_pss, pss_sum)
            most_processes = max(most_processes, len(tree))
            samples += 1
            time.sleep(max(0.0, INTERVAL - (time.monotonic() - started)))
    if child.returncode != 0:
        raise RuntimeError(f"the index failed ({child.returncode}): {err.read_text()[-2000:]}")
    result = json.loads(out.read_text().strip().splitlines()[-1])
    result.update(
        peak_pss_mb=round(peak_pss / 1024, 1),
        peak_rss_mb=round(peak_rss / 1024, 1),
        samples=samples,
        most_processes=most_processes,
    )
    return result


def measure(label: str, source: Path | None, files: int, workers: int) -> dict:
    """Copy `source` (None: generate `files` files) into a git repository, then measure."""
    out: dict = {"corpus": label, "workers": workers}
    with tempfile.TemporaryDirectory(prefix="cartograph-memory-") as tmp:
        root = Path(tmp) / "repo"
        started = time.perf_counter()
        if source is None:
            generate_repository(root, files)
            out["generate_seconds"] = round(time.perf_counter() - started, 2)
        else:
            shutil.copytree(source, root, symlinks=True)
        _git_commit_all(root)  # a developer's checkout: files come from `git ls-files`
        paths = _python_files(root)
        out["files"] = len(paths)
        out["lines"] = sum(Path(p).read_bytes().count(b"\n") for p in paths)
        out["parse_floor_seconds"] = round(parse_floor(root, workers, repeat=1), 3)
        run = _index_sampled(root, Path(tmp) / "graph.db", "bench", workers)
    out["index_seconds"] = round(run["seconds"], 3)
    out["index_parse_ratio"] = round(run["seconds"] / out["parse_floor_seconds"], 2)
    for key in ("peak_pss_mb", "peak_rss_mb", "samples", "most_processes", "phases"):
        out[key] = run[key]
    out["main_rss_mb"] = round(run["main_rss_mb"], 1)
    out["worker_rss_mb"] = round(run["worker_rss_mb"], 1)
    out["indexed_files"], out["symbols"], out["edges"] = run["files"], run["symbols"], run["edges"]
    return out


def to_markdown(report: dict) -> str:
    lines = [
        f"# Memory benchmark — {report['date']}",
        "",
        f"Machine: {report['machine']}. Commit: {report['commit']}. A full index into a fresh "
        f"SQLite store in a fresh interpreter with {report['workers']} workers (wall seconds, "
        "imports excluded); the parse-only floor measured in the same run. Memory sampled every "
        f"{INTERVAL:g} s over the index's whole process tree (the interpreter and the processes "
        "it forks).",
        "",
        "| corpus | files | lines | index s | parse-only s | index / parse | peak PSS, process "
        "tree (MB) | largest process RSS (MB) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in report["corpora"]:
        lines.append(
            f"| {c['corpus']} | {c['files']:,} | {c['lines']:,} | {c['index_seconds']} | "
            f"{c['parse_floor_seconds']} | {c['index_parse_ratio']}x | {c['peak_pss_mb']} | "
            f"{c['peak_rss_mb']} |"
        )
    lines += [
        "",
        f"Targets (from the issue): index / parse ≤ {TARGETS['index_parse_ratio']:g}x; peak "
        f"≤ {TARGETS['peak_pss_mb']:g} MB and flat in repository size. PSS splits each page "
        "shared by several processes (the pages a fork shares with its parent) among them, so "
        "the sum over the tree counts every page once.",
        "",
    ]
    for c in report["corpora"]:
        phases = ", ".join(f"{k} {v:.2f}" for k, v in c["phases"].items())
        lines.append(
            f"- {c['corpus']}: phases (s) {phases}; {c['symbols']:,} symbols, {c['edges']:,} "
            f"edges; {c['samples']} samples, at most {c['most_processes']} processes; "
            f"ru_maxrss: interpreter {c['main_rss_mb']} MB, largest worker "
            f"{c['worker_rss_mb']} MB"
            + (f"; generated in {c['generate_seconds']} s" if "generate_seconds" in c else "")
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="homeassistant,synthetic")
    parser.add_argument("--files", type=int, default=50000, help="size of the synthetic corpus")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    corpora = []
    for name in args.corpus.split(","):
        if name == "homeassistant":
            label, source = f"homeassistant-{HOMEASSISTANT}", fetch_homeassistant()
        elif name == "synthetic":
            label, source = f"synthetic-{args.files}", None
        else:
            parser.error(f"unknown corpus {name!r} (homeassistant, synthetic)")
        corpora.append(measure(label, source, args.files, args.workers))
    report = {**run_facts(), "workers": args.workers, "targets": TARGETS, "corpora": corpora}
    write_report("memory", report, to_markdown(report), write=not args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
