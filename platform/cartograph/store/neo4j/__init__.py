"""The team store: one Neo4j 5 graph (Community is enough) holding every repository. The nodes
and relationships are the public schema of docs/graph-schema.md; one module per interface over
one shared connection (`connection.py`: the driver, reads, writes, the schema)."""

from __future__ import annotations

from cartograph.store.interfaces import Store
from cartograph.store.neo4j.connection import Neo4jConnection
from cartograph.store.neo4j.graph import Neo4jGraphReader
from cartograph.store.neo4j.history import Neo4jHistory
from cartograph.store.neo4j.impact import Neo4jImpact
from cartograph.store.neo4j.index import Neo4jIndexWriter
from cartograph.store.neo4j.repos import Neo4jRepoCatalog
from cartograph.store.neo4j.team import Neo4jTeam
from cartograph.store.neo4j.tokens import Neo4jTokens
from cartograph.store.neo4j.tracking import Neo4jTracking


def open_neo4j(url: str) -> Store:
    """The store in the Neo4j server (and database) the URL names; the schema is created on
    first use."""
    connection = Neo4jConnection(url)
    repos = Neo4jRepoCatalog(connection)
    return Store(
        connection=connection,
        repos=repos,
        index=Neo4jIndexWriter(connection),
        graph=Neo4jGraphReader(connection, repos),
        history=Neo4jHistory(connection),
        team=Neo4jTeam(connection),
        tokens=Neo4jTokens(connection),
        tracking=Neo4jTracking(connection),
        impact=Neo4jImpact(connection),
    )


__all__ = ["Neo4jConnection", "open_neo4j"]
