"""What impact keeps, in the SQLite store (schema version 12): coverage evidence (which test
ran which symbol) and the reports of pull requests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cartograph.model import REVIEW_FIELDS, Review
from cartograph.store.interfaces import Coverage
from cartograph.store.sqlite.connection import SQLiteConnection

_CHUNK = 500


def _review(row: Sequence) -> Review:
    return Review(*row)


class SQLiteImpact:
    def __init__(self, connection: SQLiteConnection) -> None:
        self.connection = connection
        self.db = connection.db

    def set_coverage(
        self, repo: str, source: str, commit: str, pairs: Iterable[tuple[str, str]]
    ) -> int:
        rows = sorted({(repo, symbol, test) for test, symbol in pairs})
        with self.connection.transaction() as db:
            db.execute("DELETE FROM coverage WHERE repo = ?", (repo,))
            db.executemany("INSERT INTO coverage (repo, symbol, test) VALUES (?,?,?)", rows)
            db.execute(
                "INSERT OR REPLACE INTO coverage_sources (repo, source, commit_sha) VALUES (?,?,?)",
                (repo, source, commit),
            )
        return len(rows)

    def covering_tests(self, repo: str, symbol_ids: Iterable[str]) -> Coverage | None:
        head = self.db.execute(
            "SELECT source, commit_sha FROM coverage_sources WHERE repo = ?", (repo,)
        ).fetchone()
        if head is None:
            return None
        found: dict[str, set[str]] = {}
        ids = sorted(set(symbol_ids))
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for symbol, test in self.db.execute(
                f"SELECT symbol, test FROM coverage WHERE repo = ? AND symbol IN ({marks})",
                (repo, *chunk),
            ):
                found.setdefault(symbol, set()).add(test)
        return Coverage(head[0], head[1], found)

    def put_review(self, review: Review) -> None:
        columns = ", ".join(REVIEW_FIELDS)
        marks = ",".join("?" * len(REVIEW_FIELDS))
        with self.connection.transaction() as db:
            db.execute(
                f"INSERT OR REPLACE INTO reviews ({columns}) VALUES ({marks})",
                tuple(getattr(review, name) for name in REVIEW_FIELDS),
            )

    def get_review(self, repo: str, number: int) -> Review | None:
        row = self.db.execute(
            f"SELECT {', '.join(REVIEW_FIELDS)} FROM reviews WHERE repo = ? AND number = ?",
            (repo, number),
        ).fetchone()
        return _review(row) if row else None

    def reviews(self, repo: str, limit: int) -> list[Review]:
        rows = self.db.execute(
            f"SELECT {', '.join(REVIEW_FIELDS)} FROM reviews WHERE repo = ? "
            "ORDER BY computed_at DESC, number DESC LIMIT ?",
            (repo, limit),
        ).fetchall()
        return [_review(r) for r in rows]

    def forget_impact(self, repo: str) -> None:
        with self.connection.transaction() as db:
            for table in ("coverage", "coverage_sources", "reviews"):
                db.execute(f"DELETE FROM {table} WHERE repo = ?", (repo,))
