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
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
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


@dataclass(frozen=True, slots=True)
class Limits:
    """What one coverage data file may hold. The file is read in one pass (rows are streamed,
    never all held), and a file past a limit is refused with a CoverageError that names it;
    a measured path or a context longer than `chars` is skipped with a note."""

    file_bytes: int = 2 << 30  # the data file's size
    blob_bytes: int = 1 << 20  # one numbits blob: lines up to 8,388,607 (SQLite refuses more)
    tests: int = 500_000  # test contexts (phases of one test count once)
    files: int = 200_000  # measured files
    rows: int = 50_000_000  # line_bits and arc rows
    lines: int = 20_000_000  # lines decoded when each is kept (read_coverage), all rows
    chars: int = 4_096  # a measured path, a context (longer ones are skipped)
    seconds: float = 600.0  # the whole read


LIMITS = Limits()


def read_coverage(
    data_file: Path,
    repo_root: Path | None,
    known_paths: Collection[str],
    limits: Limits = LIMITS,
) -> list[TestCoverage]:
    """Every test in `data_file` with the lines it executed, by repository-relative path,
    ordered by context. Lines measured outside any test (the empty context) are left out.

    A measured path maps to the repository relative to `repo_root` when it lies under it
    (symlinks resolved), else to the longest suffix of it in `known_paths`; one that maps to
    neither is dropped. Raises CoverageError when the file is not a coverage.py data file of
    schema version 7 recorded with per-test contexts, or holds more than `limits` allow.
    """
    with CoverageData(data_file, repo_root, known_paths, limits) as data:
        for test, path, lines in data.rows():
            test.lines.setdefault(path, set()).update(lines)
        return data.ordered()


class CoverageData:
    """An open coverage data file (a context manager): its tests and the repository paths of
    its measured files, checked and read on opening; `rows()` then streams what each test
    ran, file by file. `notes` says what was skipped and why."""

    def __init__(
        self,
        data_file: Path,
        repo_root: Path | None,
        known_paths: Collection[str],
        limits: Limits = LIMITS,
    ) -> None:
        self.data_file = data_file
        self.limits = limits
        self.notes: list[str] = []
        self.tests: dict[str, TestCoverage] = {}
        self.by_context_id: dict[int, TestCoverage] = {}
        self.paths: dict[int, str] = {}
        self.deadline = time.monotonic() + limits.seconds
        self.tables: set[str] = set()
        known = known_paths if isinstance(known_paths, set | frozenset) else frozenset(known_paths)
        self.conn = _open(data_file, limits, self.deadline)
        try:
            with self._reading():
                self.tables = _checked_tables(self.conn, data_file)
                _check_schema(self.conn, data_file, self.tables)
                self.conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, limits.blob_bytes)
                self._read_contexts(known)
                self._read_files(repo_root, known)
        except BaseException:
            self.conn.close()
            raise

    def __enter__(self) -> CoverageData:
        return self

    def __exit__(self, *exc: object) -> None:
        self.conn.close()

    def ordered(self) -> list[TestCoverage]:
        """The tests, ordered by context."""
        return [self.tests[key] for key in sorted(self.tests)]

    def rows(self, extent: Callable[[str], int] | None = None) -> Iterator[RanRow]:
        """What each test ran, a row at a time: (test, repository path, lines). `extent`
        gives a path's last line that matters (lines past it are never decoded); rows of
        files that map to no repository path, and of the empty context, are passed over."""
        limits = self.limits
        count = decoded = 0
        self._check_deadline()
        with self._reading():
            selects = ["SELECT file_id, context_id, numbits, NULL, NULL FROM line_bits"]
            if "arc" in self.tables:
                selects.append("SELECT file_id, context_id, NULL, fromno, tono FROM arc")
            for select in selects:
                for file_id, context_id, numbits, fromno, tono in self.conn.execute(select):
                    count += 1
                    if count > limits.rows:
                        raise CoverageError(
                            f"{self.data_file} holds more than {limits.rows:,} rows of "
                            "measured lines: Cartograph reads no more from one file"
                        )
                    if not count % 4096:
                        self._check_deadline()
                    test = self.by_context_id.get(context_id)
                    path = self.paths.get(file_id)
                    if test is None or path is None:
                        continue
                    last = extent(path) if extent is not None else None
                    if numbits is not None:
                        if not isinstance(numbits, bytes):
                            continue
                        if last is not None:
                            numbits = numbits[: last // 8 + 1]
                        else:  # every line is kept: count them before they are decoded
                            decoded += int.from_bytes(numbits, "little").bit_count()
                            if decoded > limits.lines:
                                raise CoverageError(
                                    f"{self.data_file} holds more than {limits.lines:,} "
                                    "measured lines: Cartograph reads no more from one file"
                                )
                        lines: Iterable[int] = numbits_to_lines(numbits)
                    else:
                        lines = [n for n in (fromno, tono) if isinstance(n, int) and n > 0]
                    if last is not None:
                        lines = [n for n in lines if n <= last]
                    if lines:
                        yield test, path, lines

    def _read_contexts(self, known: Collection[str]) -> None:
        limits = self.limits
        self._check_deadline()
        test_files = _TestFiles(known)
        count = long = 0
        for context_id, context in self.conn.execute("SELECT id, context FROM context"):
            count += 1
            if not count % 4096:
                self._check_deadline()
            if not context or not isinstance(context, str):
                continue
            if len(context) > limits.chars:
                long += 1
                continue
            key, test_path, qualname, dotted = parse_context(context)
            test = self.tests.get(key)
            if test is None:
                if len(self.tests) >= limits.tests:
                    raise CoverageError(
                        f"{self.data_file} holds more than {limits.tests:,} tests: Cartograph "
                        "reads no more from one file"
                    )
                if test_path is not None:
                    test_path = test_files.repository_path(test_path)
                test = self.tests[key] = TestCoverage(key, test_path, qualname, dotted)
            self.by_context_id[context_id] = test
        if long:
            self.notes.append(
                f"{long} context{'s' if long > 1 else ''} longer than {limits.chars:,} "
                "characters skipped"
            )
        if not self.tests:
            raise CoverageError(
                f"{self.data_file} was recorded without per-test contexts: run pytest with "
                "--cov-context=test (or set coverage.py's [run] dynamic_context = test_function)"
            )

    def _read_files(self, repo_root: Path | None, known: Collection[str]) -> None:
        limits = self.limits
        roots = _roots(repo_root)
        depth = max((p.count("/") + 1 for p in known), default=0)
        count = long = 0
        for file_id, measured in self.conn.execute("SELECT id, path FROM file"):
            count += 1
            if not count % 1024:
                self._check_deadline()
            if count > limits.files:
                raise CoverageError(
                    f"{self.data_file} measured more than {limits.files:,} files: Cartograph "
                    "reads no more from one file"
                )
            if not isinstance(measured, str):
                continue
            if len(measured) > limits.chars:
                long += 1
                continue
            path = _map_path(measured, roots, repo_root, known, depth)
            if path is not None:
                self.paths[file_id] = path
        if long:
            self.notes.append(
                f"{long} measured path{'s' if long > 1 else ''} longer than {limits.chars:,} "
                "characters skipped"
            )

    def _check_deadline(self) -> None:
        if time.monotonic() >= self.deadline:
            raise CoverageError(self._late())

    def _late(self) -> str:
        return (
            f"reading {self.data_file} took longer than {self.limits.seconds:g} s: Cartograph "
            "gives one coverage file no longer"
        )

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """SQLite's errors as CoverageErrors (the deadline's interruption among them)."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if time.monotonic() >= self.deadline:
                raise CoverageError(self._late()) from exc
            if "too big" in str(exc):
                raise CoverageError(
                    f"{self.data_file} holds a value larger than {self.limits.blob_bytes:,} "
                    "bytes: it is no coverage.py data Cartograph reads"
                ) from exc
            raise CoverageError(
                f"{self.data_file} is not a readable coverage.py data file ({exc}): record it "
                "again with pytest --cov --cov-context=test"
            ) from exc


RanRow = tuple[TestCoverage, str, Iterable[int]]


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


def _open(data_file: Path, limits: Limits, deadline: float) -> sqlite3.Connection:
    """The file opened read-only, as data only: no schema code it brings is trusted, no value
    larger than `limits.blob_bytes` is ever read into memory, and every statement stops at
    the deadline."""
    try:
        size = data_file.stat().st_size if data_file.is_file() else None
    except OSError:
        size = None
    if size is None:
        raise CoverageError(f"no coverage data file at {data_file}", ErrorKind.NOT_FOUND)
    if size > limits.file_bytes:
        raise CoverageError(
            f"{data_file} has {size:,} bytes: Cartograph reads coverage data files of at most "
            f"{limits.file_bytes:,} bytes"
        )
    try:
        conn = sqlite3.connect(f"{data_file.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise CoverageError(f"cannot open the coverage data file {data_file}: {exc}") from exc
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max(limits.blob_bytes, 1 << 20))  # the schema
    conn.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, 100_000)
    conn.set_progress_handler(lambda: 1 if time.monotonic() >= deadline else 0, 1_000)
    try:
        conn.execute("PRAGMA trusted_schema = OFF")
        conn.execute("PRAGMA query_only = ON")
    except sqlite3.DatabaseError:
        pass  # not a database at all: said when its tables are read
    return conn


# what coverage.py 7 writes: each must be a plain table (a view, a virtual table or a computed
# column would run the file's own SQL while it is read)
_TABLES = ("coverage_schema", "meta", "file", "context", "line_bits", "arc", "tracer")


def _checked_tables(conn: sqlite3.Connection, data_file: Path) -> set[str]:
    try:
        rows = conn.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
    except sqlite3.DatabaseError as exc:
        raise CoverageError(
            f"{data_file} is not a coverage.py data file: it is not an SQLite database"
        ) from exc
    tables: set[str] = set()
    for kind, name, sql in rows:
        if name not in _TABLES:
            continue
        plain = kind == "table" and not str(sql or "").lstrip().upper().startswith("CREATE VIRTUAL")
        if not plain:
            raise CoverageError(
                f"{data_file} is not a coverage.py data file: its {name} is a {kind}, not a "
                "plain table"
            )
        tables.add(name)
    if not {"coverage_schema", "file", "context"} <= tables:
        raise CoverageError(
            f"{data_file} is not a coverage.py data file: it has no coverage_schema, file "
            "and context tables"
        )
    for name in sorted(tables):
        columns = conn.execute(f"PRAGMA table_xinfo({name})").fetchall()
        if any(column[6] not in (0, 1) for column in columns):  # 2, 3: generated columns
            raise CoverageError(
                f"{data_file} is not a coverage.py data file: its {name} table computes columns"
            )
    return tables


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


def _roots(repo_root: Path | None) -> list[Path]:
    if repo_root is None:
        return []
    roots = [repo_root.absolute()]
    resolved = repo_root.resolve()
    if resolved != roots[0]:
        roots.append(resolved)
    return roots


def _map_path(
    measured: str, roots: list[Path], repo_root: Path | None, known: Collection[str], depth: int
) -> str | None:
    """A measured file's repository-relative path, or None when it is not the repository's
    (`depth`: the most parts a known path has)."""
    path = Path(measured)
    try:
        if roots and path.is_absolute():
            for candidate in (path, path.resolve()):
                for root in roots:
                    if candidate.is_relative_to(root):
                        return candidate.relative_to(root).as_posix()
    except (OSError, RuntimeError):
        pass  # not a path this machine can resolve: matched by its suffix below
    parts = [part for part in _PARTS.split(measured) if part]
    drive = bool(parts) and parts[0].endswith(":")  # recorded on Windows
    if drive:
        del parts[0]
    for start in range(max(0, len(parts) - depth), len(parts)):  # the longest suffix first
        suffix = "/".join(parts[start:])
        if suffix in known:
            return suffix
    # coverage.py's relative_files: relative to where it ran, most likely the repository
    relative = not (drive or path.is_absolute() or ".." in parts)
    try:
        if relative and repo_root is not None and (repo_root / "/".join(parts)).is_file():
            return "/".join(parts)
    except OSError:
        pass
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
