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

    def rename_history(self, repo: str, moves: dict[str, str]) -> None:
        """History kept under old paths follows the files to their new paths."""
        with self._transaction() as db:  # type: ignore[attr-defined]
            for old, new in moves.items():
                db.execute(
                    "UPDATE touches SET path = ? WHERE repo = ? AND path = ?", (new, repo, old)
                )
                row = db.execute(
                    "DELETE FROM file_changes WHERE repo = ? AND path = ? RETURNING changes",
                    (repo, old),
                ).fetchone()
                if row:
                    self._add_counts(db, "file_changes", "path", repo, {new: row[0]})
                pairs = db.execute(
                    "DELETE FROM cochanges WHERE repo = ? AND (a = ? OR b = ?) "
                    "RETURNING a, b, count",
                    (repo, old, old),
                ).fetchall()
                moved: dict[tuple[str, str], int] = {}
                for a, b, count in pairs:
                    a, b = (new if a == old else a), (new if b == old else b)
                    if a != b:
                        key = (min(a, b), max(a, b))
                        moved[key] = moved.get(key, 0) + count
                self._add_pairs(db, "cochanges", repo, moved)

    def clear_history(self, repo: str) -> None:
        with self._transaction() as db:  # type: ignore[attr-defined]
            for table in ("commits", "touches", "symbol_touches", "file_changes", "cochanges",
                          "symbol_changes", "symbol_cochanges"):  # fmt: skip
                db.execute(f"DELETE FROM {table} WHERE repo = ?", (repo,))
            db.execute("UPDATE repos SET mined_sha = '' WHERE name = ?", (repo,))

    def refresh_cochange_weights(self, repo: str) -> None:
        """weight = count / min(changes of a, changes of b)."""
        with self._transaction() as db:  # type: ignore[attr-defined]
            for pairs, changes, column in (
                ("cochanges", "file_changes", "path"),
                ("symbol_cochanges", "symbol_changes", "symbol"),
            ):
                db.execute(
                    f"UPDATE {pairs} AS p SET weight = round(p.count * 1.0 / max(1, min("
                    f"(SELECT changes FROM {changes} c WHERE c.repo = p.repo AND c.{column} = p.a), "
                    f"(SELECT changes FROM {changes} c WHERE c.repo = p.repo AND c.{column} = p.b)"
                    f")), 4) WHERE p.repo = ?",
                    (repo,),
                )

    def set_history_state(self, repo: str, mined_sha: str, codeowners: str) -> None:
        with self._transaction() as db:  # type: ignore[attr-defined]
            db.execute(
                "UPDATE repos SET mined_sha = ?, codeowners = ? WHERE name = ?",
                (mined_sha, codeowners, repo),
            )

    def symbol_spans(
        self, repo: str, kinds: Iterable[str]
    ) -> dict[str, list[tuple[int, int, str]]]:
        kinds = list(kinds)
        spans: dict[str, list[tuple[int, int, str]]] = {}
        rows = self.db.execute(
            f"SELECT path, start_line, end_line, id FROM symbols WHERE id >= ? AND id < ? "
            f"AND kind IN ({','.join('?' * len(kinds))})",
            (f"{repo}:", f"{repo};", *kinds),
        )
        for path, start, end, sid in rows:
            spans.setdefault(path, []).append((start, end, sid))
        return spans

    # ---------------------------------------------------------------- reads
    def file_history(self, repo: str, path: str, limit: int, offset: int = 0) -> list[Touch]:
        rows = self.db.execute(
            f"SELECT {_TOUCH_COLUMNS}, t.path, t.added, t.deleted FROM touches t "
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
        where = "t.path = ?" if exact else "t.path >= ? AND t.path < ?"
        args = (path,) if exact else (path, path + "\U0010ffff")
        rows = self.db.execute(
            f"SELECT {_TOUCH_COLUMNS}, t.path, t.added, t.deleted FROM touches t "
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
        rows = self.db.execute(
            f"SELECT CASE WHEN a = ? THEN b ELSE a END AS other, count, weight FROM {table} "
            f"WHERE repo = ? AND (a = ? OR b = ?) AND count >= ? "
            f"ORDER BY weight DESC, count DESC, other LIMIT ?",
            (key, repo, key, key, min_count, limit),
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
