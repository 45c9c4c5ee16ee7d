"""The SQLite connection every interface of the embedded store shares: one file in WAL mode,
write transactions (`BEGIN IMMEDIATE`), the schema brought up to date on open, and the
helpers its modules share (id ranges, chunked IN lists, symbol rows)."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType

from cartograph.model import SYMBOL_FIELDS, SymbolRow
from cartograph.private import make_dirs
from cartograph.store.interfaces import StoreError
from cartograph.store.sqlite.schema import migrate, schema_version

CHUNK = 500  # ids per IN (...) list
SYMBOL_COLUMNS = SYMBOL_FIELDS
SYMBOL_SELECT = ", ".join(SYMBOL_COLUMNS)
SYMBOL_WIDTH = len(SYMBOL_COLUMNS)
# the store's generation, one more (from a random start: see SQLiteConnection.generation)
BUMP_GENERATION = (
    "INSERT INTO meta (key, value) VALUES ('generation', abs(random() % 1000000000000)) "
    "ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
)


def symbol_columns(alias: str) -> str:
    """The symbol columns of a joined table: `s.id, s.repo, …`."""
    return ", ".join(f"{alias}.{column}" for column in SYMBOL_COLUMNS)


def symbol_row(row: Sequence) -> SymbolRow:
    return SymbolRow(
        row[0],
        row[1],
        row[2],
        row[3],
        row[4],
        row[5],
        row[6],
        row[7],
        row[8],
        row[9],
        bool(row[10]),
        row[11],
        row[12].split("\n") if row[12] else [],
    )


def _create_owner_only(path: Path) -> None:
    """A new store is readable by its owner only: the folders this creates are 0700, the file
    0600 (it holds webhook secrets and token hashes; SQLite gives its -wal and -shm files the
    database file's mode). An existing file or folder keeps its mode."""
    make_dirs(path.parent)
    if not path.exists():
        with contextlib.suppress(FileExistsError):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def chunks(items: list, size: int = CHUNK) -> Iterator[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def marks(n: int) -> str:
    return ",".join("?" * n)


def like_pattern(text: str) -> str:
    """`%text%` for `LIKE ? ESCAPE '\\'`, with the text's own wildcards escaped."""
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def repo_range(repo: str) -> tuple[str, str]:
    """Every id of a repository sorts in [low, high): ids are `repo:path#qualname`."""
    return f"{repo}:", f"{repo};"


def file_range(repo: str, path: str) -> tuple[str, str]:
    """Every symbol id (and so every edge source) of one file sorts in [low, high)."""
    return f"{repo}:{path}#", f"{repo}:{path}$"


def encode_lines(lines: list[int]) -> str:
    return ",".join(map(str, lines))


def decode_lines(text: str) -> list[int]:
    return [int(n) for n in text.split(",")] if text else []


class SQLiteConnection:
    """One SQLite file, opened for this process (its interfaces share it)."""

    concurrent_writers = True

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser()
        self.url = f"sqlite:///{self.path}"
        try:
            _create_owner_only(self.path)
            self.db = sqlite3.connect(
                self.path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open SQLite store {self.path}: {exc}") from exc
        self.db.execute("PRAGMA busy_timeout = 30000")
        self._enable_wal()
        self.db.execute("PRAGMA synchronous = NORMAL")
        self.db.execute("PRAGMA temp_store = MEMORY")
        self.db.execute("PRAGMA cache_size = -65536")
        self.db.execute("PRAGMA mmap_size = 268435456")
        self.db.execute("PRAGMA wal_autocheckpoint = 1000")  # small checkpoints: no 40 MB stalls
        # Python's lower case, for matching that ignores case the same way on every store
        self.db.create_function("py_lower", 1, _lower, deterministic=True)
        migrate(self.db, self.path, self.transaction)

    def _enable_wal(self) -> None:
        """WAL mode (readers never wait for the writer). Switching takes an exclusive lock that
        busy_timeout does not wait for: when two processes create a store at once, retry."""
        deadline = time.monotonic() + 30
        while True:
            try:
                self.db.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise StoreError(f"cannot open SQLite store {self.path}: {exc}") from exc
                time.sleep(0.05)
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"{self.path} is not a Cartograph SQLite store: {exc}") from exc

    def transaction(self, answers_change: bool = True) -> Transaction:
        """A write transaction. It bumps the store's generation unless the caller says the
        write cannot change a cached answer (`answers_change=False`: sessions, claims,
        activity, overlays, deliveries; cartograph.query.answers)."""
        return Transaction(self.db, self.path, answers_change)

    def generation(self) -> int:
        """The counter every answer-changing write bumps, in the same transaction (0: never
        written). A new store starts it at a random value, so a store made again at the same
        path never repeats an old store's generation."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        self.db.close()

    def schema_version(self) -> int:
        return schema_version(self.db)


def _lower(text: str | None) -> str | None:
    return text.lower() if text is not None else None


class Transaction:
    """BEGIN IMMEDIATE … COMMIT (ROLLBACK on error); SQLite failures become StoreError."""

    def __init__(self, db: sqlite3.Connection, path: Path, answers_change: bool = True) -> None:
        self.db = db
        self.path = path
        self.answers_change = answers_change

    def __enter__(self) -> sqlite3.Connection:
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write to the SQLite store {self.path}: {exc}") from exc
        return self.db

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            try:
                if self.answers_change:
                    self.db.execute(BUMP_GENERATION)
                self.db.execute("COMMIT")
            except sqlite3.Error as error:
                self.db.execute("ROLLBACK")
                raise StoreError(
                    f"cannot write to the SQLite store {self.path}: {error}"
                ) from error
            return
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise StoreError(f"SQLite store {self.path}: {exc}") from exc
