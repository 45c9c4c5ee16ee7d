"""What a session's overlay costs a read: on a Django 5.1.4 index, one agent session edits a
random library file at a time (a new function at its end that calls the file's first function)
and asks the callers of that first function, in the session (it must list the new function)
and in no session (it must not).

Per run, timed in process through the operation catalogue, as the REST, GraphQL and MCP
surfaces call it (the HTTP framework's own cost is left out):
- overlay-edit: recording the edit and keeping the file's text;
- first read in the session: the layer is resolved (parse and resolve the file against the
  stored repository), then the read;
- next reads in the session: the layer comes from the cache;
- the same read in no session (the shared graph).

    python -m benchmark.overlay_latency [--runs 30]
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import tempfile
import time
from pathlib import Path

from cartograph.agents.sessions import end_session, start_session
from cartograph.index import index_repository
from cartograph.operations import Services, operation
from cartograph.store import open_store

from benchmark.corpora import fetch
from benchmark.report import latency_stats, run_facts, write_report

SEED = 17
WARM_READS = 5


def _targets(root: Path, rng: random.Random, count: int) -> list[tuple[str, str]]:
    """(path, name of its first top-level function) of random library files."""
    files = sorted(p for p in (root / "django").rglob("*.py") if "/migrations/" not in str(p))
    rng.shuffle(files)
    found = []
    for path in files:
        match = re.search(r"^def ([a-z][a-z_]{3,})\(", path.read_text(errors="replace"), re.M)
        if match:
            found.append((str(path.relative_to(root)), match.group(1)))
        if len(found) == count:
            break
    return found


def measure(runs: int) -> dict:
    source = fetch("django", "5.1.4")
    work = Path(tempfile.mkdtemp(prefix="cartograph-overlay-"))
    root = work / "django"
    shutil.copytree(source, root)
    store = open_store(f"sqlite:///{work / 'graph.db'}")
    index_repository(store, root, "django", history=False)
    times: dict[str, list[float]] = {
        "overlay-edit": [],
        "first read in the session (resolves the layer)": [],
        "next reads in the session (cached layer)": [],
        "the same read in no session": [],
    }
    wrong = 0
    edit, callers = operation("overlay-edit"), operation("callers")
    for i, (path, name) in enumerate(_targets(root, random.Random(SEED), runs)):
        session = start_session(store, "bench", f"run {i}").id
        text = (root / path).read_text()
        added = f"\n\ndef overlay_bench_{i}():\n    return {name}()\n"
        values = {"session": session, "repo": "django", "path": path, "content": text + added}
        started = time.perf_counter()
        edit.run(Services(store), values)
        times["overlay-edit"].append(time.perf_counter() - started)
        asked = {"symbol": f"django:{path}#{_module(path)}.{name}", "limit": 100}
        for label, in_session, repeat in (
            ("first read in the session (resolves the layer)", session, 1),
            ("next reads in the session (cached layer)", session, WARM_READS),
            ("the same read in no session", None, WARM_READS),
        ):
            for _ in range(repeat):
                started = time.perf_counter()
                page = callers.run(Services(store, session=in_session), asked)
                times[label].append(time.perf_counter() - started)
                listed = any(n.symbol.name == f"overlay_bench_{i}" for n in page.items)
                wrong += listed != (in_session is not None)
        end_session(store, session)
    store.close()
    shutil.rmtree(work, ignore_errors=True)
    return {
        **run_facts(),
        "corpus": "django 5.1.4 (sdist), SQLite store, in process",
        "runs": runs,
        "wrong_answers": wrong,
        "timings": {label: latency_stats(values) for label, values in times.items()},
    }


def _module(path: str) -> str:
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def markdown(report: dict) -> str:
    lines = [
        "# A session's overlay: what it costs a read",
        "",
        f"{report['date']} · {report['machine']} · commit {report['commit']} · "
        f"{report['corpus']} · {report['runs']} edits · answers that missed the session's "
        f"edit or showed it outside the session: {report['wrong_answers']}",
        "",
        "| step | p50 | p95 | max | runs |",
        "|---|---|---|---|---|",
    ]
    for label, row in report["timings"].items():
        lines.append(f"| {label} | {row['p50_ms']} ms | {row['p95_ms']} ms | {row['max_ms']} ms "
                     f"| {row['runs']} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    report = measure(args.runs)
    write_report("overlay-latency", report, markdown(report), not args.no_write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
