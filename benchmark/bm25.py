"""A plain BM25 baseline for the localization sets (benchmark.localization_sets).

Documents. Every `.py` file of the checked-out tree that is not under a folder named `tests`,
`docs` or `examples` (at any depth) or a hidden folder (`.github`, ...): the package itself,
but also `setup.py`, `scripts/`, a top-level `conftest.py` and the like -- what a reader
searching the checkout would see. The package roots of a set are not used to narrow this down
(pass `roots` to do so). Two indexes are built over these files:
- files: a document is the file's whole text;
- functions: a document is a function's or method's source text, found with `ast` (its
  decorators, `def` line with the name, docstring and body: lines from the first decorator to
  `end_lineno`), so an outer function's text contains its nested functions'. Qualified names
  are those of the ground truth (`Class.method`, `outer.inner`). Files that do not parse give
  no functions (they still count as files).

Tokens: `cartograph.identifiers.split_words` (lower-case words, `snake_case` and `camelCase`
split, digits kept, one-letter words kept), for documents and queries alike; no stop words, no
stemming, no field weights, no boost for names or paths.

Scoring: Okapi BM25 with k1 = 1.2, b = 0.75 and the non-negative idf
ln(1 + (N - df + 0.5) / (df + 0.5)) (Lucene's); the query is the task's text, each of its tokens
counted as often as it occurs. Ties are broken by path and line, so rankings are
deterministic.

    python -m benchmark.bm25 --report [--project flask,click]

checks out every task's before tree (the sets' persistent trees), builds both indexes, ranks
the task text and prints file hit@1/3/5 and function hit@1/5/10 per set (`baseline_table()`);
the rankings are written to ~/.cache/cartograph/localization/<project>/bm25.json.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cartograph.identifiers import split_words

from benchmark.localization_sets import (
    FILE_KS,
    FUNCTION_KS,
    LocalizationSet,
    TaskResult,
    checkout,
    load_sets,
    score,
    tasks_path,
)

K1 = 1.2
B = 0.75
EXCLUDED_DIRS = frozenset({"tests", "docs", "examples"})


def tokens(text: str) -> list[str]:
    return split_words(text)


class BM25:
    """Okapi BM25 over a list of token lists."""

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = K1, b: float = B) -> None:
        self.k1 = k1
        self.b = b
        self.n = len(docs)
        self.lengths = [len(d) for d in docs]
        self.avgdl = sum(self.lengths) / self.n if self.n else 0.0
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, doc in enumerate(docs):
            for term, tf in Counter(doc).items():
                self.postings[term].append((i, tf))
        self.idf = {
            term: math.log(1.0 + (self.n - len(p) + 0.5) / (len(p) + 0.5))
            for term, p in self.postings.items()
        }

    def scores(self, query: Iterable[str]) -> dict[int, float]:
        out: dict[int, float] = defaultdict(float)
        for term in query:
            postings = self.postings.get(term)
            if not postings:
                continue
            idf = self.idf[term]
            for i, tf in postings:
                norm = self.k1 * (1.0 - self.b + self.b * self.lengths[i] / self.avgdl)
                out[i] += idf * tf * (self.k1 + 1.0) / (tf + norm)
        return out


@dataclass(frozen=True)
class FunctionDoc:
    path: str
    qualname: str
    start: int
    end: int


def python_files(tree: Path, roots: Sequence[str] | None = None) -> list[str]:
    """Posix paths (relative to `tree`) of the files indexed, sorted."""
    bases = [tree / r for r in roots] if roots else [tree]
    out: set[str] = set()
    for base in bases:
        if not base.exists():
            continue
        for path in base.rglob("*.py"):
            rel = path.relative_to(tree)
            folders = rel.parts[:-1]
            if any(p in EXCLUDED_DIRS or p.startswith(".") for p in folders):
                continue
            if path.is_file():
                out.add(rel.as_posix())
    return sorted(out)


def function_docs(path: str, source: str) -> list[tuple[FunctionDoc, str]]:
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    lines = source.splitlines()
    out: list[tuple[FunctionDoc, str]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                qualname = prefix + child.name
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                end = child.end_lineno or child.lineno
                text = "\n".join(lines[start - 1 : end])
                out.append((FunctionDoc(path, qualname, start, end), text))
                walk(child, qualname + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")
            else:
                walk(child, prefix)

    walk(module, "")
    return out


class BM25Index:
    """BM25 over the files and the functions of one tree."""

    def __init__(self, files: list[str], file_tokens: list[list[str]], functions: list[FunctionDoc],
                 function_tokens: list[list[str]]) -> None:  # fmt: skip
        self.files = files
        self.functions = functions
        self.file_index = BM25(file_tokens)
        self.function_index = BM25(function_tokens)

    @classmethod
    def build(cls, tree: Path, roots: Sequence[str] | None = None) -> BM25Index:
        """Index `tree` (all of it, or only the folders `roots`, relative to it)."""
        files: list[str] = []
        file_tokens: list[list[str]] = []
        functions: list[FunctionDoc] = []
        function_tokens: list[list[str]] = []
        for rel in python_files(tree, roots):
            source = (tree / rel).read_text(encoding="utf-8", errors="replace")
            files.append(rel)
            file_tokens.append(tokens(source))
            for doc, text in function_docs(rel, source):
                functions.append(doc)
                function_tokens.append(tokens(text))
        return cls(files, file_tokens, functions, function_tokens)

    def rank_files(self, text: str, k: int = 10) -> list[str]:
        scores = self.file_index.scores(tokens(text))
        ranked = sorted(scores, key=lambda i: (-scores[i], self.files[i]))
        return [self.files[i] for i in ranked[:k]]

    def rank_functions(self, text: str, k: int = 10) -> list[tuple[str, str]]:
        scores = self.function_index.scores(tokens(text))
        fs = self.functions
        ranked = sorted(scores, key=lambda i: (-scores[i], fs[i].path, fs[i].start))
        return [(fs[i].path, fs[i].qualname) for i in ranked[:k]]


# --- the baseline over the sets -------------------------------------------------------------

TOP = max(*FILE_KS, *FUNCTION_KS)


def run_set(lset: LocalizationSet, *, verbose: bool = False) -> list[TaskResult]:
    results: list[TaskResult] = []
    for n, task in enumerate(lset.tasks, 1):
        tree = checkout(lset, task)
        index = BM25Index.build(tree)
        results.append(
            TaskResult(task, index.rank_files(task.text, TOP), index.rank_functions(task.text, TOP))
        )
        if verbose:
            print(f"  {lset.project} {n}/{len(lset.tasks)} {task.id}", file=sys.stderr)
    out = tasks_path(lset.project).with_name("bm25.json")
    out.write_text(
        json.dumps(
            [
                {"id": r.task.id, "files": r.files, "functions": [list(f) for f in r.functions]}
                for r in results
            ],
            indent=1,
        )
        + "\n"
    )
    return results


def baseline_table(names: Iterable[str] | None = None, *, verbose: bool = False) -> str:
    """Run BM25 on every task of the sets and return a Markdown table of hit rates."""
    head = ["set", "N"] + [f"file@{k}" for k in FILE_KS] + [f"function@{k}" for k in FUNCTION_KS]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    everything: list[TaskResult] = []
    for lset in load_sets(names):
        started = time.monotonic()
        results = run_set(lset, verbose=verbose)
        everything.extend(results)
        rows.append(_row(lset.project, results))
        if verbose:
            print(f"{lset.project}: {time.monotonic() - started:.0f} s", file=sys.stderr)
    if everything:
        rows.append(_row("all", everything))
    return "\n".join(rows)


def _row(name: str, results: Sequence[TaskResult]) -> str:
    s = score(results)
    cells = [name, str(int(s["n"]))]
    cells += [f"{s[f'file@{k}']:.2f}" for k in FILE_KS]
    cells += [f"{s[f'function@{k}']:.2f}" for k in FUNCTION_KS]
    return "| " + " | ".join(cells) + " |"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="BM25 baseline on the localization sets")
    parser.add_argument("--report", action="store_true", help="run on every task, print table")
    parser.add_argument("--project", default="", help="comma-separated sets (default: all)")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    if not args.report:
        parser.print_help()
        return 0
    names = [n.strip() for n in args.project.split(",") if n.strip()] or None
    print(baseline_table(names, verbose=args.verbose))
    return 0


if __name__ == "__main__":
    sys.exit(main())
