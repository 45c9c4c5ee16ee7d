"""The embedded graph store: one SQLite file (WAL, FTS5), the default for one developer."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator
from importlib import resources
from pathlib import Path

from cartograph.identifiers import search_text
from cartograph.model import (
    SCHEMA_VERSION,
    Edge,
    EdgeWrite,
    FileRecord,
    FileWrite,
    Repo,
    Skipped,
    SymbolRow,
    Unresolved,
    split_symbol_id,
)
from cartograph.store.base import EdgeRow, FileState, StoreError, TraversalMixin, export_graph
from cartograph.store.sqlite_agents import SQLiteAgents
from cartograph.store.sqlite_history import SQLiteHistory
from cartograph.store.sqlite_tokens import SQLiteTokens
from cartograph.store.sqlite_tracking import SQLiteTracking

MIGRATIONS = {
    1: "sqlite_001_initial.sql",
    2: "sqlite_002_history.sql",
    3: "sqlite_003_tracking.sql",
    4: "sqlite_004_resolution.sql",
    5: "sqlite_005_agents.sql",
    6: "sqlite_006_tokens.sql",
    7: "repair_early_schema_1",  # a step in Python: see _repair_early_schema_1
}
CHUNK = 500  # ids per IN (...) list
SEARCH_WEIGHTS = "10.0, 5.0, 1.0"
COMMON_TERM = 4000  # a search word matching more rows than this is too common to rank by
_SYMBOL_COLUMNS = (
    "id, repo, path, name, qualname, kind, start_line, end_line, signature, doc, "
    "exported, parent, decorators"
)


def _symbol(row: tuple) -> SymbolRow:
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


def _chunks(items: list, size: int = CHUNK) -> Iterator[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _quote(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _marks(n: int) -> str:
    return ",".join("?" * n)


class SQLiteStore(SQLiteHistory, SQLiteTracking, SQLiteAgents, SQLiteTokens, TraversalMixin):
    concurrent_writers = True

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser()
        self.url = f"sqlite:///{self.path}"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
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
        self._migrate()

    # ------------------------------------------------------------------ plumbing
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

    def _migrate(self) -> None:
        """Bring the schema to SCHEMA_VERSION (a current store is only read: a read-only file
        still answers queries)."""
        try:
            version = self._schema_version()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is not a Cartograph SQLite store: {exc}") from exc
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {version}; this Cartograph knows "
                f"{SCHEMA_VERSION}. Upgrade Cartograph."
            )
        if version == SCHEMA_VERSION:
            return
        with self._transaction() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
            )
            version = self._schema_version()  # another process may have migrated meanwhile
            for target in range(version + 1, SCHEMA_VERSION + 1):
                if MIGRATIONS[target] == "repair_early_schema_1":
                    _repair_early_schema_1(db)
                else:
                    _run_script(db, MIGRATIONS[target])
                db.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(target),)
                )

    def _schema_version(self) -> int:
        exists = self.db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
        ).fetchone()
        if not exists:
            return 0
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0]) if row else 0

    def _transaction(self) -> _Transaction:
        return _Transaction(self.db, self.path)

    def close(self) -> None:
        self.db.close()

    def schema_version(self) -> int:
        return self._schema_version()

    # ------------------------------------------------------------------ repositories
    def upsert_repo(self, repo: Repo) -> None:
        with self._transaction() as db:
            self._upsert_repo(db, repo)

    def _upsert_repo(self, db: sqlite3.Connection, repo: Repo) -> None:
        db.execute(
            # the history columns (mined_sha, codeowners) are set by set_history_state only
            "INSERT INTO repos (name, root, url, default_branch, head_sha, indexed_sha, "
            "indexed_at, dirty, index_format) VALUES (?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT(name) DO UPDATE SET "
            "root=excluded.root, url=excluded.url, default_branch=excluded.default_branch, "
            "head_sha=excluded.head_sha, indexed_sha=excluded.indexed_sha, "
            "indexed_at=excluded.indexed_at, dirty=excluded.dirty, "
            "index_format=excluded.index_format",
            (
                repo.name,
                repo.root,
                repo.url,
                repo.default_branch,
                repo.head_sha,
                repo.indexed_sha,
                repo.indexed_at,
                int(repo.dirty),
                repo.index_format,
            ),
        )

    def get_repo(self, name: str) -> Repo | None:
        row = self.db.execute("SELECT * FROM repos WHERE name = ?", (name,)).fetchone()
        return _repo(row) if row else None

    def list_repos(self) -> list[Repo]:
        return [_repo(r) for r in self.db.execute("SELECT * FROM repos ORDER BY name")]

    def delete_repo(self, name: str) -> None:
        with self._transaction() as db:
            low, high = repo_range(name)
            db.execute(
                "DELETE FROM symbol_search WHERE rowid IN "
                "(SELECT rowid FROM symbols WHERE id >= ? AND id < ?)",
                (low, high),
            )
            for table in ("symbols", "edges", "unresolved"):
                column = "id" if table == "symbols" else "src"
                db.execute(f"DELETE FROM {table} WHERE {column} >= ? AND {column} < ?", (low, high))
            for table in ("imports", "deps", "files", "skipped", "packages", "pending", "locks",
                          "commits", "touches", "symbol_touches", "file_changes", "cochanges",
                          "symbol_changes", "symbol_cochanges"):  # fmt: skip
                db.execute(f"DELETE FROM {table} WHERE repo = ?", (name,))
            db.execute("DELETE FROM repos WHERE name = ?", (name,))

    def acquire_index_lock(
        self, repo: str, owner: str, ttl: float, replacing: str | None = None
    ) -> bool:
        """Take the repository's index lock, unless another owner holds it unexpired (a holder
        known to be dead can be named in `replacing`)."""
        now = time.time()
        with self._transaction() as db:
            row = db.execute("SELECT owner, expires FROM locks WHERE repo = ?", (repo,)).fetchone()
            if row is not None and row[0] not in (owner, replacing) and row[1] > now:
                return False
            db.execute("INSERT OR REPLACE INTO locks VALUES (?, ?, ?)", (repo, owner, now + ttl))
            return True

    def index_lock_holder(self, repo: str) -> str | None:
        row = self.db.execute(
            "SELECT owner FROM locks WHERE repo = ? AND expires > ?", (repo, time.time())
        ).fetchone()
        return row[0] if row else None

    def refresh_index_lock(self, repo: str, owner: str, ttl: float) -> None:
        with self._transaction() as db:
            db.execute(
                "UPDATE locks SET expires = ? WHERE repo = ? AND owner = ?",
                (time.time() + ttl, repo, owner),
            )

    def release_index_lock(self, repo: str, owner: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM locks WHERE repo = ? AND owner = ?", (repo, owner))

    # ------------------------------------------------------------------ index writes
    def file_states(self, repo: str) -> dict[str, FileState]:
        rows = self.db.execute(
            "SELECT path, sha256, size, mtime_ns, module, language, interface, aliases, "
            "resolution FROM files "
            "WHERE repo = ?",
            (repo,),
        )
        return {r[0]: FileState(*r[1:]) for r in rows}

    def load_facts(self, repo: str, paths: Iterable[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        for chunk in _chunks(list(paths)):
            rows = self.db.execute(
                f"SELECT path, facts FROM files WHERE repo = ? AND path IN ({_marks(len(chunk))})",
                (repo, *chunk),
            )
            found.update((path, facts) for path, facts in rows if facts is not None)
        return found

    def _delete_file_rows(
        self, db: sqlite3.Connection, repo: str, paths: list[str], symbols: bool
    ) -> None:
        ranges = [file_range(repo, path) for path in paths]
        if symbols:
            db.executemany(
                "DELETE FROM symbol_search WHERE rowid IN "
                "(SELECT rowid FROM symbols WHERE id >= ? AND id < ?)",
                ranges,
            )
            db.executemany("DELETE FROM symbols WHERE id >= ? AND id < ?", ranges)
        db.executemany("DELETE FROM edges WHERE src >= ? AND src < ?", ranges)
        db.executemany("DELETE FROM unresolved WHERE src >= ? AND src < ?", ranges)
        for chunk in _chunks(paths):
            marks = _marks(len(chunk))
            for table in ("imports", "deps"):
                db.execute(
                    f"DELETE FROM {table} WHERE repo = ? AND path IN ({marks})", (repo, *chunk)
                )

    def write_files(self, repo: str, writes: list[FileWrite], replace: bool) -> None:
        """Write files in one transaction: each file's rows replace what it had before."""
        if not writes:
            return
        with self._transaction() as db:
            if replace:
                self._delete_file_rows(db, repo, [w.record.path for w in writes], symbols=True)
            db.executemany(
                "INSERT OR REPLACE INTO files (repo, path, language, sha256, size, mtime_ns, "
                "lines, is_test, module, parse_errors, interface, aliases, facts, resolution) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        repo,
                        w.record.path,
                        w.record.language,
                        w.record.sha256,
                        w.record.size,
                        w.record.mtime_ns,
                        w.record.lines,
                        int(w.record.is_test),
                        w.record.module,
                        w.record.parse_errors,
                        w.record.interface,
                        w.record.aliases,
                        w.facts,
                        w.record.resolution,
                    )
                    for w in writes
                ],
            )
            symbol_rows = [s for w in writes for s in w.symbols]
            # rowids are assigned here (we hold the write lock) so the search index can share
            # them without reading them back
            first = db.execute("SELECT coalesce(max(rowid), 0) + 1 FROM symbols").fetchone()[0]
            db.executemany(
                "INSERT OR REPLACE INTO symbols (rowid, id, repo, path, name, qualname, kind, "
                "start_line, end_line, signature, doc, exported, parent, decorators) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        first + i,
                        s.id,
                        s.repo,
                        s.path,
                        s.name,
                        s.qualname,
                        s.kind,
                        s.start_line,
                        s.end_line,
                        s.signature,
                        s.doc,
                        int(s.exported),
                        s.parent,
                        "\n".join(s.decorators),
                    )
                    for i, s in enumerate(symbol_rows)
                ],
            )
            db.executemany(
                "INSERT INTO symbol_search (rowid, name, qualname, context) VALUES (?,?,?,?)",
                [
                    (
                        first + i,
                        search_text(s.name),
                        search_text(s.qualname),
                        search_text(f"{s.path} {s.doc}"),
                    )
                    for i, s in enumerate(symbol_rows)
                ],
            )
            self._insert_edges(
                db,
                repo,
                [(w.record.path, w.edges, w.unresolved, w.imports, w.deps) for w in writes],
            )

    def _insert_edges(self, db: sqlite3.Connection, repo: str, per_file: list[tuple]) -> None:
        edge_rows = []
        unresolved_rows = []
        import_rows = []
        dep_rows = []
        for path, edges, unresolved, imports, deps in per_file:
            edge_rows.extend(
                (
                    e.type,
                    e.src,
                    e.dst,
                    _encode_lines(e.lines),
                    e.count,
                    e.via,
                    e.confidence,
                )
                for e in edges
            )
            unresolved_rows.extend((u.src, u.name, u.line, u.external, u.kind) for u in unresolved)
            import_rows.extend(
                (repo, path, i.target_kind, i.target, json.dumps(i.names)) for i in imports
            )
            dep_rows.extend((repo, path, module) for module in deps)
        db.executemany("INSERT INTO edges VALUES (?,?,?,?,?,?,?)", edge_rows)
        db.executemany("INSERT INTO unresolved VALUES (?,?,?,?,?)", unresolved_rows)
        db.executemany("INSERT INTO imports VALUES (?,?,?,?,?)", import_rows)
        db.executemany("INSERT INTO deps VALUES (?,?,?)", dep_rows)

    def write_edges(self, repo: str, writes: list[EdgeWrite]) -> None:
        if not writes:
            return
        with self._transaction() as db:
            self._delete_file_rows(db, repo, [w.path for w in writes], symbols=False)
            self._insert_edges(
                db, repo, [(w.path, w.edges, w.unresolved, w.imports, w.deps) for w in writes]
            )
            db.executemany(
                "UPDATE files SET resolution = ? WHERE repo = ? AND path = ?",
                [(w.resolution, repo, w.path) for w in writes],
            )

    def delete_files(self, repo: str, paths: Iterable[str]) -> None:
        paths = list(paths)
        if not paths:
            return
        with self._transaction() as db:
            self._delete_file_rows(db, repo, paths, symbols=True)
            for chunk in _chunks(paths):
                db.execute(
                    f"DELETE FROM files WHERE repo = ? AND path IN ({_marks(len(chunk))})",
                    (repo, *chunk),
                )

    def finish_run(self, repo: str) -> None:
        """Nothing to tidy: SQLite keeps edges by id, with no placeholder nodes."""

    def update_file_stats(self, repo: str, stats: list[tuple[str, int, int]]) -> None:
        """Record new (path, size, mtime_ns) of files whose content did not change."""
        if stats:
            with self._transaction() as db:
                db.executemany(
                    "UPDATE files SET size = ?, mtime_ns = ? WHERE repo = ? AND path = ?",
                    [(size, mtime, repo, path) for path, size, mtime in stats],
                )

    def set_skipped(self, repo: str, skipped: list[Skipped]) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM skipped WHERE repo = ?", (repo,))
            db.executemany(
                "INSERT OR REPLACE INTO skipped VALUES (?,?,?,?)",
                [(repo, s.path, s.reason, s.size) for s in skipped],
            )

    def set_packages(self, repo: str, names: Iterable[str], ecosystem: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM packages WHERE repo = ? AND ecosystem = ?", (repo, ecosystem))
            db.executemany(
                "INSERT OR IGNORE INTO packages VALUES (?,?,?)",
                [(repo, name, ecosystem) for name in names],
            )

    def add_pending(self, repo: str, modules: Iterable[str]) -> None:
        with self._transaction() as db:
            db.executemany(
                "INSERT OR IGNORE INTO pending VALUES (?, ?)", [(repo, m) for m in modules]
            )

    def pending(self, repo: str) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT module FROM pending WHERE repo = ?", (repo,))}

    def clear_pending(self, repo: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM pending WHERE repo = ?", (repo,))

    def dependents(self, repo: str, modules: Iterable[str]) -> set[str]:
        found: set[str] = set()
        for chunk in _chunks(list(modules)):
            rows = self.db.execute(
                f"SELECT DISTINCT path FROM deps WHERE repo = ? AND module IN ({_marks(len(chunk))})",
                (repo, *chunk),
            )
            found.update(r[0] for r in rows)
        return found

    # ------------------------------------------------------------------ reads
    def get_symbols(self, ids: Iterable[str]) -> dict[str, SymbolRow]:
        found: dict[str, SymbolRow] = {}
        for chunk in _chunks(list(set(ids))):
            rows = self.db.execute(
                f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE id IN ({_marks(len(chunk))})", chunk
            )
            for row in rows:
                found[row[0]] = _symbol(row)
        return found

    def find_symbols(self, text: str, repo: str | None, limit: int) -> list[SymbolRow]:
        """Exact matches: id, qualname, name, or a dotted suffix of the qualname."""
        repo_clause = " AND repo = ?" if repo else ""
        repo_args = (repo,) if repo else ()
        if "#" in text:
            rows = self.db.execute(
                f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE id = ?{repo_clause}",
                (text, *repo_args),
            ).fetchall()
            if rows:
                return [_symbol(r) for r in rows]
        rows = self.db.execute(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE qualname = ?{repo_clause} "
            f"ORDER BY repo, path LIMIT ?",
            (text, *repo_args, limit),
        ).fetchall()
        if rows:
            return [_symbol(r) for r in rows]
        name = text.rpartition(".")[2]
        rows = self.db.execute(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE name = ?{repo_clause} "
            f"ORDER BY length(qualname), qualname, repo LIMIT 1000",
            (name, *repo_args),
        ).fetchall()
        if "." in text:
            suffix = "." + text
            rows = [r for r in rows if r[4].endswith(suffix)]
        return [_symbol(r) for r in rows[:limit]]

    def search_symbols(
        self, words: list[str], repo: str | None, kinds: list[str] | None, limit: int, offset: int
    ) -> list[tuple[SymbolRow, float]]:
        """BM25 over identifier-split text: all words (the last as a prefix), then any word.

        A word that matches more than COMMON_TERM rows (`test` in a test-heavy repository) is
        dropped when rarer words remain, and is never expanded as a prefix: ranking tens of
        thousands of rows would cost more than it tells."""
        if not words:
            return []
        counts = {w: self._term_rows(_quote(w)) for w in dict.fromkeys(words)}
        kept = [w for w in words if counts[w] <= COMMON_TERM] or words
        last = _quote(kept[-1])
        if len(kept[-1]) >= 2 and self._term_rows(last + "*") <= COMMON_TERM:
            last += "*"
        expressions = [" AND ".join([*(_quote(w) for w in kept[:-1]), last])]
        if len(kept) > 1:
            expressions.append(" OR ".join(_quote(w) for w in kept))
        rank = len(kept) != len(words) or all(counts[w] <= COMMON_TERM for w in kept)
        results: list[tuple[SymbolRow, float]] = []
        seen: set[str] = set()
        wanted = limit + offset
        for expression in expressions:
            clauses = ["symbol_search MATCH ?"]
            args: list = [expression]
            if repo:
                clauses.append("s.id >= ? AND s.id < ?")
                args.extend(repo_range(repo))
            if kinds:
                clauses.append(f"s.kind IN ({_marks(len(kinds))})")
                args.extend(kinds)
            score = f"bm25(symbol_search, {SEARCH_WEIGHTS})" if rank else "0.0"
            order = "score, s.qualname" if rank else "length(s.qualname), s.qualname"
            sql = (
                f"SELECT {', '.join('s.' + c.strip() for c in _SYMBOL_COLUMNS.split(','))}, "
                f"{score} AS score "
                f"FROM symbol_search JOIN symbols s ON s.rowid = symbol_search.rowid "
                f"WHERE {' AND '.join(clauses)} ORDER BY {order} LIMIT ?"
            )
            args.append(wanted + len(seen))
            for row in self.db.execute(sql, args):
                if row[0] in seen:
                    continue
                seen.add(row[0])
                results.append((_symbol(row[:13]), -float(row[13])))
            if len(results) >= wanted:
                break
        return results[offset : offset + limit]

    def _term_rows(self, expression: str) -> int:
        """Rows matching an FTS expression, counted up to COMMON_TERM + 1."""
        return self.db.execute(
            "SELECT count(*) FROM (SELECT 1 FROM symbol_search WHERE symbol_search MATCH ? "
            "LIMIT ?)",
            (expression, COMMON_TERM + 1),
        ).fetchone()[0]

    def edges_of(
        self,
        ids: Iterable[str],
        direction: str,
        types: Iterable[str],
        limit: int | None = None,
        offset: int = 0,
    ) -> list[EdgeRow]:
        ids = list(ids)
        types = list(types)
        near, far = ("dst", "src") if direction == "in" else ("src", "dst")
        result: list[EdgeRow] = []
        for chunk in _chunks(ids):
            sql = (
                f"SELECT e.type, e.src, e.dst, e.lines, e.count, e.via, e.confidence, "
                f"{', '.join('s.' + c.strip() for c in _SYMBOL_COLUMNS.split(','))} "
                f"FROM edges e LEFT JOIN symbols s ON s.id = e.{far} "
                f"WHERE e.{near} IN ({_marks(len(chunk))}) "
                f"AND e.type IN ({_marks(len(types))}) "
                f"ORDER BY e.{near}, s.repo, s.path, s.start_line, e.{far}"
            )
            args: list = [*chunk, *types]
            if limit is not None and len(ids) <= CHUNK:
                sql += " LIMIT ? OFFSET ?"
                args += [limit, offset]
            for row in self.db.execute(sql, args):
                edge = Edge(row[0], row[1], row[2], _decode_lines(row[3]), row[4], row[5], row[6])
                other = _symbol(row[7:]) if row[7] is not None else None
                result.append(EdgeRow(edge, other))
        return result

    def edge_counts(
        self, ids: Iterable[str], direction: str, types: Iterable[str]
    ) -> dict[str, int]:
        ids = list(dict.fromkeys(ids))
        types = list(types)
        near = "dst" if direction == "in" else "src"
        counts = dict.fromkeys(ids, 0)
        for chunk in _chunks(ids):
            for anchor, count in self.db.execute(
                f"SELECT {near}, count(*) FROM edges WHERE {near} IN ({_marks(len(chunk))}) "
                f"AND type IN ({_marks(len(types))}) GROUP BY {near}",
                (*chunk, *types),
            ):
                counts[anchor] = count
        return counts

    def members(self, parent_ids: Iterable[str], name: str | None = None) -> list[SymbolRow]:
        # members share their parent's id as prefix: `repo:path#pkg.mod.Class.` ... `Class/`
        found: list[SymbolRow] = []
        named = " AND name = ?" if name is not None else ""
        for parent in dict.fromkeys(parent_ids):
            rows = self.db.execute(
                f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE id > ? AND id < ? AND parent = ?"
                f"{named} ORDER BY start_line, qualname",
                (parent + ".", parent + "/", parent, *((name,) if name is not None else ())),
            )
            found.extend(_symbol(r) for r in rows)
        return found

    def symbols_in_file(self, repo: str, path: str) -> list[SymbolRow]:
        rows = self.db.execute(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE id >= ? AND id < ? "
            f"ORDER BY start_line, qualname",
            file_range(repo, path),
        )
        return [_symbol(r) for r in rows]

    def files(
        self, repo: str, paths: Iterable[str] | None = None, under: str | None = None
    ) -> dict[str, FileRecord]:
        columns = (
            "repo, path, language, sha256, size, mtime_ns, lines, is_test, module, parse_errors"
        )
        if under is not None:
            folder = under.strip("/")
            rows = self.db.execute(
                f"SELECT {columns} FROM files WHERE repo = ? AND path >= ? AND path < ? "
                "ORDER BY path",
                (repo, folder + "/", folder + "0"),  # "0" sorts right after "/"
            ).fetchall()
        elif paths is None:
            rows = self.db.execute(
                f"SELECT {columns} FROM files WHERE repo = ? ORDER BY path", (repo,)
            ).fetchall()
        else:
            rows = []
            for chunk in _chunks(list(set(paths))):
                rows.extend(
                    self.db.execute(
                        f"SELECT {columns} FROM files WHERE repo = ? AND path IN ({_marks(len(chunk))})",
                        (repo, *chunk),
                    )
                )
        return {
            r[1]: FileRecord(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), r[8], r[9])
            for r in rows
        }

    def unresolved_of(self, src_ids: Iterable[str]) -> list[Unresolved]:
        found: list[Unresolved] = []
        for chunk in _chunks(list(src_ids)):
            rows = self.db.execute(
                f"SELECT src, name, line, external, kind FROM unresolved WHERE src IN "
                f"({_marks(len(chunk))}) ORDER BY src, line, name",
                chunk,
            )
            found.extend(Unresolved(*r) for r in rows)
        return found

    def unresolved_names(self, repo: str, kind: str = "call") -> set[str]:
        rows = self.db.execute(
            "SELECT DISTINCT name FROM unresolved WHERE src >= ? AND src < ? AND kind = ?",
            (*repo_range(repo), kind),
        )
        return {r[0] for r in rows}

    def search_unresolved(
        self, name: str, repo: str | None, limit: int
    ) -> list[tuple[str, Unresolved]]:
        pattern = "%" + name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        sql = (
            "SELECT src, name, line, external, kind FROM unresolved WHERE name LIKE ? ESCAPE '\\'"
            + (" AND src >= ? AND src < ?" if repo else "")
            + " ORDER BY src, line, name LIMIT ?"
        )
        args = (pattern, *repo_range(repo), limit) if repo else (pattern, limit)
        return [(split_symbol_id(r[0])[1], Unresolved(*r)) for r in self.db.execute(sql, args)]

    def dead_code_candidates(self, repo: str, path_prefix: str) -> list[tuple[SymbolRow, int]]:
        rows = self.db.execute(
            f"SELECT {', '.join('s.' + c.strip() for c in _SYMBOL_COLUMNS.split(','))}, "
            "(SELECT count(*) FROM edges e WHERE e.dst = s.id AND e.src != s.id "
            " AND e.type IN ('CALLS', 'REFERENCES', 'INHERITS')) AS incoming "
            "FROM symbols s WHERE s.id >= ? AND s.id < ? "
            "AND s.kind IN ('function', 'method', 'class') ORDER BY s.path, s.start_line",
            (f"{repo}:{path_prefix}", f"{repo}:{path_prefix}\U0010ffff"),
        )
        return [(_symbol(r[:13]), r[13]) for r in rows]

    def import_links(self, repo: str) -> list[tuple[str, str, str, list[str]]]:
        rows = self.db.execute(
            "SELECT path, target_kind, target, names FROM imports WHERE repo = ? "
            "ORDER BY path, target_kind, target",
            (repo,),
        )
        return [(r[0], r[1], r[2], json.loads(r[3])) for r in rows]

    def most_called(self, repo: str, limit: int) -> list[tuple[SymbolRow, int]]:
        rows = self.db.execute(
            f"SELECT {', '.join('s.' + c.strip() for c in _SYMBOL_COLUMNS.split(','))}, c.n "
            "FROM (SELECT dst, count(*) AS n FROM edges WHERE src >= ? AND src < ? "
            "AND type = 'CALLS' AND src != dst GROUP BY dst) c JOIN symbols s ON s.id = c.dst "
            "WHERE s.kind != 'class' ORDER BY c.n DESC, s.qualname LIMIT ?",
            (*repo_range(repo), limit),
        )
        return [(_symbol(r[:13]), r[13]) for r in rows]

    def stats(self, repo: str) -> dict:
        db = self.db
        kinds = dict(
            db.execute(
                "SELECT kind, count(*) FROM symbols WHERE id >= ? AND id < ? GROUP BY kind "
                "ORDER BY kind",
                repo_range(repo),
            ).fetchall()
        )
        languages = {
            lang: {"files": n, "lines": lines}
            for lang, n, lines in db.execute(
                "SELECT language, count(*), sum(lines) FROM files WHERE repo = ? GROUP BY language "
                "ORDER BY language",
                (repo,),
            )
        }
        edges = {
            f"{t}/{v}": n
            for t, v, n in db.execute(
                "SELECT type, via, count(*) FROM edges WHERE src >= ? AND src < ? "
                "GROUP BY type, via ORDER BY type, via",
                repo_range(repo),
            )
        }
        call_sites = db.execute(
            # a constructor call writes two edges (class and __init__): count its site once
            "SELECT coalesce(sum(count), 0) FROM edges WHERE src >= ? AND src < ? "
            "AND type = 'CALLS' AND NOT (via = 'constructor' AND dst LIKE '%.__init__')",
            repo_range(repo),
        ).fetchone()[0]
        unresolved, external = db.execute(
            "SELECT count(*), coalesce(sum(external != ''), 0) FROM unresolved "
            "WHERE src >= ? AND src < ? AND kind = 'call'",
            repo_range(repo),
        ).fetchone()
        imports = dict(
            db.execute(
                "SELECT target_kind, count(*) FROM imports WHERE repo = ? GROUP BY target_kind",
                (repo,),
            ).fetchall()
        )
        parse_errors = db.execute(
            "SELECT count(*) FROM files WHERE repo = ? AND parse_errors > 0", (repo,)
        ).fetchone()[0]
        return {
            "symbols": kinds,
            "languages": languages,
            "edges": edges,
            "resolved_call_sites": call_sites,
            "unresolved_call_sites": unresolved,
            "unresolved_external": external,
            "imports": imports,
            "files_with_syntax_errors": parse_errors,
        }

    def skipped(self, repo: str) -> list[Skipped]:
        rows = self.db.execute(
            "SELECT path, reason, size FROM skipped WHERE repo = ? ORDER BY path", (repo,)
        )
        return [Skipped(*r) for r in rows]

    def export(self, repo: str) -> Iterator[dict]:
        repo_row = self.get_repo(repo)
        if repo_row is None:
            return
        db = self.db
        symbols = (
            _symbol(row)
            for row in db.execute(
                f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE id >= ? AND id < ? "
                f"ORDER BY path, start_line, qualname",
                repo_range(repo),
            )
        )
        edges = (
            Edge(row[0], row[1], row[2], _decode_lines(row[3]), row[4], row[5], row[6])
            for row in db.execute(
                "SELECT type, src, dst, lines, count, via, confidence FROM edges "
                "WHERE src >= ? AND src < ? ORDER BY type, src, dst",
                repo_range(repo),
            )
        )
        packages = db.execute(
            "SELECT name, ecosystem FROM packages WHERE repo = ? ORDER BY name", (repo,)
        )
        yield from export_graph(
            repo_row,
            self.files(repo).values(),
            symbols,
            edges,
            self.import_links(repo),
            packages,
        )


def _run_script(db: sqlite3.Connection, name: str) -> None:
    script = resources.files("cartograph.store").joinpath(f"migrations/{name}").read_text()
    for statement in _statements(script):
        db.execute(statement)


# the code graph: derived from the repositories, rebuilt by the next index run
DERIVED_TABLES = (
    "files", "skipped", "symbols", "edges", "imports", "unresolved", "deps", "pending",
    "packages", "locks",
)  # fmt: skip


def _repair_early_schema_1(db: sqlite3.Connection) -> None:
    """Early builds of schema 1 created tables that the first migration's script later changed
    in place (`files` lacked `interface` and `aliases`; `edges` and `unresolved` had `repo` and
    `path`; `pending` did not exist). Where the code-graph tables differ from what the scripts
    make, they are made again — they are derived data: every repository is rebuilt by its next
    index run (`index_format` cleared) — and any other table gains the columns it lacks."""
    fresh = sqlite3.connect(":memory:")
    for target in sorted(MIGRATIONS):
        if MIGRATIONS[target].endswith(".sql"):
            _run_script(fresh, MIGRATIONS[target])

    def columns(conn: sqlite3.Connection, table: str) -> list[str]:
        return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]

    if any(columns(db, t) != columns(fresh, t) for t in DERIVED_TABLES):
        for table in (*DERIVED_TABLES, "symbol_search"):
            db.execute(f"DROP TABLE IF EXISTS {table}")
        rows = fresh.execute(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL "
            f"AND (tbl_name IN ({_marks(len(DERIVED_TABLES))}) OR name = 'symbol_search') "
            "ORDER BY type = 'index'",
            DERIVED_TABLES,
        ).fetchall()
        for (sql,) in rows:
            db.execute(sql)
        db.execute("UPDATE repos SET index_format = ''")
    others = fresh.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' "
        "AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'symbol_search%'"
    ).fetchall()
    for (table,) in others:
        have = set(columns(db, table))
        if not have or table in DERIVED_TABLES:
            continue
        for _cid, column, kind, notnull, default, _pk in fresh.execute(
            f"PRAGMA table_info({table})"
        ):
            if column not in have:
                clause = f"ALTER TABLE {table} ADD COLUMN {column} {kind}"
                if default is not None:
                    clause += f"{' NOT NULL' if notnull else ''} DEFAULT {default}"
                db.execute(clause)
    fresh.close()


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT (ROLLBACK on error); SQLite failures become StoreError."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self.db = db
        self.path = path

    def __enter__(self) -> sqlite3.Connection:
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write to the SQLite store {self.path}: {exc}") from exc
        return self.db

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:
            try:
                self.db.execute("COMMIT")
            except sqlite3.Error as error:
                self.db.execute("ROLLBACK")
                raise StoreError(
                    f"cannot write to the SQLite store {self.path}: {error}"
                ) from error
            return False
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise StoreError(f"SQLite store {self.path}: {exc}") from exc
        return False


def repo_range(repo: str) -> tuple[str, str]:
    """Every id of a repository sorts in [low, high): ids are `repo:path#qualname`."""
    return f"{repo}:", f"{repo};"


def file_range(repo: str, path: str) -> tuple[str, str]:
    """Every symbol id (and so every edge source) of one file sorts in [low, high)."""
    return f"{repo}:{path}#", f"{repo}:{path}$"


def _encode_lines(lines: list[int]) -> str:
    return ",".join(map(str, lines))


def _decode_lines(text: str) -> list[int]:
    return [int(n) for n in text.split(",")] if text else []


def _repo(row: tuple) -> Repo:
    history = tuple(row[9:11]) if len(row) > 9 else ("", "")
    return Repo(
        row[0], row[1], row[2], row[3], row[4], row[5], row[6], bool(row[7]), row[8], *history
    )


def _statements(script: str) -> list[str]:
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
