"""The embedded store's schema: numbered migrations (SQL scripts under migrations/, and one
step in Python), applied in order up to `model.SCHEMA_VERSION` when a store is opened."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from importlib import resources
from pathlib import Path

from cartograph.model import SCHEMA_VERSION
from cartograph.store.interfaces import StoreError

REPAIR_EARLY_SCHEMA_1 = "repair_early_schema_1"  # a step in Python: see _repair_early_schema_1
MIGRATIONS = {
    1: "sqlite_001_initial.sql",
    2: "sqlite_002_history.sql",
    3: "sqlite_003_tracking.sql",
    4: "sqlite_004_resolution.sql",
    5: "sqlite_005_agents.sql",
    6: "sqlite_006_tokens.sql",
    7: REPAIR_EARLY_SCHEMA_1,
    8: "sqlite_008_order_and_claim_versions.sql",
    9: "sqlite_009_session_owners.sql",
    10: "sqlite_010_flows.sql",
    11: "sqlite_011_manifests.sql",
    12: "sqlite_012_impact.sql",
    13: "sqlite_013_body_search.sql",
    14: "sqlite_014_overlays.sql",
    15: "sqlite_015_services.sql",
    16: "sqlite_016_indexed_run.sql",
    17: "sqlite_017_unknown_reasons.sql",
    18: "sqlite_018_nothing.sql",
}

# the full-text tables over symbols (rowid = the symbol's rowid)
SEARCH_TABLES = ("symbol_search", "symbol_body")
# the code graph: derived from the repositories, rebuilt by the next index run
DERIVED_TABLES = (
    "files", "skipped", "symbols", "edges", "imports", "unresolved", "deps", "pending",
    "packages", "manifests", "locks", "services",
)  # fmt: skip


def schema_version(db: sqlite3.Connection) -> int:
    exists = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    if not exists:
        return 0
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def migrate(
    db: sqlite3.Connection,
    path: Path,
    transaction: Callable[[], AbstractContextManager[sqlite3.Connection]],
) -> None:
    """Bring the schema to SCHEMA_VERSION (a current store is only read: a read-only file
    still answers queries)."""
    try:
        version = schema_version(db)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} is not a Cartograph SQLite store: {exc}") from exc
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path} has schema version {version}; this Cartograph knows "
            f"{SCHEMA_VERSION}. Upgrade Cartograph."
        )
    if version == SCHEMA_VERSION:
        return
    with transaction() as db:
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        version = schema_version(db)  # another process may have migrated meanwhile
        for target in range(version + 1, SCHEMA_VERSION + 1):
            if MIGRATIONS[target] == REPAIR_EARLY_SCHEMA_1:
                _repair_early_schema_1(db, before=target)
            else:
                _run_script(db, MIGRATIONS[target])
            db.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(target),))


_ADD_COLUMN = re.compile(r'ALTER\s+TABLE\s+(\w+)\s+ADD\s+COLUMN\s+"?(\w+)"?', re.IGNORECASE)


def _run_script(db: sqlite3.Connection, name: str) -> None:
    script = resources.files("cartograph.store.sqlite").joinpath(f"migrations/{name}").read_text()
    for statement in _statements(script):
        added = _ADD_COLUMN.match(statement)
        if added and added[2] in _columns(db, added[1]):
            continue  # a table made again by an earlier step has the column already
        db.execute(statement)


def _columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in db.execute(f"PRAGMA table_info({table})")]


def _statements(script: str) -> list[str]:
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def _repair_early_schema_1(db: sqlite3.Connection, before: int) -> None:
    """Early builds of schema 1 created tables that the first migration's script later changed
    in place (`files` lacked `interface` and `aliases`; `edges` and `unresolved` had `repo` and
    `path`; `pending` did not exist). Where the code-graph tables differ from what the scripts
    before this step make, they are made again — they are derived data: every repository is
    rebuilt by its next index run (`index_format` cleared) — and any other table gains the
    columns it lacks. Later scripts then change the repaired tables as they change any other."""
    fresh = sqlite3.connect(":memory:")
    for target in sorted(MIGRATIONS):
        if target < before and MIGRATIONS[target].endswith(".sql"):
            _run_script(fresh, MIGRATIONS[target])

    if any(_columns(db, t) != _columns(fresh, t) for t in DERIVED_TABLES):
        for table in (*DERIVED_TABLES, *SEARCH_TABLES):
            db.execute(f"DROP TABLE IF EXISTS {table}")
        marks = ",".join("?" * len(DERIVED_TABLES))
        rows = fresh.execute(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL "
            f"AND (tbl_name IN ({marks}) OR name IN ('symbol_search', 'symbol_body')) "
            "ORDER BY type = 'index'",
            DERIVED_TABLES,
        ).fetchall()
        for (sql,) in rows:
            db.execute(sql)
        db.execute("UPDATE repos SET index_format = ''")
    others = fresh.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' "
        "AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'symbol_search%' "
        "AND name NOT LIKE 'symbol_body%'"
    ).fetchall()
    for (table,) in others:
        have = set(_columns(db, table))
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
