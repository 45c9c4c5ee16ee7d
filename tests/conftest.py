"""Shared fixtures. Store-facing tests take `stores` and run once per backend: the embedded
SQLite store and a real Neo4j server (started once per test session from tools/neo4j-dev; in
CI a Neo4j test fails, never skips, when the server cannot start)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
# `benchmark.corpora` (real source trees) is shared with the benchmark harness
sys.path.insert(0, str(Path(__file__).parent.parent))

from neo4j_server import neo4j_session_server, wipe_neo4j

# the real-browser fixtures (browser, page, page_errors, shop_server, cartograph_server)
pytest_plugins = ["browser_support"]

BACKENDS = ("sqlite", "neo4j")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    from redis_server import RedisServer

    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def neo4j_server(tmp_path_factory):
    server = neo4j_session_server(tmp_path_factory)
    yield server
    server.stop()


class Stores:
    """Opens stores of one backend for one test. SQLite: a file per name under tmp_path.
    Neo4j: the session's server, emptied when the test starts (one database holds every
    repository, so two names open the same graph: tests keep repositories apart by name)."""

    def __init__(self, kind: str, tmp_path: Path, neo4j_url: str | None) -> None:
        self.kind = kind
        self.tmp_path = tmp_path
        self.neo4j_url = neo4j_url
        self.opened: list = []

    def url(self, name: str = "graph") -> str:
        if self.kind == "neo4j":
            return self.neo4j_url
        return f"sqlite:///{self.tmp_path / f'{name}.db'}"

    def open(self, name: str = "graph"):
        from cartograph.store import open_store

        store = open_store(self.url(name))
        self.opened.append(store)
        return store

    def blank(self) -> None:
        """Make the store as a first user finds it. SQLite: nothing to do (a name never opened
        has no file yet). Neo4j: drop Cartograph's schema (constraints, indexes, the schema
        version node), so the next open creates it, as on a new server."""
        if self.kind == "neo4j":
            drop_neo4j_schema(self.neo4j_url)

    def close(self) -> None:
        for store in self.opened:
            store.close()


def drop_neo4j_schema(url: str) -> None:
    import neo4j

    with neo4j.GraphDatabase.driver(url, auth=None) as driver, driver.session() as session:
        session.run("MATCH (m:CartographMeta) DELETE m").consume()
        for record in list(session.run("SHOW CONSTRAINTS YIELD name")):
            session.run(f"DROP CONSTRAINT `{record['name']}`").consume()
        for record in list(session.run("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP'")):
            session.run(f"DROP INDEX `{record['name']}`").consume()


@pytest.fixture(params=BACKENDS)
def stores(request, tmp_path):
    url = None
    if request.param == "neo4j":
        url = request.getfixturevalue("neo4j_server").url
        wipe_neo4j(url)
    factory = Stores(request.param, tmp_path, url)
    yield factory
    factory.close()
