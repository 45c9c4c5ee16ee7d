"""`impact` of a patch that adds many files (issue 37): how its time grows with the files, and
what a patch past the limits is answered (docs/impact.md "Limits").

A small git repository (a package of three modules and a test) is indexed into a fresh SQLite
store; then, for each size, a patch adding that many Python modules (each 4 lines: an import
of the repository's code and a function calling it; about 180 bytes of patch a file) is given
to `impact` as the CLI gives it (`impact(store, repo, patch=...)`, in a fresh interpreter per
size, imports excluded), with `--timeout` seconds before it is stopped and reported "not done".

    python -m benchmark.impact_scale [--sizes 6400,25000,100000] [--timeout 300]
        [--label before] [--no-write]

Writes benchmark/results/impact-scale-<date>[-label].{json,md}.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmark.report import run_facts, write_report

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def helper(x):\n    return x + 1\n\n\ndef compute(a):\n    return helper(a)\n",
    "pkg/api.py": "from pkg.core import compute\n\n\ndef entry():\n    return compute(1)\n",
    "tests/test_api.py": "from pkg.api import entry\n\n\ndef test_entry():\n    assert entry()\n",
}


def added_files(count: int) -> str:
    return "".join(
        f"diff --git a/gen/m{i}.py b/gen/m{i}.py\nnew file mode 100644\n"
        f"--- /dev/null\n+++ b/gen/m{i}.py\n@@ -0,0 +1,4 @@\n"
        f"+from pkg.core import helper\n+\n+def added_{i}(x):\n+    return helper(x) + {i}\n"
        for i in range(count)
    )


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def one(store_url: str, patch_file: str) -> None:
    """In a fresh interpreter: one impact of the patch, timed; a JSON line on stdout."""
    from cartograph.errors import CartographError
    from cartograph.impact.report import impact
    from cartograph.store import open_store

    store = open_store(store_url)
    patch = Path(patch_file).read_text()
    began = time.perf_counter()
    try:
        answer = impact(store, "proj", patch=patch)
        outcome = {
            "answer": f"{len(answer.changed)} changed symbols",
            "first_line": answer.summary[0] if answer.summary else "",
        }
    except CartographError as exc:
        outcome = {"answer": f"refused ({exc.kind.value})", "first_line": str(exc)}
    outcome["seconds"] = round(time.perf_counter() - began, 2)
    print(json.dumps(outcome))


def measure(sizes: list[int], timeout: float) -> list[dict]:
    work = Path(tempfile.mkdtemp(prefix="impact-scale-"))
    rows: list[dict] = []
    try:
        root = work / "proj"
        for rel, text in FILES.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        _git(root, "init", "-q", "-b", "main")
        _git(root, "add", "-A")
        _git(root, "-c", "user.email=b@e", "-c", "user.name=b", "commit", "-qm", "start")
        store_url = f"sqlite:///{work / 'graph.db'}"
        from cartograph.index import index_repository
        from cartograph.store import open_store

        store = open_store(store_url)
        index_repository(store, root, name="proj", workers=1, history=False)
        store.close()
        for size in sizes:
            patch = work / f"added-{size}.diff"
            patch.write_text(added_files(size))
            row: dict = {"files": size, "patch_bytes": patch.stat().st_size}
            try:
                done = subprocess.run(
                    [sys.executable, "-m", "benchmark.impact_scale", "--one", store_url,
                     str(patch)],
                    capture_output=True, text=True, timeout=timeout, check=False,
                )  # fmt: skip
                lines = done.stdout.strip().splitlines()
                if done.returncode == 0 and lines:
                    row.update(json.loads(lines[-1]))
                else:
                    row.update(answer="failed", first_line=done.stderr.strip()[-300:])
            except subprocess.TimeoutExpired:
                row.update(answer=f"not done in {timeout:g} s", seconds=None, first_line="")
            rows.append(row)
            print(row, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="6400,25000,100000")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--label", default="", help="a suffix for the report's name")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--one", nargs=2, metavar=("STORE", "PATCH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(*args.one)
        return
    rows = measure([int(s) for s in args.sizes.split(",")], args.timeout)
    facts = run_facts()
    lines = [
        "# impact of a patch adding many files",
        "",
        f"{facts.get('date', '')} · {facts.get('machine', '')} · commit {facts.get('commit', '')}"
        f"{' · ' + args.label if args.label else ''}",
        "",
        "SQLite; one `impact(store, repo, patch=...)` per size in a fresh interpreter (imports "
        "excluded); `python -m benchmark.impact_scale` (method in its docstring).",
        "",
        "| files added | patch | time | answer | its first line |",
        "|---:|---:|---:|---|---|",
    ]
    for r in rows:
        took = f"{r['seconds']} s" if r.get("seconds") is not None else "—"
        first = r.get("first_line", "").replace("|", "\\|")[:160]
        lines.append(
            f"| {r['files']:,} | {r['patch_bytes'] / 1e6:.1f} MB | {took} | {r['answer']} | "
            f"{first} |"
        )
    name = "impact-scale" + (f"-{args.label}" if args.label else "")
    report = {**facts, "timeout_s": args.timeout, "rows": rows}
    path = write_report(name, report, "\n".join(lines) + "\n", not args.no_write)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
