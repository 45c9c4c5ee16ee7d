"""What an index run reads back and writes in the SQLite store: locks, file states, cached
facts, each file's rows (one transaction per batch of files), deps, pending names, skipped
files and provided packages.

Every symbol id of a file starts with `repo:path#` and every edge belongs to the file of its
source, so a file's rows are the id range ['repo:path#', 'repo:path$')."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable

from cartograph.identifiers import search_text
from cartograph.model import (
    DERIVED_VIAS,
    SERVICE_EDGE_TYPES,
    DerivedWrite,
    Edge,
    EdgeWrite,
    FileWrite,
    ImportLink,
    ServiceWrite,
    Skipped,
    SymbolRow,
    Unresolved,
)
from cartograph.store.interfaces import FileState
from cartograph.store.sqlite.connection import (
    SQLiteConnection,
    chunks,
    encode_lines,
    file_range,
    marks,
)
from cartograph.store.sqlite.schema import SEARCH_TABLES

# (path, edges, unresolved, imports, deps) of one file
_FileLinks = tuple[str, list[Edge], list[Unresolved], list[ImportLink], list[str]]


class SQLiteIndexWriter:
    def __init__(self, connection: SQLiteConnection) -> None:
        self.connection = connection
        self.db = connection.db

    # ------------------------------------------------------------------ locks
    def acquire_index_lock(
        self, repo: str, owner: str, ttl: float, replacing: str | None = None
    ) -> bool:
        now = time.time()
        with self.connection.transaction() as db:
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
        with self.connection.transaction() as db:
            db.execute(
                "UPDATE locks SET expires = ? WHERE repo = ? AND owner = ?",
                (time.time() + ttl, repo, owner),
            )

    def release_index_lock(self, repo: str, owner: str) -> None:
        with self.connection.transaction() as db:
            db.execute("DELETE FROM locks WHERE repo = ? AND owner = ?", (repo, owner))

    # ------------------------------------------------------------------ reads for a run
    def file_states(self, repo: str) -> dict[str, FileState]:
        rows = self.db.execute(
            "SELECT path, sha256, size, mtime_ns, module, language, interface, aliases, "
            "resolution, flows_digest, derived IS NOT NULL, http IS NOT NULL, is_test FROM files "
            "WHERE repo = ?",
            (repo,),
        )
        states = {}
        for r in rows:
            states[r[0]] = FileState(r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9],
                                     bool(r[10]), bool(r[11]), bool(r[12]))  # fmt: skip
        return states

    def flow_states(
        self, repo: str, paths: Iterable[str] | None = None
    ) -> dict[str, tuple[bytes | None, bytes | None]]:
        query = (
            "SELECT path, flows, derived FROM files WHERE repo = ? "
            "AND (flows IS NOT NULL OR derived IS NOT NULL)"
        )
        if paths is None:
            rows = list(self.db.execute(query, (repo,)))
        else:
            rows = []
            for chunk in chunks(list(paths)):
                rows += self.db.execute(
                    f"{query} AND path IN ({marks(len(chunk))})", (repo, *chunk)
                )
        return {path: (flows, derived) for path, flows, derived in rows}

    def edge_keys(self, repo: str, paths: Iterable[str]) -> dict[str, set[tuple[str, str, str]]]:
        found: dict[str, set[tuple[str, str, str]]] = {}
        for path in paths:
            low, high = file_range(repo, path)
            rows = self.db.execute(
                "SELECT type, src, dst FROM edges WHERE src >= ? AND src < ?", (low, high)
            )
            found[path] = {tuple(r) for r in rows}
        return found

    def load_facts(self, repo: str, paths: Iterable[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        for chunk in chunks(list(paths)):
            rows = self.db.execute(
                f"SELECT path, facts FROM files WHERE repo = ? AND path IN ({marks(len(chunk))})",
                (repo, *chunk),
            )
            found.update((path, facts) for path, facts in rows if facts is not None)
        return found

    def dependents(self, repo: str, modules: Iterable[str]) -> set[str]:
        found: set[str] = set()
        for chunk in chunks(list(modules)):
            rows = self.db.execute(
                f"SELECT DISTINCT path FROM deps WHERE repo = ? AND module IN ({marks(len(chunk))})",
                (repo, *chunk),
            )
            found.update(r[0] for r in rows)
        return found

    def dependents_across(self, modules: Iterable[str], besides: str) -> dict[str, set[str]]:
        # one repository at a time: each lookup is a range of the (repo, module) index
        others = [
            r[0] for r in self.db.execute("SELECT name FROM repos WHERE name != ?", (besides,))
        ]
        found: dict[str, set[str]] = {}
        for repo in others:
            paths = self.dependents(repo, modules)
            if paths:
                found[repo] = paths
        return found

    def skipped(self, repo: str) -> list[Skipped]:
        rows = self.db.execute(
            "SELECT path, reason, size FROM skipped WHERE repo = ? ORDER BY path", (repo,)
        )
        return [Skipped(*r) for r in rows]

    def pending(self, repo: str) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT module FROM pending WHERE repo = ?", (repo,))}

    # ------------------------------------------------------------------ writes
    def write_files(self, repo: str, writes: list[FileWrite], replace: bool) -> None:
        if not writes:
            return
        with self.connection.transaction() as db:
            if replace:
                _delete_file_rows(db, repo, [w.record.path for w in writes], symbols=True)
            db.executemany(
                "INSERT OR REPLACE INTO files (repo, path, language, sha256, size, mtime_ns, "
                "lines, is_test, module, parse_errors, interface, aliases, facts, resolution, "
                "flows, flows_digest, http, derived) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
                "(SELECT derived FROM files WHERE repo = ? AND path = ?))",
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
                        w.flows,
                        w.flows_digest,
                        w.http,
                        repo,
                        w.record.path,
                    )
                    for w in writes
                ],
            )
            bodies = {k: v for w in writes for k, v in w.bodies.items()}
            _insert_symbols(db, [s for w in writes for s in w.symbols], bodies)
            _insert_links(
                db,
                repo,
                [(w.record.path, w.edges, w.unresolved, w.imports, w.deps) for w in writes],
            )

    def write_edges(self, repo: str, writes: list[EdgeWrite]) -> None:
        if not writes:
            return
        with self.connection.transaction() as db:
            _delete_file_rows(db, repo, [w.path for w in writes], symbols=False)
            _insert_links(
                db, repo, [(w.path, w.edges, w.unresolved, w.imports, w.deps) for w in writes]
            )
            db.executemany(
                "UPDATE files SET resolution = ?, flows = ?, flows_digest = ?, http = ? "
                "WHERE repo = ? AND path = ?",
                [(w.resolution, w.flows, w.flows_digest, w.http, repo, w.path) for w in writes],
            )

    def write_derived(self, repo: str, writes: list[DerivedWrite]) -> None:
        if not writes:
            return
        with self.connection.transaction() as db:
            db.executemany(
                "DELETE FROM edges WHERE type = ? AND src = ? AND dst = ?",
                [key for w in writes for key in w.removed],
            )
            _insert_links(db, repo, [(w.path, w.added, [], [], []) for w in writes])
            db.executemany(
                "UPDATE files SET derived = ? WHERE repo = ? AND path = ?",
                [(w.derived or None, repo, w.path) for w in writes],
            )

    def http_rows(self, repo: str) -> dict[str, bytes]:
        rows = self.db.execute(
            "SELECT path, http FROM files WHERE repo = ? AND http IS NOT NULL", (repo,)
        )
        return dict(rows)

    def service_listings(self) -> dict[str, tuple[str, str]]:
        rows = self.db.execute("SELECT repo, routes, calls FROM services")
        return {repo: (routes, calls) for repo, routes, calls in rows}

    def write_services(self, repo: str, write: ServiceWrite) -> None:
        with self.connection.transaction() as db:
            if write.routes is not None:
                gone = [(sid,) for sid in write.gone_routes]
                for table in SEARCH_TABLES:
                    db.executemany(
                        f"DELETE FROM {table} WHERE rowid IN "
                        "(SELECT rowid FROM symbols WHERE id = ? AND kind = 'route')",
                        gone,
                    )
                db.executemany("DELETE FROM symbols WHERE id = ? AND kind = 'route'", gone)
                db.executemany("DELETE FROM edges WHERE src = ? AND type = 'ROUTES_TO'", gone)
                _insert_symbols(db, write.routes, {})
                _insert_links(db, repo, [("", write.route_edges, [], [], [])])
            db.executemany(
                "DELETE FROM edges WHERE src = ? AND type = 'HTTP_CALLS' AND dst = ?",
                write.gone_calls,
            )
            _insert_links(db, repo, [("", write.calls, [], [], [])])
            db.execute(
                "INSERT OR REPLACE INTO services (repo, routes, calls) VALUES (?,?,?)",
                (repo, write.listing, write.calls_listing),
            )

    def delete_files(self, repo: str, paths: Iterable[str]) -> None:
        paths = list(paths)
        if not paths:
            return
        with self.connection.transaction() as db:
            _delete_file_rows(db, repo, paths, symbols=None)
            for chunk in chunks(paths):
                db.execute(
                    f"DELETE FROM files WHERE repo = ? AND path IN ({marks(len(chunk))})",
                    (repo, *chunk),
                )

    def finish_run(self, repo: str) -> None:
        """Nothing to tidy: SQLite keeps edges by id, with no placeholder nodes."""

    def update_file_stats(self, repo: str, stats: list[tuple[str, int, int]]) -> None:
        if stats:
            with self.connection.transaction() as db:
                db.executemany(
                    "UPDATE files SET size = ?, mtime_ns = ? WHERE repo = ? AND path = ?",
                    [(size, mtime, repo, path) for path, size, mtime in stats],
                )

    def set_skipped(self, repo: str, skipped: list[Skipped]) -> None:
        with self.connection.transaction() as db:
            db.execute("DELETE FROM skipped WHERE repo = ?", (repo,))
            db.executemany(
                "INSERT OR REPLACE INTO skipped VALUES (?,?,?,?)",
                [(repo, s.path, s.reason, s.size) for s in skipped],
            )

    def set_packages(self, repo: str, names: Iterable[str], ecosystem: str) -> None:
        with self.connection.transaction() as db:
            db.execute("DELETE FROM packages WHERE repo = ? AND ecosystem = ?", (repo, ecosystem))
            db.executemany(
                "INSERT OR IGNORE INTO packages VALUES (?,?,?)",
                [(repo, name, ecosystem) for name in names],
            )

    def add_pending(self, repo: str, modules: Iterable[str]) -> None:
        with self.connection.transaction() as db:
            db.executemany(
                "INSERT OR IGNORE INTO pending VALUES (?, ?)", [(repo, m) for m in modules]
            )

    def clear_pending(self, repo: str) -> None:
        with self.connection.transaction() as db:
            db.execute("DELETE FROM pending WHERE repo = ?", (repo,))


def _insert_symbols(db: sqlite3.Connection, symbol_rows: list[SymbolRow], bodies: dict) -> None:
    """Symbols with their search rows (`bodies`: symbol id → its body text)."""
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
    db.executemany(
        "INSERT INTO symbol_body (rowid, body) VALUES (?,?)",
        [(first + i, bodies[s.id]) for i, s in enumerate(symbol_rows) if s.id in bodies],
    )


DERIVED = ", ".join(f"'{via}'" for via in DERIVED_VIAS)
SERVICE_TYPES = ", ".join(f"'{t}'" for t in SERVICE_EDGE_TYPES)


def _delete_file_rows(
    db: sqlite3.Connection, repo: str, paths: list[str], symbols: bool | None
) -> None:
    """What files contribute: their symbols too (`symbols`), everything when they are gone
    (None)."""
    ranges = [file_range(repo, path) for path in paths]
    if symbols or symbols is None:
        for table in SEARCH_TABLES:
            db.executemany(
                f"DELETE FROM {table} WHERE rowid IN "
                "(SELECT rowid FROM symbols WHERE id >= ? AND id < ?)",
                ranges,
            )
        # a rewritten file keeps its route symbols: the services stage replaces them
        kept = "" if symbols is None else " AND kind != 'route'"
        db.executemany(f"DELETE FROM symbols WHERE id >= ? AND id < ?{kept}", ranges)
    if symbols is None:  # the file is gone: every edge starting in it goes
        db.executemany("DELETE FROM edges WHERE src >= ? AND src < ?", ranges)
    else:  # rewritten: the flow stage's edges stay (it rewrites them when its inputs change)
        db.executemany(
            f"DELETE FROM edges WHERE src >= ? AND src < ? AND via NOT IN ({DERIVED}) "
            f"AND type NOT IN ({SERVICE_TYPES})",
            ranges,
        )
    db.executemany("DELETE FROM unresolved WHERE src >= ? AND src < ?", ranges)
    for chunk in chunks(paths):
        for table in ("imports", "deps"):
            db.execute(
                f"DELETE FROM {table} WHERE repo = ? AND path IN ({marks(len(chunk))})",
                (repo, *chunk),
            )


def _insert_links(db: sqlite3.Connection, repo: str, per_file: list[_FileLinks]) -> None:
    edge_rows: list[tuple] = []
    unresolved_rows: list[tuple] = []
    import_rows: list[tuple] = []
    dep_rows: list[tuple] = []
    for path, edges, unresolved, imports, deps in per_file:
        edge_rows.extend(
            (e.type, e.src, e.dst, encode_lines(e.lines), e.count, e.via, e.confidence, e.order)
            for e in edges
        )
        unresolved_rows.extend(
            (u.src, u.name, u.line, u.external, u.kind, u.reason) for u in unresolved
        )
        import_rows.extend(
            (repo, path, i.target_kind, i.target, json.dumps(i.names)) for i in imports
        )
        dep_rows.extend((repo, path, module) for module in deps)
    db.executemany(
        'INSERT INTO edges (type, src, dst, lines, count, via, confidence, "order") '
        "VALUES (?,?,?,?,?,?,?,?)",
        edge_rows,
    )
    db.executemany(
        "INSERT INTO unresolved (src, name, line, external, kind, reason) VALUES (?,?,?,?,?,?)",
        unresolved_rows,
    )
    db.executemany("INSERT INTO imports VALUES (?,?,?,?,?)", import_rows)
    db.executemany("INSERT INTO deps VALUES (?,?,?)", dep_rows)
