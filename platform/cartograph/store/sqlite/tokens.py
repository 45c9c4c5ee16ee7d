"""API tokens in the SQLite store (schema version 6): names, scopes and SHA-256 hashes."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from cartograph.errors import Conflict
from cartograph.model import ApiToken
from cartograph.store.sqlite.connection import SQLiteConnection

_COLUMNS = "id, name, scopes, hash, created_at, revoked_at"


def _token(row: Sequence) -> ApiToken:
    return ApiToken(row[0], row[1], tuple(row[2].split()), row[3], row[4], row[5])


class SQLiteTokens:
    def __init__(self, connection: SQLiteConnection) -> None:
        self.connection = connection
        self.db = connection.db

    def add_token(self, name: str, scopes: tuple[str, ...], digest: str, at: str) -> ApiToken:
        with self.connection.transaction() as db:
            try:
                token_id = db.execute(
                    "INSERT INTO api_tokens (name, scopes, hash, created_at) VALUES (?,?,?,?)",
                    (name, " ".join(scopes), digest, at),
                ).lastrowid
            except sqlite3.IntegrityError as exc:
                raise Conflict(f"a token named {name!r} exists already") from exc
        return ApiToken(int(token_id or 0), name, scopes, digest, at, "")

    def token_by_hash(self, digest: str) -> ApiToken | None:
        row = self.db.execute(
            f"SELECT {_COLUMNS} FROM api_tokens WHERE hash = ?", (digest,)
        ).fetchone()
        return _token(row) if row else None

    def list_tokens(self) -> list[ApiToken]:
        rows = self.db.execute(f"SELECT {_COLUMNS} FROM api_tokens ORDER BY id").fetchall()
        return [_token(r) for r in rows]

    def revoke_token(self, name: str, at: str) -> bool:
        with self.connection.transaction() as db:
            changed = db.execute(
                "UPDATE api_tokens SET revoked_at = ? WHERE name = ? AND revoked_at = ''",
                (at, name),
            ).rowcount
        return changed == 1
