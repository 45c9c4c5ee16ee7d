"""Runtime evidence in the graph: a coverage data file with per-test contexts becomes, for each
test, the functions and methods it ran (the innermost one holding each executed line), stored
per repository and used by impact's tests to run beside the static call graph."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cartograph.impact.coverage import TestCoverage, read_coverage
from cartograph.query.common import check_repo
from cartograph.store.interfaces import Store
from cartograph.sync import now

RAN_KINDS = ("function", "method")


@dataclass(slots=True)
class CoverageImport:
    repo: str
    source: str
    commit: str  # the indexed commit the evidence is read against
    tests: int  # test contexts in the data file
    matched: int  # of them, tests the graph holds
    pairs: int  # (test, symbol) pairs stored
    symbols: int  # distinct symbols some test ran
    unmatched: list[str] = field(default_factory=list)  # contexts no test symbol matched (a few)


def import_coverage(store: Store, repo: str, data_file: str) -> CoverageImport:
    """Replace the repository's coverage evidence with what `data_file` recorded."""
    record = check_repo(store, repo)
    assert record is not None
    files = store.graph.files(repo)
    root = Path(record.root) if record.root else None
    recorded = read_coverage(Path(data_file), root, set(files))
    spans = store.graph.symbol_spans(
        repo, RAN_KINDS, sorted({p for test in recorded for p in test.lines})
    )
    modules = {r.module: path for path, r in files.items() if r.module}
    candidates = {test.context: _test_id(repo, test, files, modules) for test in recorded}
    known = store.graph.get_symbols({c for c in candidates.values() if c})
    pairs: set[tuple[str, str]] = set()
    unmatched: list[str] = []
    for test in recorded:
        test_id = candidates[test.context]
        if test_id not in known:
            unmatched.append(test.context)
            continue
        for path, lines in test.lines.items():
            pairs |= {(test_id, symbol) for symbol in _innermost(spans.get(path, []), lines)}
    source = f"{Path(data_file).name}, imported {now()}"
    stored = store.impact.set_coverage(repo, source, record.indexed_sha, pairs)
    return CoverageImport(
        repo,
        source,
        record.indexed_sha,
        len(recorded),
        len(recorded) - len(unmatched),
        stored,
        len({symbol for _test, symbol in pairs}),
        sorted(unmatched)[:20],
    )


def _test_id(repo: str, test: TestCoverage, files: dict, modules: dict[str, str]) -> str:
    """The id of the test symbol a context names ("" when no indexed file matches)."""
    if not test.dotted:
        if test.test_path is None or test.test_path not in files:
            return ""
        module = files[test.test_path].module
        qualname = f"{module}.{test.test_qualname}" if module else test.test_qualname
        return f"{repo}:{test.test_path}#{qualname}"
    name = test.test_qualname
    while "." in name:  # the longest module name the dotted context starts with
        name = name.rpartition(".")[0]
        if name in modules:
            return f"{repo}:{modules[name]}#{test.test_qualname}"
    return ""


def _innermost(spans: list[tuple[int, int, str]], lines: set[int]) -> set[str]:
    """The symbols that hold each line most closely."""
    found: set[str] = set()
    ordered = sorted(spans, key=lambda s: (s[0], -s[1]))
    for line in lines:
        best: tuple[int, int, str] | None = None
        for span in ordered:
            if span[0] > line:
                break
            if span[1] >= line and (best is None or span[0] >= best[0]):
                best = span
        if best is not None:
            found.add(best[2])
    return found
