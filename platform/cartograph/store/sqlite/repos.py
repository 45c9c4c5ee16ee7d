"""Repository records in the SQLite store (`repos`), and forgetting a repository whole."""

from __future__ import annotations

from collections.abc import Sequence

from cartograph.model import Manifest, Repo
from cartograph.store.sqlite.connection import SQLiteConnection, repo_range
from cartograph.store.sqlite.schema import SEARCH_TABLES

# every table of a repository's data keyed by repository name (the code graph's own rows are
# id ranges); not `locks`: a run that rebuilds a repository deletes its data under its own
# index lock, which must hold until the run releases it
_REPO_TABLES = (
    "imports", "deps", "files", "skipped", "packages", "manifests", "pending", "commits", "touches",
    "symbol_touches", "file_changes", "cochanges", "symbol_changes", "symbol_cochanges",
    "services",
)  # fmt: skip


def repo_from_row(row: Sequence) -> Repo:
    name, root, url, branch, head, indexed, at = row[:7]
    return Repo(
        name,
        root,
        url,
        branch,
        head,
        indexed,
        at,
        dirty=bool(row[7]),
        index_format=row[8],
        mined_sha=row[9] if len(row) > 9 else "",
        codeowners=row[10] if len(row) > 10 else "",
        indexed_run=row[11] if len(row) > 11 else "",
    )


class SQLiteRepoCatalog:
    def __init__(self, connection: SQLiteConnection) -> None:
        self.connection = connection
        self.db = connection.db

    def upsert_repo(self, repo: Repo) -> None:
        with self.connection.transaction() as db:
            db.execute(
                # the history columns (mined_sha, codeowners) are set by set_history_state only
                "INSERT INTO repos (name, root, url, default_branch, head_sha, indexed_sha, "
                "indexed_at, dirty, index_format, indexed_run) VALUES (?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT(name) DO UPDATE SET "
                "root=excluded.root, url=excluded.url, default_branch=excluded.default_branch, "
                "head_sha=excluded.head_sha, indexed_sha=excluded.indexed_sha, "
                "indexed_at=excluded.indexed_at, dirty=excluded.dirty, "
                "index_format=excluded.index_format, indexed_run=excluded.indexed_run",
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
                    repo.indexed_run,
                ),
            )

    def get_repo(self, name: str) -> Repo | None:
        row = self.db.execute("SELECT * FROM repos WHERE name = ?", (name,)).fetchone()
        return repo_from_row(row) if row else None

    def list_repos(self) -> list[Repo]:
        return [repo_from_row(r) for r in self.db.execute("SELECT * FROM repos ORDER BY name")]

    def set_manifest(self, manifest: Manifest) -> None:
        with self.connection.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO manifests (repo, data) VALUES (?, ?)",
                (manifest.repo, manifest.to_json()),
            )

    def manifests(self) -> dict[str, Manifest]:
        rows = self.db.execute("SELECT repo, data FROM manifests ORDER BY repo")
        return {r[0]: Manifest.from_json(r[1]) for r in rows}

    def delete_repo(self, name: str) -> None:
        with self.connection.transaction() as db:
            low, high = repo_range(name)
            for table in SEARCH_TABLES:
                db.execute(
                    f"DELETE FROM {table} WHERE rowid IN "
                    "(SELECT rowid FROM symbols WHERE id >= ? AND id < ?)",
                    (low, high),
                )
            for table in ("symbols", "edges", "unresolved"):
                column = "id" if table == "symbols" else "src"
                db.execute(f"DELETE FROM {table} WHERE {column} >= ? AND {column} < ?", (low, high))
            for table in _REPO_TABLES:
                db.execute(f"DELETE FROM {table} WHERE repo = ?", (name,))
            db.execute("DELETE FROM repos WHERE name = ?", (name,))
