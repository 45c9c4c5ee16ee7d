"""The embedded store: one SQLite file (WAL, FTS5), the default for one developer. One module
per interface over one shared connection (`connection.py`; the schema in `schema.py`)."""

from __future__ import annotations

import os

from cartograph.store.interfaces import Store
from cartograph.store.sqlite.connection import SQLiteConnection
from cartograph.store.sqlite.graph import SQLiteGraphReader
from cartograph.store.sqlite.history import SQLiteHistory
from cartograph.store.sqlite.impact import SQLiteImpact
from cartograph.store.sqlite.index import SQLiteIndexWriter
from cartograph.store.sqlite.repos import SQLiteRepoCatalog
from cartograph.store.sqlite.team import SQLiteTeam
from cartograph.store.sqlite.tokens import SQLiteTokens
from cartograph.store.sqlite.tracking import SQLiteTracking


def open_sqlite(path: str | os.PathLike[str]) -> Store:
    """The store in one SQLite file (created, or migrated to the current schema)."""
    connection = SQLiteConnection(path)
    repos = SQLiteRepoCatalog(connection)
    return Store(
        connection=connection,
        repos=repos,
        index=SQLiteIndexWriter(connection),
        graph=SQLiteGraphReader(connection, repos),
        history=SQLiteHistory(connection),
        team=SQLiteTeam(connection),
        tokens=SQLiteTokens(connection),
        tracking=SQLiteTracking(connection),
        impact=SQLiteImpact(connection),
    )


__all__ = ["SQLiteConnection", "open_sqlite"]
