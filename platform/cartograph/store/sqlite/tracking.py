"""Tracked repositories in the SQLite store (schema version 3): the `tracked` table holds each
repository's URL, branch, webhook secret and the state of its last sync job; `deliveries`
remembers webhook delivery ids for a week (a redelivery is recognised)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cartograph.model import TrackedRepo
from cartograph.store.interfaces import DELIVERY_DAYS, TRACKED_FIELDS, check_tracked_fields
from cartograph.store.sqlite.connection import SQLiteConnection

_COLUMNS = ", ".join(TRACKED_FIELDS)


class SQLiteTracking:
    def __init__(self, connection: SQLiteConnection) -> None:
        self.connection = connection
        self.db = connection.db

    def track_repo(self, tracked: TrackedRepo) -> None:
        marks = ", ".join("?" for _ in TRACKED_FIELDS)
        updates = ", ".join(f"{c} = excluded.{c}" for c in TRACKED_FIELDS if c != "name")
        with self.connection.transaction() as db:
            db.execute(
                f"INSERT INTO tracked ({_COLUMNS}) VALUES ({marks}) "
                f"ON CONFLICT(name) DO UPDATE SET {updates}",
                [getattr(tracked, c) for c in TRACKED_FIELDS],
            )

    def get_tracked(self, name: str) -> TrackedRepo | None:
        row = self.db.execute(f"SELECT {_COLUMNS} FROM tracked WHERE name = ?", (name,)).fetchone()
        return TrackedRepo(*row) if row else None

    def tracked_repos(self) -> list[TrackedRepo]:
        rows = self.db.execute(f"SELECT {_COLUMNS} FROM tracked ORDER BY name").fetchall()
        return [TrackedRepo(*row) for row in rows]

    def update_tracked(self, name: str, **fields: object) -> None:
        check_tracked_fields(fields)
        if not fields:
            return
        assignments = ", ".join(f"{column} = ?" for column in fields)
        with self.connection.transaction() as db:
            db.execute(f"UPDATE tracked SET {assignments} WHERE name = ?", [*fields.values(), name])

    def untrack_repo(self, name: str) -> None:
        with self.connection.transaction() as db:
            db.execute("DELETE FROM tracked WHERE name = ?", (name,))
            db.execute("DELETE FROM deliveries WHERE repo = ?", (name,))

    def record_delivery(self, repo: str, delivery_id: str) -> bool:
        now = datetime.now(UTC)
        cutoff = (now - timedelta(days=DELIVERY_DAYS)).isoformat(timespec="seconds")
        with self.connection.transaction(answers_change=False) as db:
            db.execute("DELETE FROM deliveries WHERE repo = ? AND at < ?", (repo, cutoff))
            inserted = db.execute(
                "INSERT OR IGNORE INTO deliveries VALUES (?, ?, ?)",
                (repo, delivery_id, now.isoformat(timespec="seconds")),
            ).rowcount
        return inserted == 1

    def forget_delivery(self, repo: str, delivery_id: str) -> None:
        with self.connection.transaction(answers_change=False) as db:
            db.execute("DELETE FROM deliveries WHERE repo = ? AND id = ?", (repo, delivery_id))
