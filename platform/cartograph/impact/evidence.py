"""Runtime evidence in the graph: a coverage data file with per-test contexts becomes, for each
test, the functions and methods it ran (the innermost one holding each executed line), stored
per repository and used by impact's tests to run beside the static call graph."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cartograph.impact.coverage import CoverageData, CoverageError, TestCoverage
from cartograph.query.common import check_repo
from cartograph.store.interfaces import Store
from cartograph.sync import now

RAN_KINDS = ("function", "method")


MAX_PAIRS = 5_000_000  # (test, symbol) pairs one import may store


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
    notes: list[str] = field(default_factory=list)  # what was skipped and why


def import_coverage(store: Store, repo: str, data_file: str) -> CoverageImport:
    """Replace the repository's coverage evidence with what `data_file` recorded. The file is
    streamed: each row's lines become the symbols holding them as it is read, and only lines
    inside an indexed function or method are decoded (`coverage.Limits` bounds the rest)."""
    record = check_repo(store, repo)
    assert record is not None
    files = store.graph.files(repo)
    root = Path(record.root) if record.root else None
    with CoverageData(Path(data_file), root, set(files)) as data:
        recorded = data.ordered()
        spans = store.graph.symbol_spans(repo, RAN_KINDS, sorted(set(data.paths.values())))
        tables = {path: _innermost_table(found) for path, found in spans.items()}
        modules = {r.module: path for path, r in files.items() if r.module}
        candidates = {test.context: _test_id(repo, test, files, modules) for test in recorded}
        known = store.graph.get_symbols({c for c in candidates.values() if c})
        ran: dict[str, set[str]] = {}
        pairs = 0
        for test, path, lines in data.rows(lambda path: len(tables.get(path, ())) - 1):
            test_id = candidates[test.context]
            if test_id not in known:
                continue
            table = tables[path]
            symbols = ran.setdefault(test_id, set())
            before = len(symbols)
            symbols.update(s for s in map(table.__getitem__, lines) if s is not None)
            pairs += len(symbols) - before
            if pairs > MAX_PAIRS:
                raise CoverageError(
                    f"{data_file} records more than {MAX_PAIRS:,} (test, function) pairs: "
                    "Cartograph keeps no more for one repository"
                )
        notes = data.notes
    unmatched = [test.context for test in recorded if candidates[test.context] not in known]
    source = f"{Path(data_file).name}, imported {now()}"
    stored = store.impact.set_coverage(
        repo,
        source,
        record.indexed_sha,
        ((test_id, symbol) for test_id, symbols in ran.items() for symbol in symbols),
    )
    return CoverageImport(
        repo,
        source,
        record.indexed_sha,
        len(recorded),
        len(recorded) - len(unmatched),
        stored,
        len(set().union(*ran.values())),
        sorted(unmatched)[:20],
        notes,
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


def _innermost_table(spans: list[tuple[int, int, str]]) -> list[str | None]:
    """For each line of a file (index 0 unused), the symbol that holds it most closely: the
    spans painted outermost first, so an inner one overwrites the lines of its parent."""
    table: list[str | None] = [None] * (max((end for _s, end, _i in spans), default=0) + 1)
    for start, end, symbol in sorted(spans, key=lambda s: (s[0], -s[1])):
        table[max(start, 1) : end + 1] = [symbol] * (end + 1 - max(start, 1))
    return table
