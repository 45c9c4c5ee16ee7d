"""API tokens in the Neo4j store: `(:ApiToken {id, name, scopes, hash, created_at,
revoked_at})`; `name` and `hash` are unique, only a SHA-256 of each token is kept."""

from __future__ import annotations

from typing import Any

from cartograph.errors import Conflict
from cartograph.model import ApiToken
from cartograph.store.neo4j.connection import Neo4jConnection

_RETURN = (
    "t.id AS id, t.name AS name, t.scopes AS scopes, t.hash AS hash, "
    "t.created_at AS created_at, t.revoked_at AS revoked_at"
)


def _token(record: Any) -> ApiToken:
    return ApiToken(
        record["id"],
        record["name"],
        tuple(record["scopes"]),
        record["hash"],
        record["created_at"],
        record["revoked_at"],
    )


class Neo4jTokens:
    def __init__(self, connection: Neo4jConnection) -> None:
        self.connection = connection
        self.read = connection.read

    def add_token(self, name: str, scopes: tuple[str, ...], digest: str, at: str) -> ApiToken:
        if self.read("MATCH (t:ApiToken {name: $name}) RETURN t.id AS id", name=name):
            raise Conflict(f"a token named {name!r} exists already")

        def work(tx: Any) -> Any:
            return tx.run(
                "MERGE (k:CartographMeta {key: 'api_token_seq'}) SET k.n = coalesce(k.n, 0) + 1 "
                "CREATE (t:ApiToken {id: k.n, name: $name, scopes: $scopes, hash: $hash, "
                f"created_at: $at, revoked_at: ''}}) RETURN {_RETURN}",
                name=name,
                scopes=list(scopes),
                hash=digest,
                at=at,
            ).single()

        return _token(self.connection.write(work))

    def token_by_hash(self, digest: str) -> ApiToken | None:
        records = self.read(f"MATCH (t:ApiToken {{hash: $hash}}) RETURN {_RETURN}", hash=digest)
        return _token(records[0]) if records else None

    def list_tokens(self) -> list[ApiToken]:
        return [_token(r) for r in self.read(f"MATCH (t:ApiToken) RETURN {_RETURN} ORDER BY id")]

    def revoke_token(self, name: str, at: str) -> bool:
        def work(tx: Any) -> bool:
            record = tx.run(
                "MATCH (t:ApiToken {name: $name}) WHERE t.revoked_at = '' "
                "SET t.revoked_at = $at RETURN count(t) AS n",
                name=name,
                at=at,
            ).single()
            return record["n"] == 1

        return self.connection.write(work)
