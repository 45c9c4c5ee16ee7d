"""Runtime evidence for test selection: which lines each test executed, read from a coverage.py
data file recorded with per-test contexts (`pytest --cov --cov-context=test`, or coverage.py's
`[run] dynamic_context = test_function`).

The data file is an SQLite database in coverage.py's schema version 7 (tables `coverage_schema`,
`meta`, `file`, `context`, `line_bits`, `arc`, `tracer`); it is read with sqlite3, without
importing coverage.py. Measured lines are in `line_bits` as numbits (bit i of byte b set: line
b*8+i ran); with branch coverage on they are in `arc` instead, as from/to line pairs (a negative
number is a code object's entry or exit, not a line).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from cartograph.errors import CartographError, ErrorKind

SCHEMA_VERSION = 7  # the coverage.py data schema this module reads (coverage.py 7 writes it)

PHASES = ("setup", "run", "teardown")  # the "|phase" suffixes of pytest-cov's test contexts

# for each byte value, the bit positions that are set
_BITS: tuple[tuple[int, ...], ...] = tuple(
    tuple(bit for bit in range(8) if byte >> bit & 1) for byte in range(256)
)

_PARTS = re.compile(r"[\\/]+")


class CoverageError(CartographError):
    """A coverage data file that cannot serve as per-test evidence."""

    kind = ErrorKind.INVALID


@dataclass(slots=True)
class TestCoverage:
    """What one test executed. Its pytest-cov phases (setup, run, teardown) are merged, so
    the lines its fixtures ran count for it."""

    __test__: ClassVar[bool] = False  # not a pytest test class

    # as recorded, less pytest-cov's "|phase": "tests/test_a.py::TestX::test_y[1]", or a
    # test_function context such as "test_a.TestX.test_y"
    context: str
    # the repository-relative path of the test's file when the context names it (pytest-cov),
    # else None
    test_path: str | None
    # "TestX.test_y": pytest-cov's node id after the path, "::" as ".", parameter ids dropped;
    # or, when `dotted`, the test_function context as recorded ("test_a.TestX.test_y")
    test_qualname: str
    dotted: bool  # test_qualname is a test_function context (module-qualified, dotted)
    lines: dict[str, set[int]] = field(default_factory=dict)  # repo-relative path -> lines


def read_coverage(
    data_file: Path, repo_root: Path | None, known_paths: Collection[str]
) -> list[TestCoverage]:
    """Every test in `data_file` with the lines it executed, by repository-relative path,
    ordered by context. Lines measured outside any test (the empty context) are left out.

    A measured path maps to the repository relative to `repo_root` when it lies under it
    (symlinks resolved), else to the longest suffix of it in `known_paths`; one that maps to
    neither is dropped. Raises CoverageError when the file is not a coverage.py data file of
    schema version 7 recorded with per-test contexts.
    """
    known = known_paths if isinstance(known_paths, set | frozenset) else frozenset(known_paths)
    conn = _open(data_file)
    try:
        tests = _read(conn, data_file, repo_root, known)
    except sqlite3.DatabaseError as exc:
        raise CoverageError(
            f"{data_file} is not a readable coverage.py data file ({exc}): record it again "
            "with pytest --cov --cov-context=test"
        ) from exc
    finally:
        conn.close()
    return tests


def numbits_to_lines(numbits: bytes) -> set[int]:
    """The line numbers a numbits blob holds (line 0, which coverage.py may record for an
    empty module, left out)."""
    lines: set[int] = set()
    for index, byte in enumerate(numbits):
        if byte:
            base = index * 8
            lines.update(base + bit for bit in _BITS[byte])
    lines.discard(0)
    return lines


def parse_context(context: str) -> tuple[str, str | None, str, bool]:
    """A recorded context as (test context, test file path or None, qualname, dotted).

    pytest-cov: "tests/t.py::TestX::test_y[a::b]|run" -> ("tests/t.py::TestX::test_y[a::b]",
    "tests/t.py", "TestX.test_y", False). Anything else is a test_function context, kept
    whole: "t.TestX.test_y" -> ("t.TestX.test_y", None, "t.TestX.test_y", True).
    """
    test, bar, phase = context.rpartition("|")
    if not (bar and phase in PHASES):
        test = context
        if "::" not in test:
            return test, None, test, True
    path, _, rest = test.partition("::")
    # names hold no "[", so the first one opens the parameter ids (which may hold "::")
    bracket = rest.find("[")
    if bracket >= 0 and rest.endswith("]"):
        rest = rest[:bracket]
    return test, path, rest.replace("::", "."), False


def _open(data_file: Path) -> sqlite3.Connection:
    if not data_file.is_file():
        raise CoverageError(f"no coverage data file at {data_file}", ErrorKind.NOT_FOUND)
    try:
        return sqlite3.connect(f"{data_file.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise CoverageError(f"cannot open the coverage data file {data_file}: {exc}") from exc


def _read(
    conn: sqlite3.Connection, data_file: Path, repo_root: Path | None, known: Collection[str]
) -> list[TestCoverage]:
    try:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as exc:
        raise CoverageError(
            f"{data_file} is not a coverage.py data file: it is not an SQLite database"
        ) from exc
    if not {"coverage_schema", "file", "context"} <= tables:
        raise CoverageError(
            f"{data_file} is not a coverage.py data file: it has no coverage_schema, file "
            "and context tables"
        )
    _check_schema(conn, data_file, tables)

    tests: dict[str, TestCoverage] = {}
    by_context_id: dict[int, TestCoverage] = {}
    test_files = _TestFiles(known)
    for context_id, context in conn.execute("SELECT id, context FROM context"):
        if not context:
            continue
        key, test_path, qualname, dotted = parse_context(context)
        test = tests.get(key)
        if test is None:
            if test_path is not None:
                test_path = test_files.repository_path(test_path)
            test = tests[key] = TestCoverage(key, test_path, qualname, dotted)
        by_context_id[context_id] = test
    if not tests:
        raise CoverageError(
            f"{data_file} was recorded without per-test contexts: run pytest with "
            "--cov-context=test (or set coverage.py's [run] dynamic_context = test_function)"
        )

    roots = _roots(repo_root)
    paths: dict[int, str] = {}
    for file_id, measured in conn.execute("SELECT id, path FROM file"):
        path = _map_path(measured, roots, repo_root, known)
        if path is not None:
            paths[file_id] = path

    for file_id, context_id, numbits in conn.execute(
        "SELECT file_id, context_id, numbits FROM line_bits"
    ):
        _add(by_context_id, paths, context_id, file_id, numbits_to_lines(numbits))
    if "arc" in tables:
        rows = conn.execute(
            "SELECT file_id, context_id, fromno FROM arc WHERE fromno > 0"
            " UNION SELECT file_id, context_id, tono FROM arc WHERE tono > 0"
        )
        for file_id, context_id, line in rows:
            _add(by_context_id, paths, context_id, file_id, (line,))
    return [tests[key] for key in sorted(tests)]


def _check_schema(conn: sqlite3.Connection, data_file: Path, tables: set[str]) -> None:
    row = conn.execute("SELECT version FROM coverage_schema").fetchone()
    version = row[0] if row else None
    if version == SCHEMA_VERSION and "line_bits" in tables:
        return
    writer = ""
    if "meta" in tables:
        meta = conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
        if meta:
            writer = f", written by coverage.py {meta[0]}"
    raise CoverageError(
        f"{data_file} has coverage.py data schema version {version}{writer}; Cartograph "
        f"reads version {SCHEMA_VERSION}: record it again with coverage.py 7"
    )


def _add(
    by_context_id: dict[int, TestCoverage],
    paths: dict[int, str],
    context_id: int,
    file_id: int,
    lines: Iterable[int],
) -> None:
    test = by_context_id.get(context_id)
    path = paths.get(file_id)
    if test is None or path is None:
        return
    test.lines.setdefault(path, set()).update(lines)


def _roots(repo_root: Path | None) -> list[Path]:
    if repo_root is None:
        return []
    roots = [repo_root.absolute()]
    resolved = repo_root.resolve()
    if resolved != roots[0]:
        roots.append(resolved)
    return roots


def _map_path(
    measured: str, roots: list[Path], repo_root: Path | None, known: Collection[str]
) -> str | None:
    """A measured file's repository-relative path, or None when it is not the repository's."""
    path = Path(measured)
    if roots and path.is_absolute():
        for candidate in (path, path.resolve()):
            for root in roots:
                if candidate.is_relative_to(root):
                    return candidate.relative_to(root).as_posix()
    parts = [part for part in _PARTS.split(measured) if part]
    drive = bool(parts) and parts[0].endswith(":")  # recorded on Windows
    if drive:
        del parts[0]
    for start in range(len(parts)):  # the longest suffix first
        suffix = "/".join(parts[start:])
        if suffix in known:
            return suffix
    # coverage.py's relative_files: relative to where it ran, most likely the repository
    relative = not (drive or path.is_absolute() or ".." in parts)
    if relative and repo_root is not None and (repo_root / "/".join(parts)).is_file():
        return "/".join(parts)
    return None


class _TestFiles:
    """Maps a node id's test file, relative to pytest's rootdir, to a repository path."""

    def __init__(self, known: Collection[str]) -> None:
        self.known = known
        self.by_name: dict[str, list[str]] | None = None  # file name -> known paths
        self.mapped: dict[str, str] = {}

    def repository_path(self, path: str) -> str:
        """The path itself when indexed (or not otherwise known); else the one indexed path
        that ends with it (pytest's rootdir a subfolder of the repository)."""
        mapped = self.mapped.get(path)
        if mapped is None:
            mapped = self.mapped[path] = self._map(path.replace("\\", "/"))
        return mapped

    def _map(self, path: str) -> str:
        if path in self.known:
            return path
        if self.by_name is None:
            self.by_name = {}
            for candidate in self.known:
                self.by_name.setdefault(candidate.rpartition("/")[2], []).append(candidate)
        tail = "/" + path
        matches = [c for c in self.by_name.get(tail.rpartition("/")[2], ()) if c.endswith(tail)]
        return matches[0] if len(matches) == 1 else path
