"""The team store: one Neo4j 5 graph (Community is enough) holding every repository.

The nodes and relationships are the public schema of docs/graph-schema.md; bookkeeping lives on
labels of its own (IndexState, SkippedFile, IndexLock, CartographMeta) so that user queries
over Repo/File/Symbol/Package see only the graph. Calls the resolver could not bind are lists on
their Symbol (`unresolved`, `unresolved_lines`, `unresolved_from`; `external_bases`).

Reads are auto-commit queries (one round trip each), retried on transient errors; writes are
batched (`UNWIND $rows`) in managed transactions, which the driver retries on transient errors;
a file's nodes and outgoing relationships are replaced in the transaction that writes it.
Symbols that survive an edit keep their node, so relationships other files hold to them survive
too (the same ids, the same edges as SQLite).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import unquote, urlsplit

from cartograph.identifiers import search_text
from cartograph.model import (
    SCHEMA_VERSION,
    Edge,
    EdgeWrite,
    FileRecord,
    FileWrite,
    Repo,
    Skipped,
    SymbolRow,
    Unresolved,
    file_id,
)
from cartograph.store.base import (
    EdgeRow,
    FileState,
    StoreError,
    TraversalMixin,
    export_graph,
)
from cartograph.store.neo4j_agents import Neo4jAgents
from cartograph.store.neo4j_history import Neo4jHistory
from cartograph.store.neo4j_tokens import Neo4jTokens
from cartograph.store.neo4j_tracking import Neo4jTracking

SEARCH_WEIGHTS = {"search_name": 10, "search_qualname": 5, "search_context": 1}
COMMON_TERM = 4000  # as in the SQLite store: a word matching more symbols is not ranked by
CHUNK = 2000
EDGE_TYPES = ("CALLS", "REFERENCES", "INHERITS")
_SYMBOL_FIELDS = (
    "id",
    "repo",
    "path",
    "name",
    "qualname",
    "kind",
    "start_line",
    "end_line",
    "signature",
    "doc",
    "exported",
    "parent",
    "decorators",
)
_SYMBOL_RETURN = "{" + ", ".join(f"{f}: s.{f}" for f in _SYMBOL_FIELDS) + "}"
_OTHER_RETURN = _SYMBOL_RETURN.replace("s.", "o.")

# relabel a node that leaves the index with history: it keeps only its past (TOUCHED,
# CO_CHANGES, changes) until the next mining moves it to where it went or forgets it
_RETIRE = (
    "OPTIONAL MATCH ({node})-[r]-() WHERE NOT type(r) IN ['TOUCHED', 'CO_CHANGES'] "
    "DELETE r WITH DISTINCT {node} REMOVE {node}:{label} SET {node}:{retired}"
)

SCHEMA = [
    "CREATE CONSTRAINT repo_name IF NOT EXISTS FOR (n:Repo) REQUIRE n.name IS UNIQUE",
    "CREATE CONSTRAINT file_id IF NOT EXISTS FOR (n:File) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT symbol_id IF NOT EXISTS FOR (n:Symbol) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT package_id IF NOT EXISTS FOR (n:Package) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT index_state_id IF NOT EXISTS FOR (n:IndexState) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT index_lock_repo IF NOT EXISTS FOR (n:IndexLock) REQUIRE n.repo IS UNIQUE",
    "CREATE CONSTRAINT meta_key IF NOT EXISTS FOR (n:CartographMeta) REQUIRE n.key IS UNIQUE",
    "CREATE INDEX symbol_file IF NOT EXISTS FOR (n:Symbol) ON (n.repo, n.path)",
    "CREATE INDEX symbol_name IF NOT EXISTS FOR (n:Symbol) ON (n.name)",
    "CREATE INDEX symbol_qualname IF NOT EXISTS FOR (n:Symbol) ON (n.qualname)",
    "CREATE INDEX symbol_parent IF NOT EXISTS FOR (n:Symbol) ON (n.parent)",
    "CREATE INDEX file_repo IF NOT EXISTS FOR (n:File) ON (n.repo)",
    "CREATE INDEX index_state_repo IF NOT EXISTS FOR (n:IndexState) ON (n.repo)",
    "CREATE INDEX skipped_repo IF NOT EXISTS FOR (n:SkippedFile) ON (n.repo)",
    "CREATE INDEX stub_repo IF NOT EXISTS FOR (n:Stub) ON (n.repo)",
    # schema version 2: history
    "CREATE CONSTRAINT tracked_name IF NOT EXISTS FOR (n:TrackedRepo) REQUIRE n.name IS UNIQUE",
    "CREATE CONSTRAINT agent_session_id IF NOT EXISTS FOR (n:AgentSession) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT claim_key IF NOT EXISTS FOR (n:Claim) REQUIRE n.key IS UNIQUE",
    "CREATE CONSTRAINT lesson_id IF NOT EXISTS FOR (n:Lesson) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT api_token_name IF NOT EXISTS FOR (n:ApiToken) REQUIRE n.name IS UNIQUE",
    "CREATE CONSTRAINT api_token_hash IF NOT EXISTS FOR (n:ApiToken) REQUIRE n.hash IS UNIQUE",
    "CREATE INDEX claim_session IF NOT EXISTS FOR (n:Claim) ON (n.session)",
    "CREATE INDEX claim_repo IF NOT EXISTS FOR (n:Claim) ON (n.repo)",
    "CREATE CONSTRAINT delivery_key IF NOT EXISTS FOR (n:Delivery) REQUIRE n.key IS UNIQUE",
    "CREATE INDEX delivery_repo IF NOT EXISTS FOR (n:Delivery) ON (n.repo, n.at)",
    "CREATE CONSTRAINT commit_id IF NOT EXISTS FOR (n:Commit) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT person_email IF NOT EXISTS FOR (n:Person) REQUIRE n.email IS UNIQUE",
    "CREATE INDEX commit_repo IF NOT EXISTS FOR (n:Commit) ON (n.repo)",
    "CREATE INDEX retired_file_id IF NOT EXISTS FOR (n:RetiredFile) ON (n.id)",
    "CREATE INDEX retired_file_repo IF NOT EXISTS FOR (n:RetiredFile) ON (n.repo)",
    "CREATE INDEX retired_symbol_id IF NOT EXISTS FOR (n:RetiredSymbol) ON (n.id)",
    "CREATE INDEX retired_symbol_repo IF NOT EXISTS FOR (n:RetiredSymbol) ON (n.repo)",
    "CREATE FULLTEXT INDEX symbol_search IF NOT EXISTS FOR (n:Symbol) "
    "ON EACH [n.search_name, n.search_qualname, n.search_context] "
    "OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace', "
    "`fulltext.eventually_consistent`: true}}",
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


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _reason(exc: BaseException) -> str:
    """The driver's explanation, on one line and without repeating the address."""
    text = _one_line(str(exc))
    return text.rpartition("(reason ")[2].rstrip(")") if "(reason " in text else text


def _symbol(row: dict) -> SymbolRow:
    return SymbolRow(
        row["id"],
        row["repo"],
        row["path"],
        row["name"],
        row["qualname"],
        row["kind"],
        row["start_line"],
        row["end_line"],
        row["signature"],
        row["doc"],
        bool(row["exported"]),
        row["parent"],
        list(row["decorators"] or []),
    )


def _symbol_props(s: SymbolRow) -> dict:
    return {
        "id": s.id,
        "repo": s.repo,
        "path": s.path,
        "name": s.name,
        "qualname": s.qualname,
        "kind": s.kind,
        "start_line": s.start_line,
        "end_line": s.end_line,
        "signature": s.signature,
        "doc": s.doc,
        "exported": s.exported,
        "parent": s.parent,
        "decorators": s.decorators,
        "search_name": search_text(s.name),
        "search_qualname": search_text(s.qualname),
        "search_context": search_text(f"{s.path} {s.doc}"),
    }


def _edge(record: Any) -> Edge:
    return Edge(
        record["type"],
        record["src"],
        record["dst"],
        list(record["lines"] or []),
        record["count"],
        record["via"],
        record["confidence"],
    )


_NO_UNRESOLVED = {
    "unresolved": None,
    "unresolved_lines": None,
    "unresolved_from": None,
    "external_bases": None,
}


def _unresolved_lists(unresolved: list[Unresolved]) -> dict[str, dict]:
    """Unresolved calls and bases of a file, as the list properties of their symbols."""
    lists: dict[str, dict] = {}
    for u in unresolved:
        entry = lists.setdefault(
            u.src,
            {
                "unresolved": [],
                "unresolved_lines": [],
                "unresolved_from": [],
                "external_bases": [],
            },
        )
        if u.kind == "base":
            entry["external_bases"].append(u.name)
        else:
            entry["unresolved"].append(u.name)
            entry["unresolved_lines"].append(u.line)
            entry["unresolved_from"].append(u.external)
    for entry in lists.values():
        for key, value in entry.items():
            if not value:
                entry[key] = None
    return lists


def _lucene(word: str, prefix: bool) -> str:
    escaped = "".join("\\" + c if c in '+-&|!(){}[]^"~*?:\\/' else c for c in word)
    term = escaped + ("*" if prefix else "")
    return "(" + " ".join(f"{field}:{term}^{w}" for field, w in SEARCH_WEIGHTS.items()) + ")"


READ_ATTEMPTS = 3
READ_RETRY_PAUSE = 0.1  # seconds, times the attempt number


class Neo4jStore(Neo4jHistory, Neo4jTracking, Neo4jAgents, Neo4jTokens, TraversalMixin):
    concurrent_writers = False

    def __init__(self, url: str) -> None:
        try:
            import neo4j
            from neo4j.exceptions import AuthError, ServiceUnavailable
        except ImportError as exc:  # pragma: no cover - a dependency of the package
            raise StoreError("the neo4j driver is not installed: pip install neo4j") from exc
        self.url = url  # with credentials: forked workers reopen the store from it
        uri, auth, self.database = parse_url(url)
        self.address = uri if not self.database else f"{uri}/{self.database}"  # for messages
        self._neo4j = neo4j
        self.driver = None
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
                f"Neo4j at {self.address} rejected the credentials: {_one_line(exc.message)}"
            ) from exc
        except (ServiceUnavailable, OSError) as exc:
            self._close_quietly()
            raise StoreError(f"cannot reach Neo4j at {self.address}: {_reason(exc)}") from exc
        except neo4j.exceptions.Neo4jError as exc:
            self._close_quietly()
            raise StoreError(f"Neo4j at {self.address}: {_one_line(str(exc))}") from exc
        self._bootstrap()

    def _close_quietly(self) -> None:
        if self.driver is not None:
            self.driver.close()

    # ------------------------------------------------------------------ plumbing
    def _session(self, **options):
        return self.driver.session(database=self.database, **options)

    def _read(self, query: str, **params) -> list:
        """One auto-commit read. It costs one round trip (RUN and PULL go together), where a
        managed transaction (`execute_query`) costs two (BEGIN+RUN+PULL, then COMMIT) plus
        bookmark bookkeeping: 1.2 ms against 3.8 ms p50 for a one-node lookup on loopback, and a
        symbol's context makes about 14 reads. Reads are idempotent, so transient errors and
        lost connections are retried here, as the managed transaction would."""
        errors = self._neo4j.exceptions
        for attempt in range(1, READ_ATTEMPTS + 1):
            try:
                with self._session(default_access_mode=self._neo4j.READ_ACCESS) as session:
                    return list(session.run(query, params))
            except errors.TransientError as exc:
                if attempt == READ_ATTEMPTS or not exc.is_retryable():
                    raise StoreError(f"Neo4j query failed: {_one_line(exc.message)}") from exc
            except errors.Neo4jError as exc:
                raise StoreError(f"Neo4j query failed: {_one_line(exc.message)}") from exc
            except (errors.ServiceUnavailable, errors.SessionExpired, OSError) as exc:
                if attempt == READ_ATTEMPTS:
                    raise StoreError(
                        f"lost the connection to Neo4j at {self.address}: {_reason(exc)}"
                    ) from exc
            time.sleep(READ_RETRY_PAUSE * attempt)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _write(self, work) -> Any:
        """Run `work(tx)` in one managed write transaction (retried on transient errors)."""
        try:
            with self._session() as session:
                return session.execute_write(work)
        except self._neo4j.exceptions.Neo4jError as exc:
            raise StoreError(f"Neo4j write failed: {_one_line(exc.message)}") from exc
        except (
            self._neo4j.exceptions.ServiceUnavailable,
            self._neo4j.exceptions.SessionExpired,
            OSError,
        ) as exc:
            raise StoreError(
                f"lost the connection to Neo4j at {self.address}: {_reason(exc)}"
            ) from exc

    def _run_auto(self, query: str, **params) -> None:
        """An auto-commit query (needed for CALL { … } IN TRANSACTIONS)."""
        try:
            with self._session() as session:
                session.run(query, params).consume()
        except self._neo4j.exceptions.Neo4jError as exc:
            raise StoreError(f"Neo4j write failed: {_one_line(exc.message)}") from exc
        except (self._neo4j.exceptions.ServiceUnavailable, OSError) as exc:
            raise StoreError(
                f"lost the connection to Neo4j at {self.address}: {_reason(exc)}"
            ) from exc

    def _bootstrap(self) -> None:
        records = self._read("MATCH (m:CartographMeta {key: 'schema'}) RETURN m.version AS v")
        version = records[0]["v"] if records else 0
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the Neo4j graph at {self.address} has schema version {version}; this Cartograph "
                f"knows {SCHEMA_VERSION}. Upgrade Cartograph."
            )
        if version == SCHEMA_VERSION:
            return
        for statement in SCHEMA:
            self._schema_statement(statement)
        self._run_auto("CALL db.awaitIndexes(300)")
        self._write(
            lambda tx: tx.run(
                "MERGE (m:CartographMeta {key: 'schema'}) SET m.version = $v", v=SCHEMA_VERSION
            ).consume()
        )

    def _schema_statement(self, statement: str) -> None:
        """Create a constraint or index; several processes creating a new graph at once race
        for the same schema lock (a deadlock) or create the same rule: retry, or accept it."""
        for attempt in range(10):
            try:
                self._run_auto(statement)
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
        records = self._read("MATCH (m:CartographMeta {key: 'schema'}) RETURN m.version AS v")
        return records[0]["v"] if records else 0

    # ------------------------------------------------------------------ repositories
    def upsert_repo(self, repo: Repo) -> None:
        props = {
            "name": repo.name,
            "root": repo.root,
            "url": repo.url,
            "default_branch": repo.default_branch,
            "head_sha": repo.head_sha,
            "indexed_sha": repo.indexed_sha,
            "indexed_at": repo.indexed_at,
            "dirty": repo.dirty,
            "index_format": repo.index_format,
        }
        self._write(
            lambda tx: tx.run(
                "MERGE (r:Repo {name: $name}) SET r += $props", name=repo.name, props=props
            ).consume()
        )

    def get_repo(self, name: str) -> Repo | None:
        records = self._read("MATCH (r:Repo {name: $name}) RETURN r", name=name)
        return _repo(records[0]["r"]) if records else None

    def list_repos(self) -> list[Repo]:
        return [_repo(r["r"]) for r in self._read("MATCH (r:Repo) RETURN r ORDER BY r.name")]

    def delete_repo(self, name: str) -> None:
        """Delete a repository's nodes in batches (a big repository is millions of rows)."""
        for label in (
            "Symbol",
            "RetiredSymbol",
            "IndexState",
            "File",
            "RetiredFile",
            "Commit",
            "SkippedFile",
        ):
            self._run_auto(
                f"MATCH (n:{label} {{repo: $repo}}) "
                f"CALL (n) {{ DETACH DELETE n }} IN TRANSACTIONS OF 5000 ROWS",
                repo=name,
            )
        self._write(
            lambda tx: tx.run(
                "OPTIONAL MATCH (l:IndexLock {repo: $repo}) DETACH DELETE l "
                "WITH 1 AS x OPTIONAL MATCH (r:Repo {name: $repo}) DETACH DELETE r",
                repo=name,
            ).consume()
        )

    def acquire_index_lock(
        self, repo: str, owner: str, ttl: float, replacing: str | None = None
    ) -> bool:
        """One atomic write on the repository's lock node: take it when it is free, expired,
        ours, or held by `replacing` (a dead holder)."""
        now = time.time()

        def work(tx):
            record = tx.run(
                "MERGE (l:IndexLock {repo: $repo}) "
                "ON CREATE SET l.owner = $owner, l.expires = $expires "
                "WITH l, l.owner IN [$owner, $replacing] OR l.expires < $now AS free "
                "SET l.owner = CASE WHEN free THEN $owner ELSE l.owner END, "
                "    l.expires = CASE WHEN free THEN $expires ELSE l.expires END "
                "RETURN free",
                repo=repo,
                owner=owner,
                replacing=replacing or owner,
                now=now,
                expires=now + ttl,
            ).single()
            return bool(record["free"])

        return self._write(work)

    def index_lock_holder(self, repo: str) -> str | None:
        records = self._read(
            "MATCH (l:IndexLock {repo: $repo}) WHERE l.expires > $now RETURN l.owner AS owner",
            repo=repo,
            now=time.time(),
        )
        return records[0]["owner"] if records else None

    def refresh_index_lock(self, repo: str, owner: str, ttl: float) -> None:
        self._write(
            lambda tx: tx.run(
                "MATCH (l:IndexLock {repo: $repo, owner: $owner}) SET l.expires = $expires",
                repo=repo,
                owner=owner,
                expires=time.time() + ttl,
            ).consume()
        )

    def release_index_lock(self, repo: str, owner: str) -> None:
        self._write(
            lambda tx: tx.run(
                "MATCH (l:IndexLock {repo: $repo, owner: $owner}) DELETE l", repo=repo, owner=owner
            ).consume()
        )

    # ------------------------------------------------------------------ index writes
    def file_states(self, repo: str) -> dict[str, FileState]:
        # one record holding every row: a record per file costs more than the query itself
        # (Django's 2,900 files: 22 ms collected, 55-90 ms as records)
        records = self._read(
            "MATCH (f:File {repo: $repo}) WHERE NOT f:Stub "
            "OPTIONAL MATCH (i:IndexState {id: f.id}) "
            "RETURN collect([f.path, f.sha256, f.size, f.mtime_ns, f.module, f.language, "
            "f.interface, f.aliases, coalesce(i.resolution, '')]) AS rows",
            repo=repo,
        )
        return {row[0]: FileState(*row[1:]) for row in records[0]["rows"]}

    def load_facts(self, repo: str, paths: Iterable[str]) -> dict[str, bytes]:
        ids = [file_id(repo, p) for p in paths]
        found: dict[str, bytes] = {}
        for start in range(0, len(ids), CHUNK):
            records = self._read(
                "UNWIND $ids AS id MATCH (i:IndexState {id: id}) WHERE i.facts IS NOT NULL "
                "RETURN i.path AS path, i.facts AS facts",
                ids=ids[start : start + CHUNK],
            )
            found.update((r["path"], bytes(r["facts"])) for r in records)
        return found

    @staticmethod
    def _clear_file_rows(tx, repo: str, files: list[dict], symbols: bool) -> None:
        """Remove what files contribute; `files` rows: {path, id, keep: surviving symbol ids}."""
        tx.run(
            "UNWIND $files AS f MATCH (s:Symbol {repo: $repo, path: f.path})"
            "-[r:CALLS|REFERENCES|INHERITS]->() DELETE r",
            files=files,
            repo=repo,
        ).consume()
        if symbols:
            # a symbol leaving with history keeps it until the next mining (see delete_files)
            tx.run(
                "UNWIND $files AS f MATCH (s:Symbol {repo: $repo, path: f.path}) "
                "WHERE NOT s.id IN f.keep "
                "AND (s.changes IS NOT NULL OR EXISTS { (:Commit)-[:TOUCHED]->(s) }) "
                f"{_RETIRE.format(node='s', label='Symbol', retired='RetiredSymbol')}",
                files=files,
                repo=repo,
            ).consume()
            tx.run(
                "UNWIND $files AS f MATCH (s:Symbol {repo: $repo, path: f.path}) "
                "WHERE NOT s.id IN f.keep DETACH DELETE s",
                files=files,
                repo=repo,
            ).consume()
        tx.run(
            "UNWIND $files AS f MATCH (:File {id: f.id})-[r:IMPORTS]->() DELETE r", files=files
        ).consume()

    def write_files(self, repo: str, writes: list[FileWrite], replace: bool) -> None:
        """Write files in one transaction: each file's rows replace what it had before."""
        if not writes:
            return
        files = [
            {
                "id": w.record.id,
                "path": w.record.path,
                "keep": [s.id for s in w.symbols],
                "props": {
                    "id": w.record.id,
                    "repo": repo,
                    "path": w.record.path,
                    "language": w.record.language,
                    "sha256": w.record.sha256,
                    "size": w.record.size,
                    "mtime_ns": w.record.mtime_ns,
                    "lines": w.record.lines,
                    "is_test": w.record.is_test,
                    "module": w.record.module,
                    "parse_errors": w.record.parse_errors,
                    "interface": w.record.interface,
                    "aliases": w.record.aliases,
                },
                "facts": w.facts,
                "deps": w.deps,
                "resolution": w.record.resolution,
            }
            for w in writes
        ]
        symbols = []
        for w in writes:
            unresolved = _unresolved_lists(w.unresolved)
            for symbol in w.symbols:
                row = _symbol_props(symbol)
                row.update(unresolved.get(symbol.id, _NO_UNRESOLVED))
                symbols.append(row)
        links = self._link_rows(repo, [(w.record.path, w.edges, w.imports) for w in writes])

        def work(tx):
            if replace:
                self._clear_file_rows(tx, repo, files, symbols=True)
            tx.run(
                "MERGE (r:Repo {name: $repo}) WITH r "
                "UNWIND $files AS f MERGE (file:File {id: f.id}) "
                "SET file += f.props REMOVE file:Stub MERGE (r)-[:CONTAINS]->(file) "
                "MERGE (i:IndexState {id: f.id}) "
                "SET i.repo = $repo, i.path = f.path, i.facts = f.facts, i.deps = f.deps, "
                "i.resolution = f.resolution",
                files=files,
                repo=repo,
            ).consume()
            # new files have no DEFINES/HAS_MEMBER yet: CREATE them; a file written again keeps
            # the ones of its surviving symbols: MERGE
            link = "MERGE" if replace else "CREATE"
            for start in range(0, len(symbols), CHUNK):
                # a file's symbols come parents first, so a member's parent already exists
                tx.run(
                    "UNWIND $rows AS row MERGE (s:Symbol {id: row.id}) "
                    "SET s += row REMOVE s:Stub "
                    "WITH s, row MATCH (f:File {id: row.repo + ':' + row.path}) "
                    f"{link} (f)-[:DEFINES]->(s) "
                    "WITH s, row OPTIONAL MATCH (p:Symbol {id: row.parent}) "
                    "FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END | "
                    f"  {link} (p)-[:HAS_MEMBER]->(s))",
                    rows=symbols[start : start + CHUNK],
                ).consume()
            self._write_links(tx, repo, links)

        self._write(work)

    @staticmethod
    def _link_rows(repo: str, per_file: list[tuple]) -> dict[str, list]:
        edges: dict[str, list] = {t: [] for t in EDGE_TYPES}
        imports, packages = [], []
        for path, file_edges, file_imports in per_file:
            for e in file_edges:
                edges[e.type].append(
                    {
                        "src": e.src,
                        "dst": e.dst,
                        "lines": e.lines,
                        "count": e.count,
                        "via": e.via,
                        "confidence": e.confidence,
                    }
                )
            for link in file_imports:
                row = {"src": file_id(repo, path), "names": link.names}
                if link.target_kind == "file":
                    imports.append({**row, "dst": file_id(repo, link.target), "path": link.target})
                else:
                    packages.append({**row, "name": link.target})
        return {"edges": edges, "imports": imports, "packages": packages}

    @staticmethod
    def _write_links(tx, repo: str, links: dict[str, list]) -> None:
        for etype, rows in links["edges"].items():
            for start in range(0, len(rows), CHUNK):
                # a target in a file written later in this run is created as a :Stub and filled
                # in when its file is written (stubs left at the end of a run are removed)
                tx.run(
                    "UNWIND $rows AS e MATCH (a:Symbol {id: e.src}) "
                    "MERGE (b:Symbol {id: e.dst}) ON CREATE SET b:Stub, b.repo = $repo "
                    f"CREATE (a)-[r:{etype}]->(b) SET r.lines = e.lines, r.count = e.count, "
                    "r.via = e.via, r.confidence = e.confidence",
                    rows=rows[start : start + CHUNK],
                    repo=repo,
                ).consume()
        if links["imports"]:
            tx.run(
                "UNWIND $rows AS i MATCH (a:File {id: i.src}) "
                "MERGE (b:File {id: i.dst}) ON CREATE SET b:Stub, b.repo = $repo, "
                "b.path = i.path CREATE (a)-[:IMPORTS {names: i.names}]->(b)",
                rows=links["imports"],
                repo=repo,
            ).consume()
        if links["packages"]:
            tx.run(
                "UNWIND $rows AS i MATCH (a:File {id: i.src}) "
                "MERGE (p:Package {id: 'package:' + i.name}) "
                "ON CREATE SET p.name = i.name, p.ecosystem = 'pypi' "
                "CREATE (a)-[:IMPORTS {names: i.names}]->(p)",
                rows=links["packages"],
            ).consume()

    def write_edges(self, repo: str, writes: list[EdgeWrite]) -> None:
        if not writes:
            return
        files = [
            {
                "id": file_id(repo, w.path),
                "path": w.path,
                "deps": w.deps,
                "resolution": w.resolution,
            }
            for w in writes
        ]
        links = self._link_rows(repo, [(w.path, w.edges, w.imports) for w in writes])
        unresolved = [
            {"id": sid, **lists}
            for w in writes
            for sid, lists in _unresolved_lists(w.unresolved).items()
        ]

        def work(tx):
            self._clear_file_rows(tx, repo, files, symbols=False)
            tx.run(
                "UNWIND $files AS f MATCH (i:IndexState {id: f.id}) "
                "SET i.deps = f.deps, i.resolution = f.resolution",
                files=files,
            ).consume()
            tx.run(
                "UNWIND $files AS f MATCH (s:Symbol {repo: $repo, path: f.path}) "
                "REMOVE s.unresolved, s.unresolved_lines, s.unresolved_from, s.external_bases",
                files=files,
                repo=repo,
            ).consume()
            tx.run(
                "UNWIND $rows AS u MATCH (s:Symbol {id: u.id}) SET s += u", rows=unresolved
            ).consume()
            self._write_links(tx, repo, links)

        self._write(work)

    def delete_files(self, repo: str, paths: Iterable[str]) -> None:
        rows = [{"id": file_id(repo, p), "path": p} for p in paths]
        if not rows:
            return

        def work(tx):
            # a file or symbol with history keeps its node, relabelled (_RETIRE)
            for label, retired, match in (
                ("Symbol", "RetiredSymbol", "MATCH (n:Symbol {repo: $repo, path: f.path})"),
                ("File", "RetiredFile", "MATCH (n:File {id: f.id})"),
            ):
                tx.run(
                    f"UNWIND $rows AS f {match} "
                    "WHERE n.changes IS NOT NULL OR EXISTS { (:Commit)-[:TOUCHED]->(n) } "
                    f"{_RETIRE.format(node='n', label=label, retired=retired)}",
                    rows=rows,
                    repo=repo,
                ).consume()
            tx.run(
                "UNWIND $rows AS f MATCH (s:Symbol {repo: $repo, path: f.path}) DETACH DELETE s",
                rows=rows,
                repo=repo,
            ).consume()
            tx.run(
                "UNWIND $rows AS f OPTIONAL MATCH (file:File {id: f.id}) "
                "OPTIONAL MATCH (i:IndexState {id: f.id}) DETACH DELETE file, i",
                rows=rows,
            ).consume()

        self._write(work)

    def finish_run(self, repo: str) -> None:
        """Remove placeholders a run created for targets that never appeared, and wait for the
        search index (updated in the background during the run) to catch up."""
        self._write(
            lambda tx: tx.run(
                "MATCH (n:Stub {repo: $repo}) DETACH DELETE n",
                repo=repo,
            ).consume()
        )
        self._run_auto("CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()")

    def update_file_stats(self, repo: str, stats: list[tuple[str, int, int]]) -> None:
        if not stats:
            return
        rows = [{"id": file_id(repo, p), "size": size, "mtime": mtime} for p, size, mtime in stats]
        self._write(
            lambda tx: tx.run(
                "UNWIND $rows AS r MATCH (f:File {id: r.id}) SET f.size = r.size, "
                "f.mtime_ns = r.mtime",
                rows=rows,
            ).consume()
        )

    def set_skipped(self, repo: str, skipped: list[Skipped]) -> None:
        rows = [{"path": s.path, "reason": s.reason, "size": s.size} for s in skipped]

        def work(tx):
            tx.run("MATCH (s:SkippedFile {repo: $repo}) DELETE s", repo=repo).consume()
            tx.run(
                "UNWIND $rows AS r CREATE (s:SkippedFile) SET s = r, s.repo = $repo",
                rows=rows,
                repo=repo,
            ).consume()

        self._write(work)

    def set_packages(self, repo: str, names: Iterable[str], ecosystem: str) -> None:
        rows = sorted(set(names))

        def work(tx):
            tx.run(
                "MATCH (:Repo {name: $repo})-[r:PROVIDES]->(p:Package {ecosystem: $eco}) DELETE r",
                repo=repo,
                eco=ecosystem,
            ).consume()
            tx.run(
                "MERGE (r:Repo {name: $repo}) WITH r UNWIND $names AS name "
                "MERGE (p:Package {id: 'package:' + name}) "
                "ON CREATE SET p.name = name, p.ecosystem = $eco MERGE (r)-[:PROVIDES]->(p)",
                repo=repo,
                names=rows,
                eco=ecosystem,
            ).consume()

        self._write(work)

    def dependents(self, repo: str, modules: Iterable[str]) -> set[str]:
        records = self._read(
            "MATCH (i:IndexState {repo: $repo}) WHERE any(m IN i.deps WHERE m IN $modules) "
            "RETURN i.path AS path",
            repo=repo,
            modules=sorted(set(modules)),
        )
        return {r["path"] for r in records}

    def add_pending(self, repo: str, modules: Iterable[str]) -> None:
        names = sorted(set(modules))
        self._write(
            lambda tx: tx.run(
                "MERGE (r:Repo {name: $repo}) "
                "SET r.pending = [m IN coalesce(r.pending, []) WHERE NOT m IN $names] + $names",
                repo=repo,
                names=names,
            ).consume()
        )

    def pending(self, repo: str) -> set[str]:
        records = self._read("MATCH (r:Repo {name: $repo}) RETURN r.pending AS p", repo=repo)
        return set(records[0]["p"] or []) if records else set()

    def clear_pending(self, repo: str) -> None:
        self._write(
            lambda tx: tx.run("MATCH (r:Repo {name: $repo}) REMOVE r.pending", repo=repo).consume()
        )

    # ------------------------------------------------------------------ reads
    def get_symbols(self, ids: Iterable[str]) -> dict[str, SymbolRow]:
        ids = sorted(set(ids))
        found: dict[str, SymbolRow] = {}
        for start in range(0, len(ids), CHUNK):
            records = self._read(
                f"UNWIND $ids AS id MATCH (s:Symbol {{id: id}}) WHERE NOT s:Stub "
                f"RETURN {_SYMBOL_RETURN} AS s",
                ids=ids[start : start + CHUNK],
            )
            for r in records:
                found[r["s"]["id"]] = _symbol(r["s"])
        return found

    def find_symbols(self, text: str, repo: str | None, limit: int) -> list[SymbolRow]:
        """Exact matches: id, qualname, name, or a dotted suffix of the qualname."""
        repo_clause = " AND s.repo = $repo" if repo else ""
        if "#" in text:
            records = self._read(
                f"MATCH (s:Symbol {{id: $text}}) WHERE NOT s:Stub{repo_clause} "
                f"RETURN {_SYMBOL_RETURN} AS s",
                text=text,
                repo=repo,
            )
            if records:
                return [_symbol(r["s"]) for r in records]
        records = self._read(
            f"MATCH (s:Symbol {{qualname: $text}}) WHERE NOT s:Stub{repo_clause} "
            f"RETURN {_SYMBOL_RETURN} AS s ORDER BY s.repo, s.path LIMIT $limit",
            text=text,
            repo=repo,
            limit=limit,
        )
        if records:
            return [_symbol(r["s"]) for r in records]
        name = text.rpartition(".")[2]
        records = self._read(
            f"MATCH (s:Symbol {{name: $name}}) WHERE NOT s:Stub{repo_clause} "
            f"RETURN {_SYMBOL_RETURN} AS s "
            f"ORDER BY size(s.qualname), s.qualname, s.repo LIMIT 1000",
            name=name,
            repo=repo,
        )
        rows = [_symbol(r["s"]) for r in records]
        if "." in text:
            suffix = "." + text
            rows = [r for r in rows if r.qualname.endswith(suffix)]
        return rows[:limit]

    def _term_rows(self, queries: list[str]) -> dict[str, int]:
        """How many symbols each Lucene query matches, counted up to COMMON_TERM + 1."""
        records = self._read(
            "UNWIND $queries AS q CALL { WITH q "
            "CALL db.index.fulltext.queryNodes('symbol_search', q, {limit: $cap}) "
            "YIELD node RETURN count(node) AS n } RETURN q, n",
            queries=list(dict.fromkeys(queries)),
            cap=COMMON_TERM + 1,
        )
        return {r["q"]: r["n"] for r in records}

    def search_symbols(
        self, words: list[str], repo: str | None, kinds: list[str] | None, limit: int, offset: int
    ) -> list[tuple[SymbolRow, float]]:
        """Lucene BM25 over the same identifier-split text as the SQLite store, with the same
        field weights, the same handling of common words, and the same fallback."""
        if not words:
            return []
        # one read for the counts of every word and of the last word as a prefix (two letters
        # or more); a second only when the last word is common and another one becomes last
        asked = [_lucene(w, False) for w in words]
        if len(words[-1]) >= 2:
            asked.append(_lucene(words[-1], True))
        rows = self._term_rows(asked)
        counts = {w: rows[_lucene(w, False)] for w in words}
        kept = [w for w in words if counts[w] <= COMMON_TERM] or words
        prefix = False
        if len(kept[-1]) >= 2:
            last_prefix = _lucene(kept[-1], True)
            if last_prefix not in rows:
                rows.update(self._term_rows([last_prefix]))
            prefix = rows[last_prefix] <= COMMON_TERM
        terms = [_lucene(w, False) for w in kept[:-1]] + [_lucene(kept[-1], prefix)]
        queries = [" AND ".join(terms)]
        if len(kept) > 1:
            queries.append(" OR ".join(_lucene(w, False) for w in kept))
        rank = len(kept) != len(words) or all(counts[w] <= COMMON_TERM for w in kept)
        wanted = limit + offset
        results: list[tuple[SymbolRow, float]] = []
        seen: set[str] = set()
        for query in queries:
            filters = ["NOT node:Stub"]
            if repo:
                filters.append("node.repo = $repo")
            if kinds:
                filters.append("node.kind IN $kinds")
            order = "score DESC, s.qualname" if rank else "size(s.qualname), s.qualname"
            # order and cut before building the returned maps: a common word matches thousands
            records = self._read(
                "CALL db.index.fulltext.queryNodes('symbol_search', $q) YIELD node, score "
                f"WHERE {' AND '.join(filters)} WITH node AS s, score "
                f"ORDER BY {order} LIMIT $n RETURN {_SYMBOL_RETURN} AS s, score",
                q=query,
                repo=repo,
                kinds=kinds,
                n=wanted + len(seen),
            )
            for record in records:
                row = _symbol(record["s"])
                if row.id in seen:
                    continue
                seen.add(row.id)
                results.append((row, float(record["score"]) if rank else 0.0))
            if len(results) >= wanted:
                break
        return results[offset : offset + limit]

    def edges_of(
        self,
        ids: Iterable[str],
        direction: str,
        types: Iterable[str],
        limit: int | None = None,
        offset: int = 0,
    ) -> list[EdgeRow]:
        ids = list(ids)
        types = list(types)
        if not ids or not types:
            return []
        pattern = (
            "(o:Symbol)-[r]->(s:Symbol {id: id})"
            if direction == "in"
            else "(s:Symbol {id: id})-[r]->(o:Symbol)"
        )
        near, far = ("r_dst", "r_src") if direction == "in" else ("r_src", "r_dst")
        page = " SKIP $offset LIMIT $limit" if limit is not None else ""
        result: list[EdgeRow] = []
        for start in range(0, len(ids), CHUNK):
            records = self._read(
                f"UNWIND $ids AS id MATCH {pattern} WHERE type(r) IN $types "
                "WITH r, o, startNode(r).id AS r_src, endNode(r).id AS r_dst "
                "RETURN type(r) AS type, r_src AS src, r_dst AS dst, r.lines AS lines, "
                "r.count AS count, r.via AS via, r.confidence AS confidence, "
                f"CASE WHEN NOT o:Stub THEN {_OTHER_RETURN} END AS other "
                f"ORDER BY {near}, other.repo, other.path, other.start_line, {far}{page}",
                ids=ids[start : start + CHUNK],
                types=types,
                offset=offset,
                limit=limit if limit is not None else 0,
            )
            for r in records:
                other = _symbol(r["other"]) if r["other"] is not None else None
                result.append(EdgeRow(_edge(r), other))
        return result

    def edge_counts(
        self, ids: Iterable[str], direction: str, types: Iterable[str]
    ) -> dict[str, int]:
        ids = list(dict.fromkeys(ids))
        arrow = "<-[r]-()" if direction == "in" else "-[r]->()"
        counts = dict.fromkeys(ids, 0)
        for start in range(0, len(ids), CHUNK):
            records = self._read(
                f"UNWIND $ids AS id MATCH (s:Symbol {{id: id}}) MATCH (s){arrow} "
                "WHERE type(r) IN $types RETURN id, count(r) AS n",
                ids=ids[start : start + CHUNK],
                types=list(types),
            )
            counts.update((r["id"], r["n"]) for r in records)
        return counts

    def members(self, parent_ids: Iterable[str], name: str | None = None) -> list[SymbolRow]:
        parents = list(dict.fromkeys(parent_ids))
        found: list[SymbolRow] = []
        for start in range(0, len(parents), CHUNK):
            records = self._read(
                f"UNWIND range(0, size($parents) - 1) AS i WITH i, $parents[i] AS parent "
                f"MATCH (s:Symbol {{parent: parent}}) WHERE NOT s:Stub "
                f"AND ($name IS NULL OR s.name = $name) "
                f"RETURN {_SYMBOL_RETURN} AS s ORDER BY i, s.start_line, s.qualname",
                parents=parents[start : start + CHUNK],
                name=name,
            )
            found.extend(_symbol(r["s"]) for r in records)
        return found

    def symbols_in_file(self, repo: str, path: str) -> list[SymbolRow]:
        records = self._read(
            f"MATCH (s:Symbol {{repo: $repo, path: $path}}) WHERE NOT s:Stub "
            f"RETURN {_SYMBOL_RETURN} AS s ORDER BY s.start_line, s.qualname",
            repo=repo,
            path=path,
        )
        return [_symbol(r["s"]) for r in records]

    def files(
        self, repo: str, paths: Iterable[str] | None = None, under: str | None = None
    ) -> dict[str, FileRecord]:
        fields = (
            "f.repo AS repo, f.path AS path, f.language AS language, f.sha256 AS sha256, "
            "f.size AS size, f.mtime_ns AS mtime_ns, f.lines AS lines, f.is_test AS is_test, "
            "f.module AS module, f.parse_errors AS parse_errors"
        )
        if under is not None:
            records = self._read(
                f"MATCH (f:File) WHERE f.id STARTS WITH $prefix AND NOT f:Stub "
                f"RETURN {fields} ORDER BY f.path",
                prefix=file_id(repo, under.strip("/") + "/"),
            )
        elif paths is None:
            records = self._read(
                f"MATCH (f:File {{repo: $repo}}) WHERE NOT f:Stub RETURN {fields} ORDER BY f.path",
                repo=repo,
            )
        else:
            records = self._read(
                f"UNWIND $ids AS id MATCH (f:File {{id: id}}) WHERE NOT f:Stub RETURN {fields}",
                ids=[file_id(repo, p) for p in set(paths)],
            )
        return {
            r["path"]: FileRecord(
                r["repo"],
                r["path"],
                r["language"],
                r["sha256"],
                r["size"],
                r["mtime_ns"],
                r["lines"],
                bool(r["is_test"]),
                r["module"],
                r["parse_errors"],
            )
            for r in records
        }

    def _unresolved_rows(self, where: str, **params) -> list[tuple[str, Unresolved]]:
        """(path, Unresolved) of the symbols `where` selects (`s` is the symbol)."""
        records = self._read(
            f"MATCH (s:Symbol) WHERE {where} "
            "AND (s.unresolved IS NOT NULL OR s.external_bases IS NOT NULL) "
            "RETURN s.id AS src, s.path AS path, s.start_line AS line, s.unresolved AS names, "
            "s.unresolved_lines AS lines, s.unresolved_from AS froms, "
            "s.external_bases AS bases",
            **params,
        )
        found: list[tuple[str, Unresolved]] = []
        for r in records:
            for name, line, external in zip(
                r["names"] or [], r["lines"] or [], r["froms"] or [], strict=True
            ):
                found.append((r["path"], Unresolved(r["src"], name, line, external, "call")))
            for name in r["bases"] or []:
                found.append((r["path"], Unresolved(r["src"], name, r["line"], "", "base")))
        return found

    def unresolved_of(self, src_ids: Iterable[str]) -> list[Unresolved]:
        rows = self._unresolved_rows("s.id IN $ids", ids=list(src_ids))
        return sorted((u for _, u in rows), key=lambda u: (u.src, u.line, u.name))

    def unresolved_names(self, repo: str, kind: str = "call") -> set[str]:
        field = "unresolved" if kind == "call" else "external_bases"
        records = self._read(
            f"MATCH (s:Symbol {{repo: $repo}}) WHERE s.{field} IS NOT NULL "
            f"UNWIND s.{field} AS name RETURN DISTINCT name",
            repo=repo,
        )
        return {r["name"] for r in records}

    def search_unresolved(
        self, name: str, repo: str | None, limit: int
    ) -> list[tuple[str, Unresolved]]:
        rows = self._unresolved_rows("($repo IS NULL OR s.repo = $repo)", repo=repo)
        rows = [(p, u) for p, u in rows if name in u.name]
        rows.sort(key=lambda item: (item[1].src, item[1].line, item[1].name))
        return rows[:limit]

    def dead_code_candidates(self, repo: str, path_prefix: str) -> list[tuple[SymbolRow, int]]:
        records = self._read(
            "MATCH (s:Symbol {repo: $repo}) WHERE s.path STARTS WITH $prefix "
            "AND s.kind IN ['function', 'method', 'class'] AND NOT s:Stub "
            "RETURN " + _SYMBOL_RETURN + " AS s, "
            "COUNT { (o:Symbol)-[:CALLS|REFERENCES|INHERITS]->(s) WHERE o <> s } AS incoming "
            "ORDER BY s.path, s.start_line",
            repo=repo,
            prefix=path_prefix,
        )
        return [(_symbol(r["s"]), r["incoming"]) for r in records]

    def import_links(self, repo: str) -> list[tuple[str, str, str, list[str]]]:
        records = self._read(
            "MATCH (f:File {repo: $repo})-[r:IMPORTS]->(t) "
            "RETURN f.path AS path, CASE WHEN t:File THEN 'file' ELSE 'package' END AS kind, "
            "CASE WHEN t:File THEN t.path ELSE t.name END AS target, r.names AS names "
            "ORDER BY path, kind, target",
            repo=repo,
        )
        return [(r["path"], r["kind"], r["target"], list(r["names"])) for r in records]

    def most_called(self, repo: str, limit: int) -> list[tuple[SymbolRow, int]]:
        records = self._read(
            "MATCH (a:Symbol {repo: $repo})-[:CALLS]->(s:Symbol) WHERE a <> s "
            "AND s.kind <> 'class' AND NOT s:Stub "
            "WITH s, count(*) AS n RETURN " + _SYMBOL_RETURN + " AS s, n "
            "ORDER BY n DESC, s.qualname LIMIT $limit",
            repo=repo,
            limit=limit,
        )
        return [(_symbol(r["s"]), r["n"]) for r in records]

    def stats(self, repo: str) -> dict:
        kinds = {
            r["kind"]: r["n"]
            for r in self._read(
                "MATCH (s:Symbol {repo: $repo}) WHERE NOT s:Stub "
                "RETURN s.kind AS kind, count(*) AS n ORDER BY kind",
                repo=repo,
            )
        }
        languages = {
            r["language"]: {"files": r["n"], "lines": r["lines"]}
            for r in self._read(
                "MATCH (f:File {repo: $repo}) WHERE NOT f:Stub "
                "RETURN f.language AS language, count(*) AS n, sum(f.lines) AS lines "
                "ORDER BY language",
                repo=repo,
            )
        }
        edge_rows = self._read(
            "MATCH (a:Symbol {repo: $repo})-[r:CALLS|REFERENCES|INHERITS]->() "
            "RETURN type(r) AS type, r.via AS via, count(*) AS n, "
            "sum(CASE WHEN type(r) = 'CALLS' AND NOT (r.via = 'constructor' AND "
            "endNode(r).name = '__init__') THEN r.count ELSE 0 END) AS sites "
            "ORDER BY type, via",
            repo=repo,
        )
        edges = {f"{r['type']}/{r['via']}": r["n"] for r in edge_rows}
        unresolved = self._read(
            "MATCH (s:Symbol {repo: $repo}) WHERE s.unresolved IS NOT NULL "
            "RETURN sum(size(s.unresolved)) AS n, "
            "sum(size([f IN s.unresolved_from WHERE f <> ''])) AS ext",
            repo=repo,
        )[0]
        imports = {
            r["kind"]: r["n"]
            for r in self._read(
                "MATCH (f:File {repo: $repo})-[:IMPORTS]->(t) "
                "RETURN CASE WHEN t:File THEN 'file' ELSE 'package' END AS kind, count(*) AS n",
                repo=repo,
            )
        }
        errors = self._read(
            "MATCH (f:File {repo: $repo}) WHERE f.parse_errors > 0 RETURN count(f) AS n", repo=repo
        )[0]["n"]
        return {
            "symbols": kinds,
            "languages": languages,
            "edges": edges,
            "resolved_call_sites": sum(r["sites"] for r in edge_rows),
            "unresolved_call_sites": unresolved["n"] or 0,
            "unresolved_external": unresolved["ext"] or 0,
            "imports": imports,
            "files_with_syntax_errors": errors,
        }

    def skipped(self, repo: str) -> list[Skipped]:
        records = self._read(
            "MATCH (s:SkippedFile {repo: $repo}) RETURN s.path AS path, s.reason AS reason, "
            "s.size AS size ORDER BY path",
            repo=repo,
        )
        return [Skipped(r["path"], r["reason"], r["size"]) for r in records]

    def export(self, repo: str) -> Iterator[dict]:
        repo_row = self.get_repo(repo)
        if repo_row is None:
            return
        symbols = (
            _symbol(record["s"])
            for record in self._read(
                f"MATCH (s:Symbol {{repo: $repo}}) WHERE NOT s:Stub "
                f"RETURN {_SYMBOL_RETURN} AS s ORDER BY s.path, s.start_line, s.qualname",
                repo=repo,
            )
        )
        edges = (
            Edge(
                r["type"],
                r["src"],
                r["dst"],
                list(r["lines"]),
                r["count"],
                r["via"],
                r["confidence"],
            )
            for r in self._read(
                "MATCH (a:Symbol {repo: $repo})-[r:CALLS|REFERENCES|INHERITS]->(b:Symbol) "
                "RETURN type(r) AS type, a.id AS src, b.id AS dst, r.lines AS lines, "
                "r.count AS count, r.via AS via, r.confidence AS confidence "
                "ORDER BY type, src, dst",
                repo=repo,
            )
        )
        packages = (
            (r["name"], r["eco"])
            for r in self._read(
                "MATCH (:Repo {name: $repo})-[:PROVIDES]->(p:Package) "
                "RETURN p.name AS name, p.ecosystem AS eco ORDER BY name",
                repo=repo,
            )
        )
        yield from export_graph(
            repo_row,
            self.files(repo).values(),
            symbols,
            edges,
            self.import_links(repo),
            packages,
        )

    # ------------------------------------------------------------------ traversals
    def shortest_path(
        self, src: str, dst: str, types: list[str], max_depth: int
    ) -> list[Edge] | None:
        """Cypher's allShortestPaths, then the path whose node ids sort first — the same
        choice the breadth-first version makes."""
        if src == dst:
            return []
        records = self._read(
            "MATCH (a:Symbol {id: $src}), (b:Symbol {id: $dst}) "
            f"MATCH p = allShortestPaths((a)-[:{'|'.join(types)}*..{int(max_depth)}]->(b)) "
            "WITH p LIMIT 1000 "
            "RETURN [n IN nodes(p) | n.id] AS ids, "
            "[r IN relationships(p) | {type: type(r), src: startNode(r).id, dst: endNode(r).id, "
            "lines: r.lines, count: r.count, via: r.via, confidence: r.confidence}] AS rels",
            src=src,
            dst=dst,
        )
        if not records:
            return None
        best = min(records, key=lambda r: r["ids"])
        return [_edge(r) for r in best["rels"]]


def _repo(node: Any) -> Repo:
    return Repo(
        node.get("name"),
        node.get("root") or "",
        node.get("url") or "",
        node.get("default_branch") or "",
        node.get("head_sha") or "",
        node.get("indexed_sha") or "",
        node.get("indexed_at") or "",
        bool(node.get("dirty")),
        node.get("index_format") or "",
        node.get("mined_sha") or "",
        node.get("codeowners") or "",
    )
