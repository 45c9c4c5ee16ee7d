"""Impact that grades itself: merged changes of a real repository's history, replayed.

For each of the last N first-parent commits of the main branch that change the package's
source (a non-test .py file under src/<package>/ or <package>/) and a test file (tests/...),
the repository is indexed at the commit's first parent (one SQLite store, re-indexed
incrementally from change to change, history mined up to that parent: co-change knows the past
only), and `impact` is asked about the *source part* of the change alone — the patch `git diff
<parent> <commit> -- <changed source files>`. Its answer is graded against what the commit
itself did:

- tests: the test functions whose lines (decorators included) the commit's test-file diff
  touches, on either side, mapped with `ast` to the innermost enclosing test function. Tests
  the commit adds are counted apart (the graph at the parent cannot know them); recall is the
  share of the touched tests that existed at the parent which `impact`'s tests list. Suite
  fraction: the tests it selects over the tests pytest would collect at the parent
  (`test*` functions, and `test*` methods of `Test*` classes, of tests/**/test_*.py);
- co-change: the other files the commit changed that existed at the parent (tests, docs,
  CHANGES.rst — everything but the source files given to `impact`); hit@k: one of them among
  the first k files of `impact`'s `missing` (what usually changes with the diff but is not in
  it). History is mined for indexed files only, so the rates are also given over the changes
  with at least one indexed "other" file;
- will_break and the verdict (informational).

The history is a bare git mirror (`/work/.mirror/pallets+flask`, else click or werkzeug, or
`--mirror`); a clone sharing its objects is made under ~/.cache/cartograph/impact-history/.

    python -m benchmark.impact_history [--changes 40] [--mirror GIT_DIR] [--group year]
        [--also-without examples]

`--also-without examples` replays the same changes a second time with those top-level folders
left out of the checkout (a sparse checkout), as a second column: flask's examples/ hold
`tests/` folders of their own, whose modules have the same names as the package's tests.

Writes benchmark/results/impact-history-<date>.json and .md.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from benchmark.report import run_facts, write_report
from benchmark.run import _percentile

MIRRORS = Path("/work/.mirror")
MIRROR_NAMES = ("pallets+flask", "pallets+click", "pallets+werkzeug")
SCRATCH = Path.home() / ".cache" / "cartograph" / "impact-history"
REPO_NAME = "replayed"
HITS_AT = (5, 10)
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


# -- git -----------------------------------------------------------------------------------


def git(where: Path, *args: str, bare: bool = False) -> str:
    """The output of a git command in a work tree (or, `bare`, a git directory)."""
    place = [f"--git-dir={where}"] if bare else ["-C", str(where)]
    done = subprocess.run(
        ["git", *place, "-c", "core.quotepath=off", *args],
        capture_output=True,
        text=True,
        errors="surrogateescape",
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args[:3])}: {done.stderr.strip()[-500:]}")
    return done.stdout


def find_mirror() -> Path | None:
    """The first mirror there is: a folder holding HEAD and objects/, under one of the names."""
    for name in MIRROR_NAMES:
        for top in sorted(MIRRORS.glob(name + "*")):
            for candidate in (top, *sorted(p for p in top.glob("*") if p.is_dir())):
                if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
                    return candidate
    return None


def package_of(mirror: Path) -> str:
    """`flask` for /work/.mirror/pallets+flask/repo."""
    for part in reversed(mirror.parts):
        if "+" in part:
            return part.partition("+")[2].split(".")[0]
    return mirror.name


def work_tree(mirror: Path, scratch: Path, without: tuple[str, ...] = ()) -> Path:
    """A clone sharing the mirror's objects (made once, reused); `without`: top-level folders
    left out of its checkout (a sparse checkout: the index never sees them)."""
    suffix = "".join(f"-without-{folder.strip('/')}" for folder in without)
    root = scratch / f"{package_of(mirror)}{suffix}"
    if not (root / ".git").is_dir():
        shutil.rmtree(root, ignore_errors=True)
        scratch.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["git", "clone", "-q", "--shared", "--no-checkout", str(mirror), str(root)],
            check=True,
        )
    if without:
        patterns = ["/*", *(f"!/{folder.strip('/')}/" for folder in without)]
        git(root, "sparse-checkout", "set", "--no-cone", *patterns)
    else:
        git(root, "sparse-checkout", "disable")
    return root


def checkout(root: Path, sha: str) -> None:
    git(root, "checkout", "-q", "--detach", "-f", sha)
    git(root, "clean", "-q", "-fdx")


def show(root: Path, sha: str, path: str) -> str | None:
    """A file at a commit, or None when it is not there."""
    try:
        return git(root, "show", f"{sha}:{path}")
    except RuntimeError:
        return None


# -- choosing the changes ------------------------------------------------------------------


@dataclass(slots=True)
class FileChange:
    status: str  # A, M, D, R, C, T
    path: str  # the new path (the old one for a deletion)
    old_path: str | None  # None: added


@dataclass(slots=True)
class Candidate:
    sha: str
    parent: str
    date: str  # committer date, ISO
    subject: str
    merge: bool
    files: list[FileChange]
    source: list[FileChange]  # the package's non-test .py files
    tests: list[FileChange]  # files under tests/


def _name_status(text: str) -> list[FileChange]:
    changes = []
    for line in text.splitlines():
        fields = line.split("\t")
        status = fields[0][:1]
        if status in ("R", "C"):
            changes.append(FileChange(status, fields[2], fields[1]))
        elif status == "A":
            changes.append(FileChange(status, fields[1], None))
        elif fields[0]:
            changes.append(FileChange(status, fields[1], fields[1]))
    return changes


def is_source(path: str, package: str) -> bool:
    from cartograph.testlayout import is_conventional_test_path

    return (
        path.endswith(".py")
        and path.startswith((f"src/{package}/", f"{package}/"))
        and not is_conventional_test_path(path)
    )


def choose_changes(mirror: Path, package: str, count: int, branch: str) -> list[Candidate]:
    """The last `count` first-parent commits of `branch` that change the package's source and
    its tests, oldest first."""
    log = git(mirror, "log", "--first-parent", "--format=%H%x00%P%x00%cI%x00%s", branch, bare=True)
    chosen: list[Candidate] = []
    for line in log.splitlines():
        sha, parents, date, subject = line.split("\0", 3)
        if not parents:
            continue
        parent = parents.split()[0]
        files = _name_status(git(mirror, "diff", "--name-status", "-M", parent, sha, bare=True))
        source = [
            f for f in files if is_source(f.path, package) or is_source(f.old_path or "", package)
        ]
        tests = [
            f
            for f in files
            if f.path.startswith("tests/") or (f.old_path or "").startswith("tests/")
        ]
        if source and tests:
            chosen.append(
                Candidate(
                    sha, parent, date, subject, len(parents.split()) > 1, files, source, tests
                )
            )
            if len(chosen) == count:
                break
    return chosen[::-1]


# -- the tests a change touches ------------------------------------------------------------


def is_test_module(path: str) -> bool:
    name = path.rpartition("/")[2]
    return (
        path.startswith("tests/")
        and name.endswith(".py")
        and (name.startswith("test_") or name.endswith("_test.py"))
    )


def test_spans(source: str, collected_only: bool = False) -> list[tuple[int, int, str]]:
    """(first line, last line, qualname) of every test function of a module: `test*` functions
    at its top level and `test*` methods of its classes (nested classes too), decorators
    included in their lines. `collected_only`: classes named `Test*` only, as pytest does."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    spans: list[tuple[int, int, str]] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if node.name.startswith("test"):
                    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                    spans.append((first, node.end_lineno or node.lineno, prefix + node.name))
            elif isinstance(node, ast.ClassDef) and (
                not collected_only or node.name.startswith("Test")
            ):
                visit(node.body, f"{prefix}{node.name}.")

    visit(tree.body, "")
    return spans


def enclosing(spans: list[tuple[int, int, str]], line: int) -> str | None:
    """The innermost test function holding `line`."""
    holding = [(last - first, name) for first, last, name in spans if first <= line <= last]
    return min(holding)[1] if holding else None


def hunk_lines(diff: str) -> dict[tuple[str | None, str | None], tuple[set[int], set[int]]]:
    """(old path, new path) → (old lines removed, new lines added) of a `git diff -U0`."""
    files: dict[tuple[str | None, str | None], tuple[set[int], set[int]]] = {}
    old_path: str | None = None
    current: tuple[set[int], set[int]] | None = None
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            current, old_path = None, None
        elif line.startswith("--- "):
            old_path = None if line == "--- /dev/null" else line[4:].removeprefix("a/")
        elif line.startswith("+++ "):
            new_path = None if line == "+++ /dev/null" else line[4:].removeprefix("b/")
            current = files.setdefault((old_path, new_path), (set(), set()))
        elif current is not None and (match := HUNK.match(line)):
            old_start, old_count, new_start, new_count = match.groups()
            removed, added = int(old_count or 1), int(new_count or 1)
            current[0].update(range(int(old_start), int(old_start) + removed))
            current[1].update(range(int(new_start), int(new_start) + added))
    return files


@dataclass(slots=True)
class TouchedTests:
    modified: list[str] = field(default_factory=list)  # node ids at the parent
    added: list[str] = field(default_factory=list)  # node ids at the commit


def touched_tests(root: Path, change: Candidate) -> TouchedTests:
    """The test functions the commit edits (they existed at the parent) and adds."""
    diff = git(root, "diff", "-U0", "--no-color", "--no-ext-diff", "-M", change.parent,
               change.sha, "--", "tests/")  # fmt: skip
    found = TouchedTests()
    for (old_path, new_path), (removed, added) in sorted(
        hunk_lines(diff).items(), key=lambda item: str(item[0])
    ):
        if not new_path or not is_test_module(new_path):
            continue  # a deleted test module, conftest.py, a helper or data file
        new_spans = test_spans(show(root, change.sha, new_path) or "")
        old_source = show(root, change.parent, old_path) if old_path else None
        old_spans = test_spans(old_source or "")
        old_names = {name for _, _, name in old_spans}
        new_names = {name for _, _, name in new_spans}
        touched = {enclosing(new_spans, line) for line in added}
        touched |= {enclosing(old_spans, line) for line in removed} & new_names
        touched.discard(None)
        for name in sorted(n for n in touched if n is not None):
            if name in old_names and old_path:
                found.modified.append(f"{old_path}::{name.replace('.', '::')}")
            else:
                found.added.append(f"{new_path}::{name.replace('.', '::')}")
    return found


def suite(root: Path) -> set[str]:
    """The test node ids pytest would collect in the work tree (parametrisations folded)."""
    nodes: set[str] = set()
    for path in sorted((root / "tests").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if is_test_module(relative):
            text = path.read_text(encoding="utf-8", errors="replace")
            for _, _, name in test_spans(text, collected_only=True):
                nodes.add(f"{relative}::{name.replace('.', '::')}")
    return nodes


# -- one change ----------------------------------------------------------------------------


def source_patch(root: Path, change: Candidate) -> str:
    paths = sorted({p for f in change.source for p in (f.path, f.old_path) if p})
    return git(root, "diff", "--no-color", "--no-ext-diff", "-M", "--full-index",
               change.parent, change.sha, "--", *paths)  # fmt: skip


def grade(store, root: Path, change: Candidate, index_seconds: float) -> dict:
    """Ask `impact` about the source part of `change` (the store indexed at its parent) and
    grade the answer against the commit."""
    from cartograph.impact.report import impact

    tests = touched_tests(root, change)
    collected = suite(root)
    indexed = set(store.graph.files(REPO_NAME))
    source_paths = {p for f in change.source for p in (f.path, f.old_path) if p}
    others = sorted({f.old_path for f in change.files if f.old_path} - source_paths)
    indexed_others = [p for p in others if p in indexed]
    row: dict = {
        "sha": change.sha[:10],
        "date": change.date,
        "subject": change.subject,
        "merge": change.merge,
        "files": len(change.files),
        "source_files": sorted(source_paths),
        "others": others,
        "indexed_others": indexed_others,
        "tests_modified": tests.modified,
        "tests_added": tests.added,
        "suite": len(collected),
        "index_seconds": round(index_seconds, 2),
    }
    patch = source_patch(root, change)
    started = time.perf_counter()
    try:
        answer = impact(store, REPO_NAME, patch=patch)
    except Exception as exc:  # a failure is a finding of the run, not its end
        row.update(error=f"{type(exc).__name__}: {exc}", impact_seconds=None)
        return row
    row["impact_seconds"] = round(time.perf_counter() - started, 3)
    selected = {t.node for t in answer.tests}
    possibly = {t.node for t in answer.possible_tests} | selected  # "and N possibly" too
    found = [n for n in tests.modified if n in selected]
    found_possibly = [n for n in tests.modified if n in possibly]
    missing_files = [m.name for m in answer.missing if m.level == "file"]
    row.update(
        verdict=answer.verdict,
        changed=[f"{c.change} {c.kind} {c.qualname}" for c in answer.changed],
        class_body_changed=sum(
            1 for c in answer.changed if c.kind == "class" and c.change == "body"
        ),
        will_break=len(answer.will_break),
        will_break_callers=sorted({b.caller.qualname for b in answer.will_break})[:20],
        selected=answer.tests_total,
        selected_in_suite=len(selected & collected),
        recall=round(len(found) / len(tests.modified), 3) if tests.modified else None,
        tests_found=found,
        tests_missed=[n for n in tests.modified if n not in selected],
        suite_fraction=round(len(selected & collected) / len(collected), 4) if collected else None,
        possibly=len(answer.possible_tests),
        recall_possibly=round(len(found_possibly) / len(tests.modified), 3)
        if tests.modified
        else None,
        tests_missed_possibly=[n for n in tests.modified if n not in possibly],
        suite_fraction_possibly=round(len(possibly & collected) / len(collected), 4)
        if collected
        else None,
        missing_files=missing_files,
        missing_symbols=sum(1 for m in answer.missing if m.level == "symbol"),
        notes=answer.notes,
        not_applied=len(answer.files) - sum(1 for f in answer.files if f.indexed),
    )
    for k in HITS_AT:
        top = set(missing_files[:k])
        row[f"cochange_hit_at_{k}"] = bool(top & set(others)) if others else None
    row["cochange_hits"] = [
        [rank, path] for rank, path in enumerate(missing_files[:10], 1) if path in others
    ]
    top5 = missing_files[:5]
    row["cochange_precision_at_5"] = (
        round(len(set(top5) & set(others)) / len(top5), 3) if top5 else None
    )
    return row


# -- the run -------------------------------------------------------------------------------


def replay(
    mirror: Path,
    changes: list[Candidate],
    scratch: Path,
    workers: int | None,
    without: tuple[str, ...] = (),
    progress: Callable[[str], None] = print,
) -> tuple[list[dict], dict]:
    """Index at the first change's parent, then grade every change in order (re-indexing
    incrementally at each parent); the rows and how the first index went."""
    from cartograph.index import index_repository
    from cartograph.store.sqlite import open_sqlite

    root = work_tree(mirror, scratch, without)
    for stale in scratch.glob(f"{root.name}.db*"):
        stale.unlink()
    store = open_sqlite(scratch / f"{root.name}.db")
    setup: dict = {"work_tree": str(root), "without": list(without)}
    started = time.perf_counter()
    checkout(root, changes[0].parent)
    first = index_repository(store, root, name=REPO_NAME, workers=workers, history=True)
    setup["first_index_seconds"] = round(time.perf_counter() - started, 1)
    setup["first_index_files"] = first.files
    setup["first_mined_commits"] = first.history.commits if first.history else 0
    rows = []
    for number, change in enumerate(changes, 1):
        started = time.perf_counter()
        if number > 1:
            checkout(root, change.parent)
            index_repository(store, root, name=REPO_NAME, workers=workers, history=True)
        row = grade(store, root, change, time.perf_counter() - started if number > 1 else 0.0)
        rows.append(row)
        progress(
            f"[{number}/{len(changes)}{' without ' + ','.join(without) if without else ''}] "
            f"{change.sha[:10]} {change.date[:10]} recall={row.get('recall')} "
            f"selected={row.get('selected')} hit@5={row.get('cochange_hit_at_5')} "
            f"impact={row.get('impact_seconds')} s"
        )
    store.close()
    return rows, setup


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 3) if values else None


def _rate(flags: list[bool | None]) -> dict:
    known = [f for f in flags if f is not None]
    return {"rate": round(sum(known) / len(known), 3) if known else None, "of": len(known)}


def kind_of(path: str) -> str:
    """What a file is, for the co-change tallies."""
    if path.startswith("tests/"):
        return "test"
    if path.endswith(".py"):
        return "python"
    if path.endswith((".rst", ".md", ".txt")):
        return "docs"
    return "other"


def aggregate(rows: list[dict]) -> dict:
    graded = [r for r in rows if "error" not in r]
    recalls = [r["recall"] for r in graded if r["recall"] is not None]
    modified = sum(len(r["tests_modified"]) for r in graded)
    found = sum(len(r["tests_found"]) for r in graded)
    latencies = [r["impact_seconds"] for r in graded]
    with_indexed = [r for r in graded if r["indexed_others"]]
    fractions = [r["suite_fraction"] for r in graded if r["suite_fraction"] is not None]
    precisions = [r["cochange_precision_at_5"] for r in graded]
    out = {
        "changes": len(rows),
        "errors": len(rows) - len(graded),
        "with_modified_tests": len(recalls),
        "tests_modified": modified,
        "tests_added": sum(len(r["tests_added"]) for r in graded),
        "recall_mean": _mean(recalls),
        "recall_median": round(statistics.median(recalls), 3) if recalls else None,
        "recall_pooled": round(found / modified, 3) if modified else None,
        "recall_possibly_mean": _mean(
            [r["recall_possibly"] for r in graded if r["recall_possibly"] is not None]
        ),
        "recall_possibly_pooled": round(
            (modified - sum(len(r["tests_missed_possibly"]) for r in graded)) / modified, 3
        )
        if modified
        else None,
        "suite_fraction_possibly_mean": _mean(
            [
                r["suite_fraction_possibly"]
                for r in graded
                if r["suite_fraction_possibly"] is not None
            ]
        ),
        "possibly_mean": _mean([r["possibly"] for r in graded]),
        "recall_perfect": sum(1 for v in recalls if v == 1.0),
        "recall_zero": sum(1 for v in recalls if v == 0.0),
        "suite_fraction_mean": _mean(fractions),
        "suite_fraction_median": round(statistics.median(fractions), 4) if fractions else None,
        "selected_mean": _mean([r["selected"] for r in graded]),
        "selected_none": sum(1 for r in graded if not r["selected"]),
        # what a random pick of as many tests would find, on the changes recall is graded on
        "suite_fraction_mean_graded": _mean(
            [r["suite_fraction"] for r in graded if r["recall"] is not None]
        ),
        "class_body_changes": sum(1 for r in graded if r["class_body_changed"]),
        "suite_fraction_mean_class_body": _mean(
            [r["suite_fraction"] for r in graded if r["class_body_changed"]]
        ),
        "frequent_others": [
            [path, count, any(path in r["indexed_others"] for r in graded)]
            for path, count in Counter(p for r in graded for p in r["others"]).most_common(5)
        ],
        "others_files": sum(len(r["others"]) for r in graded),
        "others_indexed_files": sum(len(r["indexed_others"]) for r in graded),
        "others_kinds": dict(Counter(kind_of(p) for r in graded for p in r["others"])),
        "hit_kinds_at_10": dict(
            Counter(kind_of(path) for r in graded for _rank, path in r["cochange_hits"])
        ),
        "missing_empty": sum(1 for r in graded if not r["missing_files"]),
        "cochange_precision_at_5_mean": _mean([p for p in precisions if p is not None]),
        "verdicts": dict(Counter(r["verdict"] for r in graded)),
        "will_break_total": sum(r["will_break"] for r in graded),
        "will_break_changes": sum(1 for r in graded if r["will_break"]),
        "impact_p50_s": round(_percentile(latencies, 50), 3),
        "impact_p95_s": round(_percentile(latencies, 95), 3),
        "impact_max_s": round(max(latencies), 3) if latencies else None,
        "index_step_p50_s": round(
            _percentile([r["index_seconds"] for r in rows if r["index_seconds"]], 50), 2
        ),
    }
    for k in HITS_AT:
        out[f"cochange_hit_at_{k}"] = _rate([r[f"cochange_hit_at_{k}"] for r in graded])
        out[f"cochange_hit_at_{k}_indexed"] = _rate(
            [r[f"cochange_hit_at_{k}"] for r in with_indexed]
        )
    return out


def period(date: str, group: str) -> str:
    year, month = date[:4], int(date[5:7])
    return year if group == "year" else f"{year}-Q{(month - 1) // 3 + 1}"


def over_time(rows: list[dict], group: str) -> dict[str, dict]:
    periods: dict[str, list[dict]] = {}
    for row in rows:
        periods.setdefault(period(row["date"], group), []).append(row)
    return {key: aggregate(members) for key, members in sorted(periods.items())}


# -- the report ----------------------------------------------------------------------------


def _cell(value: object, percent: bool = False) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if percent and isinstance(value, float | int):
        return f"{value:.0%}" if value >= 0.01 or value == 0 else f"{value:.1%}"
    return str(value)


def _hit(rate: dict) -> str:
    return f"{_cell(rate['rate'], True)} (of {rate['of']})"


def _tally(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))


AGGREGATE_ROWS: list[tuple[str, Callable[[dict], str]]] = [
    ("changes graded (errors)", lambda t: f"{t['changes']} ({t['errors']})"),
    (
        "with edited pre-existing tests",
        lambda t: (
            f"{t['with_modified_tests']} ({t['tests_modified']} tests edited; "
            f"{t['tests_added']} added, not graded)"
        ),
    ),
    (
        "test recall, mean / median",
        lambda t: f"{_cell(t['recall_mean'], True)} / {_cell(t['recall_median'], True)}",
    ),
    ("test recall, pooled over all edited tests", lambda t: _cell(t["recall_pooled"], True)),
    (
        "changes with recall 100 % / 0 %",
        lambda t: f"{t['recall_perfect']} / {t['recall_zero']}",
    ),
    (
        'with the "possibly reached" tests too: recall mean / pooled, suite fraction mean',
        lambda t: (
            f"{_cell(t['recall_possibly_mean'], True)} / "
            f"{_cell(t['recall_possibly_pooled'], True)}, "
            f"{_cell(t['suite_fraction_possibly_mean'], True)} (+{t['possibly_mean']} tests a change)"
        ),
    ),
    (
        "tests selected, mean (changes selecting none)",
        lambda t: f"{t['selected_mean']} ({t['selected_none']})",
    ),
    (
        "suite fraction selected, mean / median",
        lambda t: (
            f"{_cell(t['suite_fraction_mean'], True)} / {_cell(t['suite_fraction_median'], True)}"
        ),
    ),
    (
        "random pick of as many tests: expected recall (mean suite fraction, graded changes)",
        lambda t: _cell(t["suite_fraction_mean_graded"], True),
    ),
    (
        "changes where a class counts as changed in its body (their mean suite fraction)",
        lambda t: f"{t['class_body_changes']} ({_cell(t['suite_fraction_mean_class_body'], True)})",
    ),
    ("co-change hit@5", lambda t: _hit(t["cochange_hit_at_5"])),
    ("co-change hit@10", lambda t: _hit(t["cochange_hit_at_10"])),
    (
        "co-change precision@5, mean (`missing` not empty)",
        lambda t: _cell(t["cochange_precision_at_5_mean"], True),
    ),
    ("hits in the first 10, by kind", lambda t: _tally(t["hit_kinds_at_10"]) or "-"),
    (
        "other files changed (indexed)",
        lambda t: f"{t['others_files']} ({t['others_indexed_files']}): {_tally(t['others_kinds'])}",
    ),
    (
        "other files changed most often (changes; indexed?)",
        lambda t: ", ".join(
            f"{path} ({n}; {'yes' if indexed else 'no'})"
            for path, n, indexed in t["frequent_others"]
        ),
    ),
    ("`missing` empty", lambda t: f"{t['missing_empty']} of {t['changes'] - t['errors']}"),
    (
        "will_break: changes / callers",
        lambda t: f"{t['will_break_changes']} / {t['will_break_total']}",
    ),
    ("verdicts", lambda t: _tally(t["verdicts"])),
    (
        "impact latency p50 / p95 / max",
        lambda t: f"{t['impact_p50_s']} s / {t['impact_p95_s']} s / {t['impact_max_s']} s",
    ),
    ("re-index between changes, p50", lambda t: f"{t['index_step_p50_s']} s"),
]


def to_markdown(report: dict) -> str:
    totals, setup = report["aggregate"], report["setup"]
    runs = [("full tree", totals)]
    other = report.get("counterfactual")
    if other:
        runs.append((f"without {', '.join(other['setup']['without'])}/", other["aggregate"]))
    first, last = report["changes"][0]["date"][:10], report["changes"][-1]["date"][:10]
    lines = [
        f"# Impact that grades itself — {report['date']}",
        "",
        f"Commit {report['commit']}"
        + (
            f" with uncommitted changes to platform/ (fingerprint {report['code_fingerprint']})"
            if report["dirty"]
            else ""
        )
        + " "
        f"· {report['machine']} · repository {report['repository']} (branch {report['branch']}, "
        f"mirror head {report['mirror_head'][:10]}) · the last {totals['changes']} "
        f"first-parent commits that change src/{report['repository']}/ and tests/, {first} to "
        f"{last} · whole run {report['run_seconds']} s.",
        "",
        "How: the repository is indexed into one SQLite store at each commit's first parent "
        "(history mined up to it; re-indexed incrementally from change to change), then "
        "`impact(store, repo, patch=...)` is asked about the commit's *source part only* (`git "
        "diff parent commit -- <changed package .py files>`), in-process, timed around the "
        "call. Tests: the test functions whose lines (decorators included) the commit's own "
        "test diff touches, found with `ast`; tests the commit adds are left out of recall "
        "(they do not exist at the parent). Recall and suite fraction are measured on "
        "`impact`'s tests to run, and again with its *possibly reached* tests added (those "
        "whose surest path is below its confidence floor). Suite: the test functions pytest would collect in "
        "tests/ at the parent; *selected* counts every test `impact` lists (examples/ tests "
        "too), the suite fraction only those of the suite. Co-change: the other files the "
        "commit changed that existed at the parent (tests, docs, CHANGES.rst, ...) against the "
        "file-level `missing`; history is mined for indexed files only, so docs and "
        "CHANGES.rst can never be named. "
        f"First index {setup['first_index_seconds']} s ({setup['first_index_files']} files, "
        f"{setup['first_mined_commits']} commits mined).",
    ]
    if other:
        lines += [
            "",
            f"The second column replays the same changes with {', '.join(other['setup']['without'])}/ "
            "left out of the checkout (a sparse checkout: the index never sees it): whether "
            "the examples' own `tests/` folders (their module names are also `tests.*`) change "
            "what `impact` answers for the package's tests.",
        ]
    lines += [
        "",
        "## Aggregate",
        "",
        "| measure | " + " | ".join(label for label, _ in runs) + " |",
        "|---|" + "---|" * len(runs),
    ]
    for label, cell in AGGREGATE_ROWS:
        lines.append(f"| {label} | " + " | ".join(cell(t) for _, t in runs) + " |")
    lines += [
        "",
        f"## Over time (by {report['group']}, full tree)",
        "",
        "| period | changes | recall mean | recall pooled | suite fraction | hit@5 | hit@10 "
        "| missing empty | impact p50 s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for key, part in report["over_time"].items():
        lines.append(
            f"| {key} | {part['changes']} | {_cell(part['recall_mean'], True)} "
            f"| {_cell(part['recall_pooled'], True)} | {_cell(part['suite_fraction_mean'], True)} "
            f"| {_hit(part['cochange_hit_at_5'])} | {_hit(part['cochange_hit_at_10'])} "
            f"| {part['missing_empty']} | {part['impact_p50_s']} |"
        )
    without = {r["sha"]: r for r in other["changes"]} if other else {}
    lines += [
        "",
        "## Per change (full tree)",
        "",
        "| date | sha | subject | files | tests edited / added | selected (+possibly) "
        "| recall (with possibly) "
        + ("| recall w/o | " if other else "| ")
        + "suite | hit@5 | verdict | will break | impact s |",
        "|---|---|---|---|---|---|---|" + ("---|" if other else "") + "---|---|---|---|---|",
    ]
    for row in report["changes"]:
        subject = row["subject"][:60].replace("|", "\\|")
        head = (
            f"| {row['date'][:10]} | {row['sha']} | {subject} | {row['files']} "
            f"({len(row['source_files'])} src) "
            f"| {len(row['tests_modified'])} / {len(row['tests_added'])} "
        )
        if "error" in row:
            lines.append(head + f"| error: {row['error'][:80]} |")
            continue
        alt = without.get(row["sha"], {})
        lines.append(
            head + f"| {row['selected']} (+{row['possibly']}) | {_cell(row['recall'], True)} "
            f"({_cell(row['recall_possibly'], True)}) "
            + (f"| {_cell(alt.get('recall'), True)} " if other else "")
            + f"| {_cell(row['suite_fraction'], True)} | {_cell(row['cochange_hit_at_5'])} "
            f"| {row['verdict']} | {row['will_break']} | {row['impact_seconds']} |"
        )
    missed = [r for r in report["changes"] if r.get("tests_missed")]
    if missed:
        lines += ["", "## Edited tests `impact` did not select (full tree)", ""]
        for row in missed:
            shown = ", ".join(f"`{n}`" for n in row["tests_missed"][:6])
            more = len(row["tests_missed"]) - 6
            alt = without.get(row["sha"], {})
            also = (
                f" — without {', '.join(other['setup']['without'])}/: "
                f"{len(alt.get('tests_missed', []))} missed"
                if other
                else ""
            )
            lines.append(
                f"- {row['sha']} ({len(row['changed'])} symbols changed{also}): {shown}"
                + (f" and {more} more" if more > 0 else "")
            )
    lines.append("")
    return "\n".join(lines)


def code_state(checkout_root: Path) -> tuple[bool, str]:
    """Whether platform/ (the code measured) differs from the commit, and a short hash of
    what it holds then (tracked changes and untracked files): the tree can move between runs."""
    status = git(checkout_root, "status", "--porcelain", "--untracked-files=all", "--", "platform")
    digest = hashlib.sha256(git(checkout_root, "diff", "HEAD", "--", "platform").encode())
    for line in sorted(status.splitlines()):
        if line.startswith("??"):
            path = checkout_root / line[3:]
            digest.update(line.encode() + (path.read_bytes() if path.is_file() else b""))
    return bool(status.strip()), digest.hexdigest()[:12]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Impact graded against real merged changes")
    parser.add_argument("--changes", type=int, default=40, help="how many changes to replay")
    parser.add_argument("--mirror", type=Path, help="a bare git directory (default: found)")
    parser.add_argument("--scratch", type=Path, default=SCRATCH)
    parser.add_argument("--workers", type=int, default=1, help="index parse workers")
    parser.add_argument("--group", choices=("year", "quarter"), default="year")
    parser.add_argument(
        "--also-without",
        default="",
        help="replay again with these top-level folders (comma-separated) left out of the "
        "checkout, as a second column (e.g. examples)",
    )
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    mirror = args.mirror or find_mirror()
    if mirror is None:
        names = ", ".join(f"{MIRRORS}/{n}*" for n in MIRROR_NAMES)
        print(f"no git mirror found ({names}): there is no history to replay", file=sys.stderr)
        return 2
    facts = run_facts()
    dirty, fingerprint = code_state(Path(__file__).resolve().parent.parent)
    package = package_of(mirror)
    branch = git(mirror, "symbolic-ref", "--short", "HEAD", bare=True).strip() or "main"
    changes = choose_changes(mirror, package, args.changes, branch)
    if not changes:
        print(f"no commit of {mirror} changes src/{package}/ and tests/", file=sys.stderr)
        return 2

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    started = time.perf_counter()
    rows, setup = replay(mirror, changes, args.scratch, args.workers, progress=progress)
    report: dict = {
        **facts,
        "dirty": dirty,
        "code_fingerprint": fingerprint,
        "repository": package,
        "mirror": str(mirror),
        "branch": branch,
        "mirror_head": git(mirror, "rev-parse", branch, bare=True).strip(),
        "group": args.group,
        "setup": setup,
        "run_seconds": round(time.perf_counter() - started, 1),
        "aggregate": aggregate(rows),
        "over_time": over_time(rows, args.group),
        "changes": rows,
    }
    without = tuple(f for f in args.also_without.split(",") if f.strip())
    if without:
        other_rows, other_setup = replay(
            mirror, changes, args.scratch, args.workers, without, progress=progress
        )
        report["counterfactual"] = {
            "setup": other_setup,
            "aggregate": aggregate(other_rows),
            "over_time": over_time(other_rows, args.group),
            "changes": other_rows,
        }
        report["run_seconds"] = round(time.perf_counter() - started, 1)
    report["chosen"] = [
        {"sha": c.sha, "parent": c.parent, "files": [asdict(f) for f in c.files]} for c in changes
    ]
    write_report("impact-history", report, to_markdown(report), write=not args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
