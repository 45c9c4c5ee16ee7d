"""Git history in the SQLite store (schema version 2): commits, people, touches, change counts
and co-change pairs. Keyed by (repo, path) and symbol id, so a file's history outlives its
index rows until mining re-keys it (`remap_history`)."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from cartograph.model import CoChange, HistoryBatch, Touch
from cartograph.store.interfaces import CoChangeLevel, PairCount, PairWeight
from cartograph.store.sqlite.connection import SQLiteConnection, file_range, repo_range

_TOUCH_COLUMNS = "c.sha, c.at, c.message, c.author, coalesce(p.name, ''), coalesce(p.bot, 0)"
# per level: the pairs table, the change-count table and its key column
_TABLES: dict[str, tuple[str, str, str]] = {
    "file": ("cochanges", "file_changes", "path"),
    "symbol": ("symbol_cochanges", "symbol_changes", "symbol"),
}
_HISTORY_TABLES = (
    "commits", "touches", "symbol_touches", "file_changes", "cochanges", "symbol_changes",
    "symbol_cochanges",
)  # fmt: skip


def _touch(row: Sequence) -> Touch:
    return Touch(row[0], row[1], row[2], row[3], row[4], bool(row[5]), row[6], row[7], row[8])


def _add_counts(
    db: sqlite3.Connection, table: str, column: str, repo: str, counts: Mapping[str, int]
) -> None:
    db.executemany(
        f"INSERT INTO {table} (repo, {column}, changes) VALUES (?,?,?) "
        f"ON CONFLICT(repo, {column}) DO UPDATE SET changes = changes + excluded.changes",
        [(repo, key, n) for key, n in counts.items()],
    )


def _add_pairs(
    db: sqlite3.Connection, table: str, repo: str, pairs: Mapping[tuple[str, str], int]
) -> None:
    db.executemany(
        f"INSERT INTO {table} (repo, a, b, count) VALUES (?,?,?,?) "
        f"ON CONFLICT(repo, a, b) DO UPDATE SET count = count + excluded.count",
        [(repo, a, b, n) for (a, b), n in pairs.items()],
    )


class SQLiteHistory:
    def __init__(self, connection: SQLiteConnection) -> None:
        self.connection = connection
        self.db = connection.db

    # ---------------------------------------------------------------- writes
    def write_history(self, repo: str, batch: HistoryBatch) -> None:
        with self.connection.transaction() as db:
            db.executemany(
                "INSERT OR IGNORE INTO commits VALUES (?,?,?,?,?,?,?,?)",
                [
                    (repo, c.sha, c.message, c.at, c.author, c.parents, c.files, c.ordinal)
                    for c in batch.commits
                ],
            )
            db.executemany(
                "INSERT INTO people VALUES (?,?,?) ON CONFLICT(email) DO UPDATE SET "
                "name = excluded.name, bot = excluded.bot",
                [(p.email, p.name, int(p.bot)) for p in batch.people],
            )
            db.executemany(
                "INSERT INTO touches VALUES (?,?,?,?,?)",
                [(repo, *t) for t in batch.file_touches],
            )
            db.executemany(
                "INSERT INTO symbol_touches VALUES (?,?,?,?)",
                [(repo, *t) for t in batch.symbol_touches],
            )
            _add_counts(db, "file_changes", "path", repo, batch.file_changes)
            _add_counts(db, "symbol_changes", "symbol", repo, batch.symbol_changes)
            _add_pairs(db, "cochanges", repo, batch.file_pairs)
            _add_pairs(db, "symbol_cochanges", repo, batch.symbol_pairs)

    def history_orphans(self, repo: str) -> tuple[set[str], set[str]]:
        paths = {
            r[0]
            for r in self.db.execute(
                "SELECT DISTINCT t.path FROM touches t WHERE t.repo = ? AND NOT EXISTS "
                "(SELECT 1 FROM files f WHERE f.repo = t.repo AND f.path = t.path)",
                (repo,),
            )
        }
        symbols = {
            r[0]
            for r in self.db.execute(
                "SELECT symbol FROM (SELECT DISTINCT symbol FROM symbol_touches "
                "WHERE symbol >= ? AND symbol < ?) WHERE NOT EXISTS "
                "(SELECT 1 FROM symbols s WHERE s.id = symbol)",
                repo_range(repo),
            )
        }
        return paths, symbols

    def history_symbols(self, repo: str, paths: Iterable[str]) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}
        for path in paths:
            low, _ = file_range(repo, path)
            for (symbol,) in self.db.execute(
                "SELECT DISTINCT symbol FROM symbol_touches WHERE symbol >= ? AND symbol < ?",
                (low, low + "\U0010ffff"),
            ):
                found.setdefault(path, set()).add(symbol)
        return found

    def remap_history(
        self, repo: str, files: dict[str, str | None], symbols: dict[str, str | None]
    ) -> None:
        """Re-key history at once (a → b and b → c move a's past to b and b's to c); None
        forgets it. Counts and pairs that meet under one key add up."""
        with self.connection.transaction() as db:
            for level, mapping, touches in (
                ("file", files, "touches"),
                ("symbol", symbols, "symbol_touches"),
            ):
                if mapping:
                    _remap(db, repo, mapping, touches, *_TABLES[level])

    def clear_history(self, repo: str) -> None:
        with self.connection.transaction() as db:
            for table in _HISTORY_TABLES:
                db.execute(f"DELETE FROM {table} WHERE repo = ?", (repo,))
            db.execute("UPDATE repos SET mined_sha = '' WHERE name = ?", (repo,))

    def pair_counts(
        self, repo: str, level: CoChangeLevel, keys: Iterable[str] | None = None
    ) -> list[PairCount]:
        pairs, changes, column = _TABLES[level]
        select = (
            f"SELECT p.a, p.b, p.count, coalesce(ca.changes, 0), coalesce(cb.changes, 0), "
            f"p.rowid "
            f"FROM {pairs} p "
            f"LEFT JOIN {changes} ca ON ca.repo = p.repo AND ca.{column} = p.a "
            f"LEFT JOIN {changes} cb ON cb.repo = p.repo AND cb.{column} = p.b "
            f"WHERE p.repo = ?"
        )
        if keys is None:
            return [PairCount(*row) for row in self.db.execute(select, (repo,))]
        listed = json.dumps(sorted(set(keys)))
        # each end one indexed look-up (an OR would scan the repository); UNION: a pair that
        # holds two of the keys comes once
        rows = self.db.execute(
            f"{select} AND p.a IN (SELECT value FROM json_each(?)) UNION "
            f"{select} AND p.b IN (SELECT value FROM json_each(?))",
            (repo, listed, repo, listed),
        )
        return [PairCount(*row) for row in rows]

    def set_pair_weights(self, repo: str, level: CoChangeLevel, weights: list[PairWeight]) -> None:
        pairs = _TABLES[level][0]
        with self.connection.transaction() as db:
            db.executemany(  # by the row id pair_counts gave: no index look-up
                f"UPDATE {pairs} SET weight = ? WHERE rowid = ? AND repo = ?",
                [(w.weight, w.ref, repo) for w in weights if w.ref is not None],
            )
            db.executemany(
                f"UPDATE {pairs} SET weight = ? WHERE repo = ? AND a = ? AND b = ?",
                [(w.weight, repo, w.a, w.b) for w in weights if w.ref is None],
            )

    def set_history_state(self, repo: str, mined_sha: str, codeowners: str) -> None:
        with self.connection.transaction() as db:
            db.execute(
                "UPDATE repos SET mined_sha = ?, codeowners = ? WHERE name = ?",
                (mined_sha, codeowners, repo),
            )

    # ---------------------------------------------------------------- reads
    def file_history(self, repo: str, path: str, limit: int, offset: int = 0) -> list[Touch]:
        rows = self.db.execute(
            f"SELECT {_TOUCH_COLUMNS}, t.path, t.added, t.deleted FROM touches t "
            f"JOIN files f ON f.repo = t.repo AND f.path = t.path "  # not a file gone since
            f"JOIN commits c ON c.repo = t.repo AND c.sha = t.sha "
            f"LEFT JOIN people p ON p.email = c.author "
            f"WHERE t.repo = ? AND t.path = ? ORDER BY c.ordinal DESC LIMIT ? OFFSET ?",
            (repo, path, limit, offset),
        )
        return [_touch(r) for r in rows]

    def symbol_history(self, symbol: str, limit: int, offset: int = 0) -> list[Touch]:
        rows = self.db.execute(
            f"SELECT {_TOUCH_COLUMNS}, t.symbol, t.lines, 0 FROM symbol_touches t "
            f"JOIN commits c ON c.repo = t.repo AND c.sha = t.sha "
            f"LEFT JOIN people p ON p.email = c.author "
            f"WHERE t.symbol = ? ORDER BY c.ordinal DESC LIMIT ? OFFSET ?",
            (symbol, limit, offset),
        )
        return [_touch(r) for r in rows]

    def touches_under(self, repo: str, folder: str) -> list[Touch]:
        prefix = folder.strip("/") + "/" if folder.strip("/") else ""  # "": the whole repository
        return self._touches(repo, "t.path >= ? AND t.path < ?", (prefix, prefix + "\U0010ffff"))

    def file_touches(self, repo: str, paths: Iterable[str]) -> dict[str, list[Touch]]:
        return {path: self._touches(repo, "t.path = ?", (path,)) for path in dict.fromkeys(paths)}

    def _touches(self, repo: str, where: str, args: tuple) -> list[Touch]:
        rows = self.db.execute(
            f"SELECT {_TOUCH_COLUMNS}, t.path, t.added, t.deleted FROM touches t "
            f"JOIN files f ON f.repo = t.repo AND f.path = t.path "  # not a file gone since
            f"JOIN commits c ON c.repo = t.repo AND c.sha = t.sha "
            f"LEFT JOIN people p ON p.email = c.author "
            f"WHERE t.repo = ? AND {where} ORDER BY c.ordinal DESC, t.path",
            (repo, *args),
        )
        return [_touch(r) for r in rows]

    def cochanges(
        self, repo: str, paths: Iterable[str], min_count: int, limit: int
    ) -> dict[str, list[CoChange]]:
        return {
            path: self._partners("cochanges", repo, path, min_count, limit)
            for path in dict.fromkeys(paths)
        }

    def symbol_cochanges(
        self, symbols: Iterable[str], min_count: int, limit: int
    ) -> dict[str, list[CoChange]]:
        return {
            symbol: self._partners(
                "symbol_cochanges", symbol.partition(":")[0], symbol, min_count, limit
            )
            for symbol in dict.fromkeys(symbols)
        }

    def _partners(
        self, table: str, repo: str, key: str, min_count: int, limit: int
    ) -> list[CoChange]:
        rows = self.db.execute(  # each half one indexed look-up (an OR would scan the repo)
            f"SELECT b AS other, count, weight FROM {table} WHERE repo = ? AND a = ? "
            f"AND count >= ? UNION ALL "
            f"SELECT a AS other, count, weight FROM {table} WHERE repo = ? AND b = ? "
            f"AND count >= ? ORDER BY weight DESC, count DESC, other LIMIT ?",
            (repo, key, min_count, repo, key, min_count, limit),
        )
        return [CoChange(*r) for r in rows]

    def history_stats(self, repo: str) -> dict:
        commits, first, last, ordinal = self.db.execute(
            "SELECT count(*), min(at), max(at), coalesce(max(ordinal), 0) FROM commits "
            "WHERE repo = ?",
            (repo,),
        ).fetchone()
        people = self.db.execute(
            "SELECT count(DISTINCT author) FROM commits WHERE repo = ?", (repo,)
        ).fetchone()[0]
        return {
            "commits": commits,
            "people": people,
            "first": first or "",
            "last": last or "",
            "ordinal": ordinal,
        }


def _remap(
    db: sqlite3.Connection,
    repo: str,
    mapping: dict[str, str | None],
    touches: str,
    pairs: str,
    changes: str,
    column: str,
) -> None:
    db.execute("CREATE TEMP TABLE IF NOT EXISTS remap (old TEXT PRIMARY KEY, new TEXT)")
    db.execute("DELETE FROM remap")
    db.executemany("INSERT INTO remap VALUES (?, ?)", mapping.items())
    db.execute(
        f"DELETE FROM {touches} WHERE repo = ? AND {column} IN "
        "(SELECT old FROM remap WHERE new IS NULL)",
        (repo,),
    )
    db.execute(
        f"UPDATE {touches} SET {column} = (SELECT new FROM remap WHERE old = {column}) "
        f"WHERE repo = ? AND {column} IN (SELECT old FROM remap WHERE new IS NOT NULL)",
        (repo,),
    )
    counts = db.execute(
        f"DELETE FROM {changes} WHERE repo = ? AND {column} IN (SELECT old FROM remap) "
        f"RETURNING {column}, changes",
        (repo,),
    ).fetchall()
    moved_counts: Counter[str] = Counter()
    for key, n in counts:
        target = mapping[key]
        if target:
            moved_counts[target] += n
    _add_counts(db, changes, column, repo, moved_counts)
    found = db.execute(
        f"DELETE FROM {pairs} WHERE repo = ? AND (a IN (SELECT old FROM remap) "
        "OR b IN (SELECT old FROM remap)) RETURNING a, b, count",
        (repo,),
    ).fetchall()
    moved_pairs: Counter[tuple[str, str]] = Counter()
    for a, b, n in found:
        a, b = mapping.get(a, a), mapping.get(b, b)
        if a and b and a != b:
            moved_pairs[(min(a, b), max(a, b))] += n
    _add_pairs(db, pairs, repo, moved_pairs)
