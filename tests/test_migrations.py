"""An embedded store written by an earlier Cartograph opens and indexes with this one."""

from __future__ import annotations

import sqlite3
from importlib import resources

import pytest
from cartograph.index import index_repository
from cartograph.model import SCHEMA_VERSION
from cartograph.query import context
from cartograph.store.sqlite import open_sqlite
from cartograph.store.sqlite.schema import MIGRATIONS
from sample_repo import make_sample_repo


def test_a_store_from_an_early_schema_1_build_gains_its_missing_columns(tmp_path):
    """Early builds created `files` without `interface` and `aliases`, `edges` with `repo` and
    `path`, and no `pending` (the first migration changed later); such a store, migrated up to
    version 6, used to fail on write."""
    path = tmp_path / "graph.db"
    open_sqlite(path).close()
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE files DROP COLUMN interface")
    db.execute("ALTER TABLE files DROP COLUMN aliases")
    db.execute("DROP TABLE edges")
    db.execute(
        "CREATE TABLE edges (type TEXT NOT NULL, src TEXT NOT NULL, dst TEXT NOT NULL, "
        "repo TEXT NOT NULL, path TEXT NOT NULL, lines TEXT NOT NULL, count INTEGER NOT NULL, "
        "via TEXT NOT NULL, confidence REAL NOT NULL) STRICT"
    )
    db.execute("DROP TABLE pending")
    db.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    db.commit()
    db.close()

    store = open_sqlite(path)
    columns = {row[1] for row in store.connection.db.execute("PRAGMA table_info(files)")}
    assert {"interface", "aliases", "resolution"} <= columns
    edge_columns = [row[1] for row in store.connection.db.execute("PRAGMA table_info(edges)")]
    assert "repo" not in edge_columns
    root = make_sample_repo(tmp_path / "shop")
    index_repository(store, root, name="shop", workers=1)
    assert context(store, "Cart").symbol.qualname == "shop.models.Cart"
    again = index_repository(store, root, name="shop", workers=1)
    assert again.parsed == 0


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION))
def test_a_store_of_every_older_version_migrates_and_indexes(tmp_path, version):
    """A store made by the migrations up to `version` (as that release left it) opens, reaches
    the current schema, and indexes and answers."""
    path = tmp_path / "graph.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    for step in range(1, version + 1):
        if MIGRATIONS[step].endswith(".sql"):
            script = resources.files("cartograph.store.sqlite").joinpath(
                f"migrations/{MIGRATIONS[step]}"
            )
            db.executescript(script.read_text())
    db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(version),))
    db.close()

    store = open_sqlite(path)
    assert store.schema_version() == SCHEMA_VERSION
    edge_columns = [row[1] for row in store.connection.db.execute("PRAGMA table_info(edges)")]
    assert edge_columns[-1] == "order"
    root = make_sample_repo(tmp_path / "shop")
    index_repository(store, root, name="shop", workers=1)
    assert context(store, "Cart").symbol.qualname == "shop.models.Cart"
    store.close()
