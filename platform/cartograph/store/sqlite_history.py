"""Git history in the SQLite store (schema version 2): commits, people, touches, co-change."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from cartograph.model import CoChange, HistoryBatch, Touch

_TOUCH_COLUMNS = "c.sha, c.at, c.message, c.author, coalesce(p.name, ''), coalesce(p.bot, 0)"


def _touch(row: tuple) -> Touch:
    return Touch(row[0], row[1], row[2], row[3], row[4], bool(row[5]), row[6], row[7], row[8])


class SQLiteHistory:
    """Mixed into SQLiteStore (which provides `db` and `_transaction`)."""

    db: sqlite3.Connection

    def write_history(self, repo: str, batch: HistoryBatch) -> None:
        with self._transaction() as db:  # type: ignore[attr-defined]
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
            self._add_counts(db, "file_changes", "path", repo, batch.file_changes)
            self._add_counts(db, "symbol_changes", "symbol", repo, batch.symbol_changes)
            self._add_pairs(db, "cochanges", repo, batch.file_pairs)
            self._add_pairs(db, "symbol_cochanges", repo, batch.symbol_pairs)

    @staticmethod
    def _add_counts(db, table: str, column: str, repo: str, counts) -> None:
        db.executemany(
            f"INSERT INTO {table} (repo, {column}, changes) VALUES (?,?,?) "
            f"ON CONFLICT(repo, {column}) DO UPDATE SET changes = changes + excluded.changes",
            [(repo, key, n) for key, n in counts.items()],
        )

    @staticmethod
    def _add_pairs(db, table: str, repo: str, pairs) -> None:
        db.executemany(
            f"INSERT INTO {table} (repo, a, b, count) VALUES (?,?,?,?) "
            f"ON CONFLICT(repo, a, b) DO UPDATE SET count = count + excluded.count",
            [(repo, a, b, n) for (a, b), n in pairs.items()],
        )

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
                (f"{repo}:", f"{repo};"),
            )
        }
        return paths, symbols

    def history_symbols(self, repo: str, paths: Iterable[str]) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}
        for path in paths:
            prefix = f"{repo}:{path}#"
            for (symbol,) in self.db.execute(
                "SELECT DISTINCT symbol FROM symbol_touches WHERE symbol >= ? AND symbol < ?",
                (prefix, prefix + "\U0010ffff"),
            ):
                found.setdefault(path, set()).add(symbol)
        return found

    def remap_history(
        self, repo: str, files: dict[str, str | None], symbols: dict[str, str | None]
    ) -> None:
        """Re-key history at once (a → b and b → c move a's past to b and b's to c); None
        forgets it. Counts and pairs that meet under one key add up."""
        with self._transaction() as db:  # type: ignore[attr-defined]
            for mapping, touches, column, changes, pairs in (
                (files, "touches", "path", "file_changes", "cochanges"),
                (symbols, "symbol_touches", "symbol", "symbol_changes", "symbol_cochanges"),
            ):
                if mapping:
                    self._remap(db, repo, mapping, touches, column, changes, pairs)

    def _remap(self, db, repo, mapping, touches, column, changes, pairs) -> None:
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
        moved_counts: dict[str, int] = {}
        for key, n in counts:
            if mapping[key]:
                moved_counts[mapping[key]] = moved_counts.get(mapping[key], 0) + n
        self._add_counts(db, changes, column, repo, moved_counts)
        found = db.execute(
            f"DELETE FROM {pairs} WHERE repo = ? AND (a IN (SELECT old FROM remap) "
            "OR b IN (SELECT old FROM remap)) RETURNING a, b, count",
            (repo,),
        ).fetchall()
        moved_pairs: dict[tuple[str, str], int] = {}
        for a, b, n in found:
            a, b = mapping.get(a, a), mapping.get(b, b)
            if a and b and a != b:
                key = (min(a, b), max(a, b))
                moved_pairs[key] = moved_pairs.get(key, 0) + n
        self._add_pairs(db, pairs, repo, moved_pairs)

    def clear_history(self, repo: str) -> None:
        with self._transaction() as db:  # type: ignore[attr-defined]
            for table in ("commits", "touches", "symbol_touches", "file_changes", "cochanges",
                          "symbol_changes", "symbol_cochanges"):  # fmt: skip
                db.execute(f"DELETE FROM {table} WHERE repo = ?", (repo,))
            db.execute("UPDATE repos SET mined_sha = '' WHERE name = ?", (repo,))

    def refresh_cochange_weights(
        self, repo: str, files: Iterable[str] | None = None, symbols: Iterable[str] | None = None
    ) -> None:
        """weight = count / min(changes of a, changes of b), for every pair or (given the files
        and symbols whose change counts moved) for the pairs that hold one of them."""
        everything = files is None and symbols is None
        with self._transaction() as db:  # type: ignore[attr-defined]
            for pairs, changes, column, keys in (
                ("cochanges", "file_changes", "path", files),
                ("symbol_cochanges", "symbol_changes", "symbol", symbols),
            ):
                weight = (
                    f"UPDATE {pairs} AS p SET weight = round(p.count * 1.0 / max(1, min("
                    f"(SELECT changes FROM {changes} c WHERE c.repo = p.repo AND c.{column} = p.a), "
                    f"(SELECT changes FROM {changes} c WHERE c.repo = p.repo AND c.{column} = p.b)"
                    f")), 4) WHERE p.repo = ?"
                )
                if everything:
                    db.execute(weight, (repo,))
                    continue
                db.execute("CREATE TEMP TABLE IF NOT EXISTS weight_keys (key TEXT PRIMARY KEY)")
                db.execute("DELETE FROM weight_keys")
                db.executemany(
                    "INSERT OR IGNORE INTO weight_keys VALUES (?)", ((k,) for k in keys or ())
                )
                for end in ("a", "b"):  # one indexed look-up each (an OR would scan)
                    db.execute(weight + f" AND p.{end} IN (SELECT key FROM weight_keys)", (repo,))

    def set_history_state(self, repo: str, mined_sha: str, codeowners: str) -> None:
        with self._transaction() as db:  # type: ignore[attr-defined]
            db.execute(
                "UPDATE repos SET mined_sha = ?, codeowners = ? WHERE name = ?",
                (mined_sha, codeowners, repo),
            )

    def symbol_spans(
        self, repo: str, kinds: Iterable[str], paths: Iterable[str] | None = None
    ) -> dict[str, list[tuple[int, int, str]]]:
        kinds = list(kinds)
        spans: dict[str, list[tuple[int, int, str]]] = {}
        kind_marks = ",".join("?" * len(kinds))
        if paths is None:
            ranges = [(f"{repo}:", f"{repo};")]
        else:  # a file's symbols are the id range ['repo:path#', 'repo:path$')
            ranges = [(f"{repo}:{p}#", f"{repo}:{p}$") for p in paths]
        rows = [
            row
            for low, high in ranges
            for row in self.db.execute(
                f"SELECT path, start_line, end_line, id FROM symbols WHERE id >= ? AND id < ? "
                f"AND kind IN ({kind_marks})",
                (low, high, *kinds),
            )
        ]
        for path, start, end, sid in rows:
            spans.setdefault(path, []).append((start, end, sid))
        return spans

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

    def touches_under(self, repo: str, path: str, exact: bool) -> list[Touch]:
        """Every touch of a file (exact) or of the files under a folder, with its author."""
        folder = path.strip("/") + "/"
        where = "t.path = ?" if exact else "t.path >= ? AND t.path < ?"
        args = (path,) if exact else (folder, folder + "\U0010ffff")
        rows = self.db.execute(
            f"SELECT {_TOUCH_COLUMNS}, t.path, t.added, t.deleted FROM touches t "
            f"JOIN files f ON f.repo = t.repo AND f.path = t.path "  # not a file gone since
            f"JOIN commits c ON c.repo = t.repo AND c.sha = t.sha "
            f"LEFT JOIN people p ON p.email = c.author "
            f"WHERE t.repo = ? AND {where} ORDER BY c.ordinal DESC, t.path",
            (repo, *args),
        )
        return [_touch(r) for r in rows]

    def cochanges(self, repo: str, path: str, min_count: int, limit: int) -> list[CoChange]:
        return self._pairs("cochanges", repo, path, min_count, limit)

    def symbol_cochanges(self, symbol: str, min_count: int, limit: int) -> list[CoChange]:
        repo = symbol.partition(":")[0]
        return self._pairs("symbol_cochanges", repo, symbol, min_count, limit)

    def _pairs(self, table: str, repo: str, key: str, min_count: int, limit: int) -> list[CoChange]:
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
