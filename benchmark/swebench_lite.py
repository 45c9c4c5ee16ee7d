"""SWE-bench Lite localization: given an issue's text, are the files and functions its gold
patch changed among the first answers? `locate` beside a plain BM25 over files and functions
(`benchmark.bm25`), on the 300 tasks of SWE-bench Lite (test split).

Data. A task is (repository, base commit, problem statement, gold patch). The tasks are read
from `--tasks` (default /work/data/swebench_lite/tasks.jsonl, one JSON object per line); when
that file is missing, from the third-party copy it was made from, `swe-bench-lite.json` (a JSON
array) at commit SOURCE_COMMIT of github:ivan4722/csvtransfer, read out of that repository's
mirror (`$CARTOGRAPH_MIRRORS/ivan4722+csvtransfer/repo`, made by the `fetch` tool) — Hugging
Face cannot be reached from here. The histories are bare mirrors at
`$CARTOGRAPH_MIRRORS/<owner>+<name>/repo` (`CARTOGRAPH_MIRRORS` defaults to /work/.mirror); a
repository without one is not run (django, scikit-learn and matplotlib: their snapshots are
larger than the fetch tool's cap), its tasks are listed with the reason.

Per repository, tasks run in the order of their base commit's committer date: a work tree (a
`git clone --shared --no-checkout` of the mirror) is moved to the base commit (only the files
that differ are rewritten) and indexed incrementally into one SQLite store per repository (no
history); then, with the problem statement as it is:
- locate: `query.locate.rank` — its functions, best first, and its files; also its confidence
  (the map is withheld below MIN_CONFIDENCE; the ranking is graded all the same) and the wall
  time of `rank`;
- bm25: `benchmark.bm25.BM25Index` over the same tree.

Gold. The gold patch's files, read as `benchmark.localization_sets` reads a fix: the modified
non-test `.py` files (not under a `tests`/`test` folder, not `test_*.py`, `*_test.py` or
`conftest.py`) that exist at the base commit; added files cannot be localized and are left out
(a task whose Python changes are only additions has no gold file). Gold functions: the functions
and methods whose lines the patch changes, by `localization_sets.changed_functions` on the base
version of each gold file (qualified names `Class.method`, `outer.inner`; a changed line goes to
the innermost function holding it; an insertion lands in a function when it falls inside it;
lines of a class body outside any method or at module level give no function). The changed lines
are read from `git diff -M -U0` between the base commit and the base commit with the patch
applied by `git apply` (`applied_diff`): some hunks of the gold patches state line numbers a few
lines off the base commit's, `git apply` places them by their context.

Metrics. Acc@k: EVERY gold file (function) is among the first k answers — file Acc@1/3/5 over
the tasks with a gold file, function Acc@5/10 over the tasks with a gold function (a predicted
function matches as in `localization_sets.function_matches`: same path, qualname equal or ending
in "." + the gold qualname). For reference also the "any gold in the first k" rates. Per
repository, over all tasks run, and conservatively over all 300 tasks (a task not run, or
without gold, is a miss).

    python -m benchmark.swebench_lite [--repos psf/requests,pallets/flask] [--limit N]
        [--tasks PATH] [--work DIR] [--no-write]

writes benchmark/results/swebench-lite-<date>.md/.json (`benchmark.report`); the work trees and
stores persist in `--work` (default ~/.cache/cartograph/swebench-lite) between runs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TypeVar

from cartograph.index import index_repository
from cartograph.query.locate import MIN_CONFIDENCE, rank
from cartograph.store import open_store
from cartograph.store.interfaces import Store

from benchmark.bm25 import BM25Index
from benchmark.localization_sets import (
    CHECKOUT,
    CLONE,
    Function,
    Git,
    changed_functions,
    function_matches,
    is_source,
    mirrors_root,
    parse_diff,
)
from benchmark.report import latency_stats, run_facts, write_report

TASKS = Path("/work/data/swebench_lite/tasks.jsonl")
SOURCE_REPO = "ivan4722/csvtransfer"
SOURCE_COMMIT = "9039a5db8b617ae6cf2c63bc08c295958c8a4968"
SOURCE_FILE = "swe-bench-lite.json"
WORK = Path.home() / ".cache" / "cartograph" / "swebench-lite"
RANKERS = ("locate", "bm25")
DEPTH = 10
FILE_KS = (1, 3, 5)
FUNCTION_KS = (5, 10)
# why a repository's history is not here (the fetch tool's snapshots are capped at 500 MB)
TOO_LARGE = {
    "django/django": "snapshot 637 MB",
    "scikit-learn/scikit-learn": "snapshot 788 MB",
    "matplotlib/matplotlib": "snapshot 873 MB",
}


# --- the tasks ------------------------------------------------------------------------------


def git_dir(repo: str) -> Path:
    """The fetch tool's mirror of `owner/name`."""
    return mirrors_root() / repo.replace("/", "+") / "repo"


def load_records(path: Path) -> tuple[list[dict], str]:
    """The task records and where they came from (one line for the report)."""
    source = f"third-party copy github:{SOURCE_REPO} {SOURCE_FILE} @ {SOURCE_COMMIT[:12]}"
    if path.exists():
        raw = path.read_bytes()
        records = [json.loads(line) for line in raw.decode().splitlines() if line.strip()]
        where = f"{path} (made from the {source}), sha256 {hashlib.sha256(raw).hexdigest()[:16]}"
        return records, where
    mirror = git_dir(SOURCE_REPO)
    if not mirror.exists():
        raise SystemExit(
            f"{path}: no such file, and no mirror {mirror}. Make it: fetch "
            f"github:{SOURCE_REPO}, then\n  git --git-dir={mirror} show "
            f"{SOURCE_COMMIT}:{SOURCE_FILE} | python -c 'import json,sys; "
            f"[print(json.dumps(t)) for t in json.load(sys.stdin)]' > {path}\n"
            "(one task per line), or pass --tasks PATH."
        )
    raw = Git(mirror).run("show", f"{SOURCE_COMMIT}:{SOURCE_FILE}").encode()
    where = f"{source}, read from {mirror}, sha256 {hashlib.sha256(raw).hexdigest()[:16]}"
    return json.loads(raw), where


# --- the gold -------------------------------------------------------------------------------


def applied_diff(git_dir: Path, base: str, patch: str) -> tuple[str, int]:
    """`git diff -M -U0` from `base` to `base` with `patch` applied where `git apply` places its
    hunks by their context (some gold patches state line numbers a few lines off). The patched
    tree's objects go into `git_dir`, a work tree's clone (never the mirror). Also: how many
    hunks applied at an offset."""
    index = git_dir / "swebench-gold.index"
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}

    def git(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", f"--git-dir={git_dir}", *args],
            input=stdin,
            env=env,
            capture_output=True,
            check=True,
            text=True,
            errors="replace",
        )

    try:
        git("read-tree", base)
        applied = git("apply", "--cached", "--verbose", "-", stdin=patch).stderr
        patched = git("write-tree").stdout.strip()
    finally:
        index.unlink(missing_ok=True)
    diff = git("diff", "-M", "-U0", "--no-color", "--no-ext-diff", base, patched).stdout
    return diff, len(re.findall(r"^Hunk #\d+ succeeded at \d+ \(offset", applied, re.M))


def is_code(path: str) -> bool:
    """A non-test `.py` file: `localization_sets.is_source` with the whole repository as root."""
    return is_source("/" + path, ("/",))


@dataclass
class Gold:
    files: list[str] = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)
    added: list[str] = field(default_factory=list)  # new non-test .py files (not gold)
    missing: list[str] = field(default_factory=list)  # modified, but not at the base commit
    offset_hunks: int = 0  # hunks `git apply` placed at other lines than the patch states


def gold_of(git: Git, base: str, patch: str) -> Gold:
    """The gold of a task whose base commit `git` (a work tree's clone) holds."""
    diff, offset_hunks = applied_diff(git.git_dir, base, patch)
    gold = Gold(offset_hunks=offset_hunks)
    for change in parse_diff(diff):
        if change.old is None:
            if change.new is not None and is_code(change.new):
                gold.added.append(change.new)
            continue
        if not is_code(change.old):
            continue
        source = git.show(base, change.old)
        if source is None:
            gold.missing.append(change.old)
            continue
        gold.files.append(change.old)
        gold.functions += [
            Function(change.old, d.qualname, d.start, d.end)
            for d in changed_functions(source, change)
        ]
    return gold


# --- running --------------------------------------------------------------------------------


@dataclass
class Task:
    id: str
    repo: str
    base: str
    text: str
    patch: str
    date: int = 0  # the base commit's committer time


@dataclass
class Result:
    """One task's gold and both rankings (functions as "path::qualname"), best first."""

    id: str
    repo: str
    base: str
    gold_files: list[str]
    gold_functions: list[str]
    added: list[str]
    missing: list[str]
    offset_hunks: int
    absent: list[str]  # files left out of the checkout (the mirror lacks their blobs)
    locate_files: list[str]
    locate_functions: list[str]
    bm25_files: list[str]
    bm25_functions: list[str]
    confidence: float
    withheld: bool
    rank_s: float
    index_s: float
    bm25_s: float


def absent_blobs(tree: Path, commit: str) -> list[str]:
    """Paths of `commit` whose blobs the mirror lacks (a fetch snapshot may leave out its
    largest files: astropy's IERS data table)."""
    git = ["git", "-C", str(tree)]
    listing = subprocess.run(
        [*git, "ls-tree", "-r", "-z", commit], capture_output=True, check=True
    ).stdout.decode(errors="replace")
    blobs = [
        (meta.split()[2], path)
        for meta, _, path in (e.partition("\t") for e in listing.split("\0") if e)
        if meta.split()[1] == "blob"
    ]
    checked = subprocess.run(
        [*git, "cat-file", "--batch-check"],
        capture_output=True,
        check=True,
        input="".join(f"{sha}\n" for sha, _ in blobs).encode(),
    ).stdout
    lines = checked.decode().splitlines()
    return [path for (_, path), line in zip(blobs, lines, strict=True) if line.endswith(" missing")]


def checkout(git: Path, tree: Path, commit: str) -> list[str]:
    """`commit` in `tree`, as `localization_sets.checkout` does it (the mirror's HEAD branch is
    cloned, the base commits are read through the shared objects); the files whose blobs the
    mirror lacks are left out by a sparse checkout, and returned."""
    if not (tree / ".git").exists():
        tree.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([*CLONE, str(git), str(tree)], check=True)
    git_c = ["git", "-C", str(tree)]
    absent = absent_blobs(tree, commit)
    subprocess.run([*git_c, "config", "core.sparseCheckout", "true"], check=True)
    patterns = "/*\n" + "".join(f"!/{path}\n" for path in absent)
    (tree / ".git" / "info").mkdir(exist_ok=True)
    (tree / ".git" / "info" / "sparse-checkout").write_text(patterns)
    subprocess.run([*git_c, "-c", "advice.detachedHead=false", *CHECKOUT, commit], check=True)
    subprocess.run([*git_c, "clean", "-ffdq", "-e", ".cartograph"], check=True)
    return absent


def key(path: str, qualname: str) -> str:
    return f"{path}::{qualname}"


T = TypeVar("T")


def timed(call: Callable[[], T]) -> tuple[T, float]:
    started = time.perf_counter()
    value = call()
    return value, time.perf_counter() - started


def run_task(task: Task, tree: Path, store: Store, name: str, absent: list[str]) -> Result:
    gold = gold_of(Git(tree / ".git"), task.base, task.patch)
    _, index_s = timed(lambda: index_repository(store, tree, name, history=False))
    ranking, rank_s = timed(lambda: rank(store, task.text, name))
    bm25, bm25_s = timed(lambda: BM25Index.build(tree, None))
    confidence = ranking.confidence
    return Result(
        id=task.id,
        repo=task.repo,
        base=task.base,
        gold_files=gold.files,
        gold_functions=[key(f.path, f.qualname) for f in gold.functions],
        added=gold.added,
        missing=gold.missing,
        offset_hunks=gold.offset_hunks,
        absent=absent,
        locate_files=[f.path for f in ranking.files][:DEPTH],
        locate_functions=[
            key(loc.symbol.path, loc.symbol.qualname) for loc in ranking.functions[:DEPTH]
        ],
        bm25_files=bm25.rank_files(task.text, DEPTH),
        bm25_functions=[key(p, q) for p, q in bm25.rank_functions(task.text, DEPTH)],
        confidence=round(confidence, 4),
        withheld=confidence * 100 < MIN_CONFIDENCE,
        rank_s=round(rank_s, 4),
        index_s=round(index_s, 2),
        bm25_s=round(bm25_s, 2),
    )


def code_version() -> str:
    """A hash of the `.py` files of platform/ and benchmark/ as they are in the work tree."""
    root = Path(__file__).resolve().parent.parent
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", "--", "platform/*.py", "benchmark/*.py"],
        capture_output=True,
        check=True,
    ).stdout.decode()
    digest = hashlib.sha256()
    for rel in sorted(p for p in listed.split("\0") if p):
        if (root / rel).is_file():
            digest.update(rel.encode() + b"\0" + (root / rel).read_bytes())
    return digest.hexdigest()[:16]


class Journal:
    """A run's results, one line each as they come (`<work>/journal.jsonl`), so that a run cut
    short can be resumed (`--resume`): a task is taken from the journal only when the same code
    (`code_version`) ran it."""

    def __init__(self, path: Path, resume: bool) -> None:
        self.path = path
        self.code = code_version()
        self.done: dict[str, Result] = {}
        if resume and path.exists():
            for line in path.read_text().splitlines():
                entry = json.loads(line)
                if entry["code"] == self.code:
                    self.done[entry["result"]["id"]] = Result(**entry["result"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(self._line(r) for r in self.done.values()))

    def _line(self, result: Result) -> str:
        return json.dumps({"code": self.code, "result": asdict(result)}) + "\n"

    def add(self, result: Result) -> None:
        with self.path.open("a") as out:
            out.write(self._line(result))


def run_repo(
    repo: str, tasks: list[Task], work: Path, journal: Journal
) -> tuple[list[Result], list[dict]]:
    """The tasks of one repository, in base-commit date order, on one tree and one store; and
    the tasks that failed (not run), with the error."""
    name = repo.replace("/", "__")
    tree = work / "trees" / name
    (work / "stores").mkdir(parents=True, exist_ok=True)
    store = open_store(f"sqlite:///{work / 'stores' / (name + '.db')}")
    results: list[Result] = []
    failed: list[dict] = []
    try:
        for n, task in enumerate(tasks, 1):
            if task.id in journal.done:
                results.append(journal.done[task.id])
                continue
            try:
                absent = checkout(git_dir(repo), tree, task.base)
                result = run_task(task, tree, store, name, absent)
            except Exception as exc:  # one task's failure does not end the run
                traceback.print_exc()
                error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                failed += not_run([{"repo": repo, "instance_id": task.id}], f"failed: {error}")
                continue
            results.append(result)
            journal.add(result)
            print(
                f"  {repo} {n}/{len(tasks)} {task.id}: index {result.index_s:.0f} s, "
                f"locate file@3 {hit(result, 'locate', 'files', 3, all)}",
                file=sys.stderr,
                flush=True,
            )
    finally:
        store.close()
    return results, failed


def dated(records: list[dict]) -> list[Task]:
    """The tasks of one repository, oldest base commit first."""
    git = Git(git_dir(records[0]["repo"]))
    tasks = [
        Task(r["instance_id"], r["repo"], r["base_commit"], r["problem_statement"], r["patch"])
        for r in records
    ]
    for t in tasks:
        t.date = int(git.run("show", "-s", "--format=%ct", t.base).strip())
    return sorted(tasks, key=lambda t: (t.date, t.id))


# --- scoring --------------------------------------------------------------------------------


def _split(function: str) -> tuple[str, str]:
    path, _, qualname = function.partition("::")
    return path, qualname


def _function_found(gold: str, ranked: list[str]) -> bool:
    truth = Function(*_split(gold), start=0, end=0)
    return any(function_matches(_split(p), truth) for p in ranked)


def hit(r: Result, ranker: str, kind: str, k: int, quantifier: Callable = all) -> bool:
    """Whether every (`all`) or some (`any`) gold file/function is in `ranker`'s first k."""
    ranked = getattr(r, f"{ranker}_{kind}")[:k]
    gold = getattr(r, f"gold_{kind}")
    if not gold:
        return False
    if kind == "files":
        return quantifier(g in ranked for g in gold)
    return quantifier(_function_found(g, ranked) for g in gold)


def metrics(results: Sequence[Result], ranker: str, out_of: int | None = None) -> dict:
    """Acc@k (all gold) and any@k (some gold) rates; over the tasks with gold, or over
    `out_of` tasks (the others count as misses)."""
    with_files = [r for r in results if r.gold_files]
    with_functions = [r for r in results if r.gold_functions]
    out: dict[str, float] = {
        "tasks": len(results),
        "with_files": len(with_files),
        "with_functions": len(with_functions),
    }
    for kind, ks, pool in (
        ("files", FILE_KS, with_files),
        ("functions", FUNCTION_KS, with_functions),
    ):
        n = out_of if out_of is not None else len(pool)
        for k in ks:
            for label, quantifier in (("acc", all), ("any", any)):
                hits = sum(hit(r, ranker, kind, k, quantifier) for r in pool)
                out[f"{kind[:-1]}_{label}@{k}"] = round(hits / n, 4) if n else 0.0
    return out


def summary(results: Sequence[Result]) -> dict:
    withheld = [r for r in results if r.withheld]
    answered = [r for r in results if not r.withheld]
    return {
        **{ranker: metrics(results, ranker) for ranker in RANKERS},
        "withheld": len(withheld),
        "locate_withheld": metrics(withheld, "locate"),
        "locate_answered": metrics(answered, "locate"),
        "latency": latency_stats([r.rank_s for r in results]) if results else {},
    }


# --- the report -----------------------------------------------------------------------------

ACC = ("file_acc@1", "file_acc@3", "file_acc@5", "function_acc@5", "function_acc@10")
ANY = ("file_any@1", "file_any@3", "file_any@5", "function_any@5", "function_any@10")


def _cells(m: dict, names: Sequence[str]) -> str:
    return " | ".join(_rate(m, name) for name in names)


def _label(name: str) -> str:
    """file_acc@3 -> file Acc@3, function_any@5 -> function any@5"""
    kind, _, metric = name.partition("_")
    return f"{kind} {metric.replace('acc', 'Acc')}"


def _table(rows: dict[str, dict], names: Sequence[str]) -> list[str]:
    head = "| repository | tasks | with file / function gold | ranker | "
    head += " | ".join(_label(name) for name in names)
    lines = [head + " |", "|---|---|---|---|" + "---|" * len(names)]
    for repo, row in rows.items():
        for ranker in RANKERS:
            m = row[ranker]
            gold = f"{int(m['with_files'])} / {int(m['with_functions'])}"
            lines.append(f"| {repo} | {int(m['tasks'])} | {gold} | {ranker} | {_cells(m, names)} |")
    return lines


def _rate(m: dict, name: str) -> str:
    n = m["with_files"] if name.startswith("file") else m["with_functions"]
    return f"{m[name]:.2f}" if n else "-"


def _withholding(rows: dict[str, dict]) -> list[str]:
    lines = [
        "| repository | withheld | file Acc@3 withheld / answered | function Acc@5 withheld / "
        "answered | rank p50 | rank p95 |",
        "|---|---|---|---|---|---|",
    ]
    for repo, row in rows.items():
        held, ans = row["locate_withheld"], row["locate_answered"]
        lat = row["latency"]
        lines.append(
            f"| {repo} | {row['withheld']} of {int(row['locate']['tasks'])} | "
            f"{_rate(held, 'file_acc@3')} / {_rate(ans, 'file_acc@3')} | "
            f"{_rate(held, 'function_acc@5')} / {_rate(ans, 'function_acc@5')} | "
            f"{lat.get('p50_ms', 0):.0f} ms | {lat.get('p95_ms', 0):.0f} ms |"
        )
    return lines


def markdown(report: dict) -> str:
    rows = {**report["repos"], "all run": report["overall"]}
    total = report["all_tasks"]
    lines = [
        "# SWE-bench Lite: locate beside BM25",
        "",
        f"{report['date']} · {report['machine']} · commit {report['commit']}",
        "",
        f"Data: SWE-bench Lite, test split, {total} tasks — {report['data']}.",
        f"Command: `{report['command']}`. Run time {report['run_minutes']:.0f} min"
        + (
            f" (and an interrupted run of the same code before it: {report['resumed']} tasks "
            "taken from its journal)."
            if report["resumed"]
            else "."
        ),
        f"Machine load: {report['load']}",
        "",
        "Acc@k: every gold file (function) is among the first k answers; file Acc over the tasks "
        "with a gold file, function Acc over the tasks with a gold function (the patch changes "
        "lines of at least one function or method that exists at the base commit).",
        "",
        "## Acc@k, per repository and over the tasks run",
        "",
        *_table(rows, ACC),
        "",
        f"## Acc@k over all {total} tasks (not run, or no gold: a miss)",
        "",
        "| ranker | " + " | ".join(_label(name) for name in ACC) + " |",
        "|---|" + "---|" * len(ACC),
        *(f"| {r} | {_cells(report['all_300'][r], ACC)} |" for r in RANKERS),
        "",
        "## For reference: some gold file (function) among the first k",
        "",
        *_table(rows, ANY),
        "",
        f"## locate's confidence (withheld below {MIN_CONFIDENCE}%: ranking graded anyway) "
        "and the wall time of rank()",
        "",
        *_withholding(rows),
        "",
        "## Gold",
        "",
        *(f"- {line}" for line in report["gold_notes"]),
        "",
        "## Not run",
        "",
        "| repository | tasks | reason |",
        "|---|---|---|",
        *(f"| {n['repo']} | {n['tasks']} | {n['reason']} |" for n in report["not_run"]),
    ]
    return "\n".join(lines) + "\n"


def gold_notes(results: Sequence[Result]) -> list[str]:
    no_file = [r.id for r in results if not r.gold_files]
    added_only = [r.id for r in results if not r.gold_files and r.added]
    no_function = [r.id for r in results if r.gold_files and not r.gold_functions]
    several = Counter(len(r.gold_files) for r in results)
    missing = [r.id for r in results if r.missing]
    offset = [r.id for r in results if r.offset_hunks]
    absent = [f"{r.id} ({', '.join(r.absent)})" for r in results if r.absent]
    return [
        f"gold files per task: {dict(sorted(several.items()))}",
        f"tasks without a gold file: {len(no_file)} ({', '.join(no_file) or '-'}); of them "
        f"only adding .py files: {len(added_only)} ({', '.join(added_only) or '-'})",
        f"tasks with a gold file but no gold function (module-level or class-body changes): "
        f"{len(no_function)} ({', '.join(no_function) or '-'})",
        f"tasks modifying a file missing at the base commit: {len(missing)} "
        f"({', '.join(missing) or '-'})",
        f"tasks whose gold patch applies with hunks at an offset (placed by `git apply` from "
        f"their context): {len(offset)} ({', '.join(offset) or '-'})",
        f"tasks run with files left out of the checkout (the mirror lacks their blobs): "
        f"{len(absent)} ({'; '.join(absent) or '-'})",
    ]


def load_note() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} / {five:.2f} / {fifteen:.2f} (1/5/15 min)"


def not_run(records: list[dict], reason: str) -> list[dict]:
    """Rows of the "not run" table: per repository, how many tasks, why, which."""
    by_repo: dict[str, list[str]] = {}
    for r in records:
        by_repo.setdefault(r["repo"], []).append(r["instance_id"])
    return [
        {"repo": repo, "tasks": len(ids), "reason": reason, "ids": ids}
        for repo, ids in by_repo.items()
    ]


def plan(
    by_repo: dict[str, list[dict]], wanted: Sequence[str], limit: int | None
) -> tuple[dict[str, list[Task]], list[dict]]:
    """The tasks to run per repository (date order, `limit` first) and those not run, why."""
    to_run: dict[str, list[Task]] = {}
    skipped: list[dict] = []
    for repo, recs in by_repo.items():
        if not git_dir(repo).exists():
            size = (
                f"; {TOO_LARGE[repo]}, over the fetch tool's 500 MB cap"
                if repo in TOO_LARGE
                else ""
            )
            skipped += not_run(recs, f"no history here (no mirror {git_dir(repo)}{size})")
        elif repo not in wanted:
            skipped += not_run(recs, "left out (--repos)")
        else:
            tasks = dated(recs)
            if limit is not None and len(tasks) > limit:
                reason = f"left out (--limit {limit}: the {limit} oldest base commits ran)"
                skipped += not_run(
                    [r for r in recs if r["instance_id"] in {t.id for t in tasks[limit:]}], reason
                )
            to_run[repo] = tasks[:limit]
    return to_run, skipped


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--tasks", type=Path, default=TASKS, help="the tasks (JSON lines)")
    parser.add_argument("--repos", default=None, help="comma-separated owner/name (default: all)")
    parser.add_argument("--limit", type=int, default=None, help="first N tasks per repository")
    parser.add_argument("--work", type=Path, default=WORK, help="trees and stores (kept)")
    parser.add_argument("--no-write", action="store_true", help="print, do not write a report")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="take the tasks the same code already ran from the work's journal",
    )
    args = parser.parse_args(argv)
    started = time.monotonic()
    records, provenance = load_records(args.tasks)
    by_repo: dict[str, list[dict]] = {}
    for r in records:
        by_repo.setdefault(r["repo"], []).append(r)
    wanted = args.repos.split(",") if args.repos else list(by_repo)
    unknown = [repo for repo in wanted if repo not in by_repo]
    if unknown:
        parser.error(f"no tasks for {', '.join(unknown)} (known: {', '.join(by_repo)})")
    load_at_start = load_note()
    to_run, skipped = plan(by_repo, wanted, args.limit)
    journal = Journal(args.work / "journal.jsonl", args.resume)
    runs: dict[str, list[Result]] = {}
    for repo, tasks in to_run.items():
        runs[repo], failed = run_repo(repo, tasks, args.work, journal)
        skipped += failed
    results = [r for done in runs.values() for r in done]
    command = sys.argv[1:] if argv is None else list(argv)
    report: dict = {
        **run_facts(),
        "command": " ".join(["python -m benchmark.swebench_lite", *command]),
        "data": provenance,
        "resumed": len(journal.done),
        "all_tasks": len(records),
        "repos": {repo: summary(done) for repo, done in runs.items()},
        "overall": summary(results),
        "all_300": {r: metrics(results, r, out_of=len(records)) for r in RANKERS},
        "not_run": skipped,
        "gold_notes": gold_notes(results),
        "run_minutes": round((time.monotonic() - started) / 60, 1),
        "load": f"at the start {load_at_start}, at the end {load_note()}. Another engineer's "
        "benchmarks share this machine's 2 cores: the times are indicative, none is a target.",
        "tasks": [asdict(r) for r in results],
    }
    args.work.mkdir(parents=True, exist_ok=True)
    (args.work / "last-run.json").write_text(json.dumps(report, indent=1) + "\n")
    write_report("swebench-lite", report, markdown(report), write=not args.no_write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
