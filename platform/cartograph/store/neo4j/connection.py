"""The Neo4j connection every interface of the team store shares: the driver, auto-commit
reads with retries, managed write transactions, auto-commit writes (for `IN TRANSACTIONS`),
and the schema (constraints and indexes) created on first open.

Reads are auto-commit queries: one round trip each, where a managed transaction costs two
plus bookmark bookkeeping (1.2 ms against 3.8 ms p50 for a one-node lookup on loopback, and a
symbol's context makes about 14 reads)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

from cartograph.model import SCHEMA_VERSION
from cartograph.store.interfaces import StoreError

READ_ATTEMPTS = 3
READ_RETRY_PAUSE = 0.1  # seconds, times the attempt number
T = TypeVar("T")


class _Rows(list):
    """A list parameter whose `repr` is its length. The driver writes every query's parameters
    with `repr` into a debug message before it knows whether debug is logged: for an index
    write's rows (symbols with their bodies) that was 1.9 s of Django's 26 s full index into
    Neo4j, all of it on the client while the server waited. Packed as any list."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} rows>"


def quiet(params: dict[str, Any]) -> dict[str, Any]:
    """Parameters with each list made a `_Rows` (what the driver is given)."""
    return {name: _Rows(value) if type(value) is list else value for name, value in params.items()}


class _QuietTransaction:
    """A driver transaction whose `run` is given quiet parameters (`quiet`)."""

    __slots__ = ("_tx",)

    def __init__(self, tx: Any) -> None:
        self._tx = tx

    def run(self, query: str, parameters: dict[str, Any] | None = None, **params: Any) -> Any:
        return self._tx.run(query, quiet({**(parameters or {}), **params}))


# what a graph of an older schema version has to change in its data: (the version that made
# the change, the statement); run once, in order, on the graph's first open by this version
DATA_MIGRATIONS = [
    # 9: a claim's key is its file's id (it was repo + newline + path, which two different
    # files could share)
    (9, "MATCH (c:Claim) WHERE c.repo IS NOT NULL SET c.key = c.repo + ':' + c.path"),
]

# the store's generation (cartograph.query.answers), one more; a new graph starts it at a random
# value, so a graph made again never repeats an old graph's generation
BUMP_GENERATION = (
    "MERGE (m:CartographMeta {key: 'generation'}) "
    "SET m.value = coalesce(m.value, toInteger(rand() * 1000000000000)) + 1"
)
READ_GENERATION = "MATCH (m:CartographMeta {key: 'generation'}) RETURN m.value AS g"

SCHEMA = [
    "CREATE CONSTRAINT repo_name IF NOT EXISTS FOR (n:Repo) REQUIRE n.name IS UNIQUE",
    "CREATE CONSTRAINT file_id IF NOT EXISTS FOR (n:File) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT symbol_id IF NOT EXISTS FOR (n:Symbol) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT package_id IF NOT EXISTS FOR (n:Package) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT index_state_id IF NOT EXISTS FOR (n:IndexState) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT index_lock_repo IF NOT EXISTS FOR (n:IndexLock) REQUIRE n.repo IS UNIQUE",
    "CREATE CONSTRAINT meta_key IF NOT EXISTS FOR (n:CartographMeta) REQUIRE n.key IS UNIQUE",
    "CREATE CONSTRAINT manifest_repo IF NOT EXISTS FOR (n:Manifest) REQUIRE n.repo IS UNIQUE",
    "CREATE CONSTRAINT service_state_repo IF NOT EXISTS FOR (n:ServiceState) REQUIRE n.repo IS UNIQUE",
    "CREATE INDEX symbol_file IF NOT EXISTS FOR (n:Symbol) ON (n.repo, n.path)",
    "CREATE INDEX symbol_name IF NOT EXISTS FOR (n:Symbol) ON (n.name)",
    "CREATE INDEX symbol_qualname IF NOT EXISTS FOR (n:Symbol) ON (n.qualname)",
    "CREATE INDEX symbol_parent IF NOT EXISTS FOR (n:Symbol) ON (n.parent)",
    "CREATE INDEX file_repo IF NOT EXISTS FOR (n:File) ON (n.repo)",
    "CREATE INDEX index_state_repo IF NOT EXISTS FOR (n:IndexState) ON (n.repo)",
    "CREATE INDEX skipped_repo IF NOT EXISTS FOR (n:SkippedFile) ON (n.repo)",
    "CREATE INDEX stub_repo IF NOT EXISTS FOR (n:Stub) ON (n.repo)",
    "CREATE INDEX coverage_symbol IF NOT EXISTS FOR (n:Coverage) ON (n.repo, n.symbol)",
    "CREATE CONSTRAINT coverage_source_repo IF NOT EXISTS FOR (n:CoverageSource) "
    "REQUIRE n.repo IS UNIQUE",
    "CREATE INDEX review_key IF NOT EXISTS FOR (n:Review) ON (n.repo, n.number)",
    # tracked repositories, agents, tokens
    "CREATE CONSTRAINT tracked_name IF NOT EXISTS FOR (n:TrackedRepo) REQUIRE n.name IS UNIQUE",
    "CREATE CONSTRAINT agent_session_id IF NOT EXISTS FOR (n:AgentSession) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT claim_key IF NOT EXISTS FOR (n:Claim) REQUIRE n.key IS UNIQUE",
    "CREATE CONSTRAINT lesson_id IF NOT EXISTS FOR (n:Lesson) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT activity_path_id IF NOT EXISTS FOR (n:ActivityPath) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT api_token_name IF NOT EXISTS FOR (n:ApiToken) REQUIRE n.name IS UNIQUE",
    "CREATE CONSTRAINT api_token_hash IF NOT EXISTS FOR (n:ApiToken) REQUIRE n.hash IS UNIQUE",
    "CREATE INDEX claim_session IF NOT EXISTS FOR (n:Claim) ON (n.session)",
    "CREATE INDEX overlay_session IF NOT EXISTS FOR (n:OverlayFile) ON (n.session)",
    "CREATE INDEX claim_repo IF NOT EXISTS FOR (n:Claim) ON (n.repo)",
    "CREATE CONSTRAINT delivery_key IF NOT EXISTS FOR (n:Delivery) REQUIRE n.key IS UNIQUE",
    "CREATE INDEX delivery_repo IF NOT EXISTS FOR (n:Delivery) ON (n.repo, n.at)",
    # history
    "CREATE CONSTRAINT commit_id IF NOT EXISTS FOR (n:Commit) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT person_email IF NOT EXISTS FOR (n:Person) REQUIRE n.email IS UNIQUE",
    "CREATE INDEX commit_repo IF NOT EXISTS FOR (n:Commit) ON (n.repo)",
    "CREATE INDEX retired_file_id IF NOT EXISTS FOR (n:RetiredFile) ON (n.id)",
    "CREATE INDEX retired_file_repo IF NOT EXISTS FOR (n:RetiredFile) ON (n.repo)",
    "CREATE INDEX retired_symbol_id IF NOT EXISTS FOR (n:RetiredSymbol) ON (n.id)",
    "CREATE INDEX retired_symbol_repo IF NOT EXISTS FOR (n:RetiredSymbol) ON (n.repo)",
    # one full-text index over the names and the body: Lucene keeps each field's own norms, so
    # a body-only query ranks by the body alone (schema version 13 added search_body); and the
    # repository, so that Lucene itself keeps a match to one and cuts its best (version 18)
    "CREATE FULLTEXT INDEX symbol_text IF NOT EXISTS FOR (n:Symbol) "
    "ON EACH [n.search_name, n.search_qualname, n.search_context, n.search_body, n.repo] "
    "OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace', "
    "`fulltext.eventually_consistent`: true}}",
]
# schema statements for a graph made by an earlier version (never run on a new one): since
# which version they apply
SCHEMA_UPGRADES = [
    (13, "DROP INDEX symbol_search IF EXISTS"),  # the names-only index symbol_text replaces
    (18, "DROP INDEX symbol_text IF EXISTS"),  # made again with the repository as a field
]


def parse_url(url: str) -> tuple[str, tuple[str, str] | None, str | None]:
    """`neo4j://user:pass@host:7687/db` → (driver URI, auth, database)."""
    parts = urlsplit(url)
    if not parts.hostname:
        raise StoreError(f"no host in Neo4j store URL {url!r}: use neo4j://host:7687")
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    uri = f"{parts.scheme}://{host}:{parts.port or 7687}"
    user = unquote(parts.username) if parts.username else os.environ.get("CARTOGRAPH_NEO4J_USER")
    password = (
        unquote(parts.password)
        if parts.password is not None
        else os.environ.get("CARTOGRAPH_NEO4J_PASSWORD")
    )
    auth = (user, password or "") if user else None
    database = parts.path.strip("/") or None
    return uri, auth, database


def one_line(text: object) -> str:
    return " ".join(str(text).split())


def _reason(exc: BaseException) -> str:
    """The driver's explanation, on one line and without repeating the address."""
    text = one_line(str(exc))
    return text.rpartition("(reason ")[2].rstrip(")") if "(reason " in text else text


class Neo4jConnection:
    """A driver for one Neo4j 5 server (Community is enough) and database."""

    concurrent_writers = False

    def __init__(self, url: str) -> None:
        try:
            import neo4j
        except ImportError as exc:  # pragma: no cover - a dependency of the package
            raise StoreError("the neo4j driver is not installed: pip install neo4j") from exc
        from neo4j.exceptions import AuthError, ServiceUnavailable

        self.url = url  # with credentials: forked workers reopen the store from it
        uri, auth, self.database = parse_url(url)
        self.address = uri if not self.database else f"{uri}/{self.database}"  # for messages
        self._neo4j = neo4j
        self.driver: Any = None
        try:
            self.driver = neo4j.GraphDatabase.driver(
                uri,
                auth=auth,
                max_connection_lifetime=3600,
                connection_timeout=15.0,
                notifications_min_severity="OFF",  # "unknown property" hints on a young graph
            )
            self.driver.verify_connectivity()
        except AuthError as exc:
            self._close_quietly()
            raise StoreError(
                f"Neo4j at {self.address} rejected the credentials: {one_line(exc.message)}"
            ) from exc
        except (ServiceUnavailable, OSError) as exc:
            self._close_quietly()
            raise StoreError(f"cannot reach Neo4j at {self.address}: {_reason(exc)}") from exc
        except neo4j.exceptions.Neo4jError as exc:
            self._close_quietly()
            raise StoreError(f"Neo4j at {self.address}: {one_line(str(exc))}") from exc
        self._bootstrap()

    def _close_quietly(self) -> None:
        if self.driver is not None:
            self.driver.close()

    def _session(self, **options: Any) -> Any:
        return self.driver.session(database=self.database, **options)

    def read(self, query: str, **params: Any) -> list:
        """One auto-commit read (one round trip). Reads are idempotent, so transient errors and
        lost connections are retried here, as a managed transaction would."""
        errors = self._neo4j.exceptions
        for attempt in range(1, READ_ATTEMPTS + 1):
            try:
                with self._session(default_access_mode=self._neo4j.READ_ACCESS) as session:
                    return list(session.run(query, quiet(params)))
            except errors.TransientError as exc:
                if attempt == READ_ATTEMPTS or not exc.is_retryable():
                    raise StoreError(f"Neo4j query failed: {one_line(exc.message)}") from exc
            except errors.Neo4jError as exc:
                raise StoreError(f"Neo4j query failed: {one_line(exc.message)}") from exc
            except (errors.ServiceUnavailable, errors.SessionExpired, OSError) as exc:
                if attempt == READ_ATTEMPTS:
                    raise StoreError(
                        f"lost the connection to Neo4j at {self.address}: {_reason(exc)}"
                    ) from exc
            time.sleep(READ_RETRY_PAUSE * attempt)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def write(self, work: Callable[[Any], T], answers_change: bool = True) -> T:
        """Run `work(tx)` in one managed write transaction (retried on transient errors). The
        transaction bumps the store's generation unless the caller says the write cannot
        change a cached answer (sessions, claims, activity, overlays, deliveries)."""
        errors = self._neo4j.exceptions

        def counted(tx: Any) -> T:
            result = work(_QuietTransaction(tx))
            if answers_change:
                tx.run(BUMP_GENERATION).consume()
            return result

        try:
            with self._session() as session:
                return session.execute_write(counted)
        except errors.Neo4jError as exc:
            raise StoreError(f"Neo4j write failed: {one_line(exc.message)}") from exc
        except (errors.ServiceUnavailable, errors.SessionExpired, OSError) as exc:
            raise StoreError(
                f"lost the connection to Neo4j at {self.address}: {_reason(exc)}"
            ) from exc

    def run(self, query: str, answers_change: bool = True, **params: Any) -> None:
        """One statement in its own write transaction."""
        self.write(lambda tx: tx.run(query, params).consume(), answers_change)

    def run_auto(self, query: str, answers_change: bool = True, **params: Any) -> None:
        """An auto-commit query (needed for CALL { … } IN TRANSACTIONS), then the generation
        bumped (in a transaction of its own: after the query's last one)."""
        errors = self._neo4j.exceptions
        try:
            with self._session() as session:
                session.run(query, quiet(params)).consume()
        except errors.Neo4jError as exc:
            raise StoreError(f"Neo4j write failed: {one_line(exc.message)}") from exc
        except (errors.ServiceUnavailable, OSError) as exc:
            raise StoreError(
                f"lost the connection to Neo4j at {self.address}: {_reason(exc)}"
            ) from exc
        if answers_change:
            self.write(lambda tx: None)

    def generation(self) -> int:
        """The counter every answer-changing write bumps, in the same transaction (0: never
        written; a new graph starts it at a random value: see BUMP_GENERATION)."""
        records = self.read(READ_GENERATION)
        return int(records[0]["g"]) if records else 0

    def _bootstrap(self) -> None:
        version = self.schema_version()
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the Neo4j graph at {self.address} has schema version {version}; this Cartograph "
                f"knows {SCHEMA_VERSION}. Upgrade Cartograph."
            )
        if version == SCHEMA_VERSION:
            return
        if version > 0:
            for since, statement in SCHEMA_UPGRADES:
                if version < since:
                    self._schema_statement(statement)
        for statement in SCHEMA:
            self._schema_statement(statement)
        self.run_auto("CALL db.awaitIndexes(300)", answers_change=False)
        for since, statement in DATA_MIGRATIONS:
            if version < since:
                self.run(statement)
        self.run("MERGE (m:CartographMeta {key: 'schema'}) SET m.version = $v", v=SCHEMA_VERSION)

    def _schema_statement(self, statement: str) -> None:
        """Create a constraint or index; several processes creating a new graph at once race
        for the same schema lock (a deadlock) or create the same rule: retry, or accept it."""
        for attempt in range(10):
            try:
                self.run_auto(statement, answers_change=False)
                return
            except StoreError as exc:
                message = str(exc)
                if "already exists" in message:
                    return
                if ("Deadlock" not in message and "can't acquire" not in message) or attempt == 9:
                    raise
                time.sleep(0.1 * (attempt + 1))

    def close(self) -> None:
        self.driver.close()

    def schema_version(self) -> int:
        records = self.read("MATCH (m:CartographMeta {key: 'schema'}) RETURN m.version AS v")
        return records[0]["v"] if records else 0
