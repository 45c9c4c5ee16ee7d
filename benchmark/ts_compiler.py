"""The TypeScript resolver against the TypeScript compiler, on a real package: how many of the
call sites the compiler resolves to the package's own code Cartograph finds (recall), and how
many of Cartograph's call sites that the compiler resolves point at another target (precision).

The package is fetched with `npm pack` (default `zod@3`) into the corpora cache, and its
`src/` is both indexed (SQLite, 1 worker, no history) and given to the compiler
(`benchmark/ts_compiler_calls.js`, TypeScript 5 from the npm registry, installed once into the
cache): for each call or `new`, the declaration the compiler resolves (the overload's
signature, else the callee's symbol, an import followed to its source), named in Cartograph's
qualname scheme, and the innermost named symbol the call is written in.

A site is (caller, line, target). Compared: Cartograph's CALLS edges but the derived ones
(`argument`, `dispatch`, `decorator`, `callback`: a call through a value, at another place) and
the constructor of a class beside a `new` of it (the compiler names the class). A Cartograph
site bound to a type alias or an interface is wrong whatever its id (before issue 37 a value
and a type of one name were one id).

    python -m benchmark.ts_compiler [--package zod@3] [--label after] [--no-write]

Writes benchmark/results/ts-compiler-<date>[-label].{json,md}.
"""

from __future__ import annotations

import argparse
import collections
import json
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from benchmark.corpora import CACHE
from benchmark.report import run_facts, write_report

HERE = Path(__file__).resolve().parent
DERIVED = {"argument", "dispatch", "decorator", "callback"}
TYPE_KINDS = ("type", "interface")


def package_source(spec: str) -> Path:
    """The `src/` of an npm package, packed and unpacked once into the corpora cache."""
    folder = CACHE / ("npm-pack-" + spec.replace("/", "-").replace("@", "-").strip("-"))
    if not (folder / "package" / "src").is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            ["npm", "pack", spec, "--silent"], cwd=folder, capture_output=True, text=True,
            check=True,
        )  # fmt: skip
        with tarfile.open(folder / done.stdout.strip().splitlines()[-1]) as tar:
            tar.extractall(folder, filter="data")
    return folder / "package" / "src"


def typescript_module() -> Path:
    """TypeScript 5, installed once into the corpora cache."""
    prefix = CACHE / "typescript-5"
    module = prefix / "node_modules" / "typescript"
    if not module.is_dir():
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--silent", "--prefix", str(prefix), "typescript@5"], check=True
        )
    return module


def compiler_sites(source: Path) -> dict[tuple[str, int], set[str]]:
    import os

    done = subprocess.run(
        ["node", str(HERE / "ts_compiler_calls.js"), str(source)],
        capture_output=True, text=True, check=True,
        env={**os.environ, "TYPESCRIPT_MODULE": str(typescript_module())},
    )  # fmt: skip
    sites: dict[tuple[str, int], set[str]] = collections.defaultdict(set)
    for line in done.stdout.splitlines():
        row = json.loads(line)
        sites[(row["caller"], row["line"])].add(row["target"])
    return sites


def cartograph_sites(source: Path) -> tuple[set[tuple[str, int, str]], dict[str, str]]:
    from cartograph.index import index_repository
    from cartograph.store import open_store

    work = Path(tempfile.mkdtemp(prefix="ts-compiler-"))
    try:
        store = open_store(f"sqlite:///{work / 'graph.db'}")
        index_repository(store, source, name="pkg", workers=1, history=False)
        kinds: dict[str, str] = {}
        sites: set[tuple[str, int, str]] = set()
        for item in store.graph.export("pkg"):
            if item["type"] != "edge" and ":" in (item.get("id") or ""):
                kinds[item["id"].partition(":")[2]] = item.get("kind") or ""
            elif item["type"] == "edge" and item["label"] == "CALLS":
                if item.get("via") in DERIVED:
                    continue
                src, dst = item["src"].partition(":")[2], item["dst"].partition(":")[2]
                sites.update((src, line, dst) for line in item.get("lines") or [])
        store.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    # `new X()`: the compiler names the class; the constructor beside it is not compared
    with_class = {(c, line) for c, line, t in sites if kinds.get(t) == "class"}
    sites = {
        (c, line, t)
        for c, line, t in sites
        if not (t.endswith(".constructor") and (c, line) in with_class)
    }
    return sites, kinds


def compare(spec: str) -> dict:
    source = package_source(spec)
    truth_sites = compiler_sites(source)
    truth = {(c, line, t) for (c, line), targets in truth_sites.items() for t in targets}
    ours, kinds = cartograph_sites(source)
    found = {s for s in truth & ours if kinds.get(s[2]) not in TYPE_KINDS}
    checked = {s for s in ours if (s[0], s[1]) in truth_sites}
    wrong = sorted(s for s in checked if s not in found)
    version = json.loads((source.parent / "package.json").read_text()).get("version", "")
    return {
        "package": spec,
        "version": version,
        "compiler_sites": len(truth),
        "found": len(found),
        "recall": round(len(found) / len(truth), 4) if truth else None,
        "cartograph_sites_checked": len(checked),
        "wrong": len(wrong),
        "wrong_to_a_type": sum(1 for s in wrong if kinds.get(s[2]) in TYPE_KINDS),
        "precision": round(1 - len(wrong) / len(checked), 4) if checked else None,
        "unchecked": len(ours - checked),
        "wrong_examples": [list(s) for s in wrong[:10]],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", default="zod@3")
    parser.add_argument("--label", default="", help="a suffix for the report's name")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    row = compare(args.package)
    facts = run_facts()
    lines = [
        "# The TypeScript resolver against the TypeScript compiler",
        "",
        f"{facts.get('date', '')} · {facts.get('machine', '')} · commit {facts.get('commit', '')}"
        f"{' · ' + args.label if args.label else ''}",
        "",
        f"`{args.package}` ({row['version']}, `npm pack`), its `src/`; `python -m "
        "benchmark.ts_compiler` (method in its docstring).",
        "",
        "| compiler's call sites (own code) | found | recall | Cartograph's sites the compiler "
        "resolves | another target | of them a type | precision | not checkable |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {row['compiler_sites']} | {row['found']} | {row['recall']} | "
        f"{row['cartograph_sites_checked']} | {row['wrong']} | {row['wrong_to_a_type']} | "
        f"{row['precision']} | {row['unchecked']} |",
    ]
    if row["wrong_examples"]:
        lines += ["", "Wrong targets, the first ten (caller, line, Cartograph's target):", ""]
        lines += [f"- `{c}` line {line} → `{t}`" for c, line, t in row["wrong_examples"]]
    name = "ts-compiler" + (f"-{args.label}" if args.label else "")
    path = write_report(name, {**facts, **row}, "\n".join(lines) + "\n", not args.no_write)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
