"""What an index run reads back and writes in the Neo4j store. Bookkeeping lives on labels of
its own (IndexState: cached facts and deps; SkippedFile; IndexLock), so user queries over
Repo/File/Symbol/Package see only the graph. Unresolved calls are lists on their Symbol
(`unresolved`, `unresolved_lines`, `unresolved_from`, `unresolved_why`; `external_bases` and
where each comes from, `external_bases_from`).

Writes are batched (`UNWIND $rows`) in managed transactions. A file written again is written
by difference, in the transaction that writes it: its stored symbols and outgoing edges are
read first, and only what differs is written — new symbols created, gone ones deleted, changed
properties set (a body edit moves the lines of the symbols below it and little else), edges
no longer made deleted, new ones created, changed ones updated in place. Symbols that survive
an edit keep their node, so relationships other files hold to them survive too."""

from __future__ import annotations

import hashlib
import marshal
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from cartograph.identifiers import search_text
from cartograph.model import (
    DERIVED_VIAS,
    DerivedWrite,
    Edge,
    EdgeWrite,
    FileWrite,
    ImportLink,
    ServiceWrite,
    Skipped,
    SymbolRow,
    Unresolved,
    file_id,
)
from cartograph.store.interfaces import FileState
from cartograph.store.neo4j.connection import Neo4jConnection
from cartograph.store.neo4j.graph import REPO_SEARCH_SIZE, SEARCH_NAME_FIELDS, SIZE_KEYS

CHUNK = 2000
EDGE_TYPES = ("CALLS", "REFERENCES", "INHERITS")

# relabel a node that leaves the index with history: it keeps only its past (TOUCHED,
# CO_CHANGES, changes) until the next mining moves it to where it went or forgets it
RETIRE = (
    "OPTIONAL MATCH ({node})-[r]-() WHERE NOT type(r) IN ['TOUCHED', 'CO_CHANGES'] "
    "DELETE r WITH DISTINCT {node} REMOVE {node}:{label} SET {node}:{retired}"
)

_NO_UNRESOLVED: dict[str, Any] = {
    "unresolved": None,
    "unresolved_lines": None,
    "unresolved_from": None,
    "unresolved_why": None,
    "external_bases": None,
    "external_bases_from": None,
}


def _symbol_props(s: SymbolRow) -> dict[str, Any]:
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


# a repository's search sizes, from those its files' writes left on their IndexState and its
# routes' on ServiceState (`search_size`)
SIZES_WRITTEN = (
    "OPTIONAL MATCH (f:IndexState {repo: $repo}) "
    "WITH count(f) - count(f.search_rows) AS unsized, sum(f.search_rows) AS search_rows, "
    "sum(f.search_tokens) AS search_tokens, "
    "sum(f.body_rows) AS body_rows, sum(f.body_tokens) AS body_tokens "
    "OPTIONAL MATCH (s:ServiceState {repo: $repo}) "
    "RETURN unsized + CASE WHEN s IS NOT NULL AND s.routes IS NOT NULL AND s.search_rows IS NULL "
    "THEN 1 ELSE 0 END AS unsized, search_rows + coalesce(s.search_rows, 0) AS search_rows, "
    "search_tokens + coalesce(s.search_tokens, 0) AS search_tokens, body_rows, body_tokens"
)


def search_size(rows: list[dict[str, Any]]) -> dict[str, int]:
    """What symbols (their written properties) add to the full-text tables' sizes, as FTS5
    counts them: rows and words over the names, rows and words of those with a body."""
    bodies = [row["search_body"] for row in rows if row["search_body"]]
    return {
        "search_rows": len(rows),
        "search_tokens": sum(
            len(row[f"search_{field}"].split()) for row in rows for field in SEARCH_NAME_FIELDS
        ),
        "body_rows": len(bodies),
        "body_tokens": sum(len(body.split()) for body in bodies),
    }


def _unresolved_lists(unresolved: list[Unresolved]) -> dict[str, dict[str, Any]]:
    """Unresolved calls and bases of a file, as the list properties of their symbols."""
    lists: dict[str, dict[str, Any]] = {}
    for u in unresolved:
        entry = lists.setdefault(
            u.src,
            {
                "unresolved": [],
                "unresolved_lines": [],
                "unresolved_from": [],
                "unresolved_why": [],
                "external_bases": [],
                "external_bases_from": [],
            },
        )
        if u.kind == "base":
            entry["external_bases"].append(u.name)
            entry["external_bases_from"].append(u.external)
        else:
            entry["unresolved"].append(u.name)
            entry["unresolved_lines"].append(u.line)
            entry["unresolved_from"].append(u.external)
            entry["unresolved_why"].append(u.reason)
    for entry in lists.values():
        for key, value in entry.items():
            if not value:
                entry[key] = None
    return lists


class Neo4jIndexWriter:
    def __init__(self, connection: Neo4jConnection) -> None:
        self.connection = connection

    # ------------------------------------------------------------------ locks
    def acquire_index_lock(
        self, repo: str, owner: str, ttl: float, replacing: str | None = None
    ) -> bool:
        """One atomic write on the repository's lock node: take it when it is free, expired,
        ours, or held by `replacing` (a dead holder)."""
        now = time.time()

        def work(tx: Any) -> bool:
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

        return self.connection.write(work)

    def index_lock_holder(self, repo: str) -> str | None:
        records = self.connection.read(
            "MATCH (l:IndexLock {repo: $repo}) WHERE l.expires > $now RETURN l.owner AS owner",
            repo=repo,
            now=time.time(),
        )
        return records[0]["owner"] if records else None

    def refresh_index_lock(self, repo: str, owner: str, ttl: float) -> None:
        self.connection.run(
            "MATCH (l:IndexLock {repo: $repo, owner: $owner}) SET l.expires = $expires",
            repo=repo,
            owner=owner,
            expires=time.time() + ttl,
        )

    def release_index_lock(self, repo: str, owner: str) -> None:
        self.connection.run(
            "MATCH (l:IndexLock {repo: $repo, owner: $owner}) DELETE l", repo=repo, owner=owner
        )

    # ------------------------------------------------------------------ reads for a run
    def file_states(self, repo: str) -> dict[str, FileState]:
        # one record holding every row: a record per file costs more than the query itself
        # (Django's 2,900 files: 22 ms collected, 55-90 ms as records)
        records = self.connection.read(
            "MATCH (f:File {repo: $repo}) WHERE NOT f:Stub "
            "OPTIONAL MATCH (i:IndexState {id: f.id}) "
            "RETURN collect([f.path, f.sha256, f.size, f.mtime_ns, f.module, f.language, "
            "f.interface, f.aliases, coalesce(i.resolution, ''), coalesce(i.flows_digest, ''), "
            "i.derived IS NOT NULL, i.http IS NOT NULL, coalesce(f.is_test, false)]) AS rows",
            repo=repo,
        )
        return {row[0]: FileState(*row[1:]) for row in records[0]["rows"]}

    def flow_states(
        self, repo: str, paths: Iterable[str] | None = None
    ) -> dict[str, tuple[bytes | None, bytes | None]]:
        where = "" if paths is None else "AND i.path IN $paths "
        records = self.connection.read(
            "MATCH (i:IndexState {repo: $repo}) WHERE (i.flows IS NOT NULL OR i.derived IS NOT NULL) "
            f"{where}RETURN collect([i.path, i.flows, i.derived]) AS rows",
            repo=repo,
            paths=sorted(set(paths)) if paths is not None else [],
        )
        return {
            path: (bytes(flows) if flows is not None else None, bytes(derived) if derived else None)
            for path, flows, derived in records[0]["rows"]
        }

    def edge_keys(self, repo: str, paths: Iterable[str]) -> dict[str, set[tuple[str, str, str]]]:
        records = self.connection.read(
            "UNWIND $paths AS path MATCH (s:Symbol {repo: $repo, path: path})"
            "-[r:CALLS|REFERENCES|INHERITS]->(d) "
            "RETURN path, collect([type(r), s.id, d.id]) AS keys",
            repo=repo,
            paths=sorted(set(paths)),
        )
        found: dict[str, set[tuple[str, str, str]]] = {p: set() for p in paths}
        for record in records:
            found[record["path"]] = {tuple(k) for k in record["keys"]}
        return found

    def write_derived(self, repo: str, writes: list[DerivedWrite]) -> None:
        if not writes:
            return
        removed = [{"type": t, "src": src, "dst": dst} for w in writes for t, src, dst in w.removed]
        links = _link_rows(repo, [(w.path, w.added, []) for w in writes])
        states = [{"id": file_id(repo, w.path), "derived": w.derived or None} for w in writes]

        def work(tx: Any) -> None:
            for etype in EDGE_TYPES:
                rows = [r for r in removed if r["type"] == etype]
                for start in range(0, len(rows), CHUNK):
                    tx.run(
                        f"UNWIND $rows AS e MATCH (:Symbol {{id: e.src}})-[r:{etype}]->"
                        "(:Symbol {id: e.dst}) DELETE r",
                        rows=rows[start : start + CHUNK],
                    ).consume()
            _write_links(tx, repo, links)
            tx.run(
                "UNWIND $rows AS f MATCH (i:IndexState {id: f.id}) SET i.derived = f.derived",
                rows=states,
            ).consume()

        self.connection.write(work)

    def load_facts(self, repo: str, paths: Iterable[str]) -> dict[str, bytes]:
        ids = [file_id(repo, p) for p in paths]
        found: dict[str, bytes] = {}
        for start in range(0, len(ids), CHUNK):
            records = self.connection.read(
                "UNWIND $ids AS id MATCH (i:IndexState {id: id}) WHERE i.facts IS NOT NULL "
                "RETURN i.path AS path, i.facts AS facts",
                ids=ids[start : start + CHUNK],
            )
            found.update((r["path"], bytes(r["facts"])) for r in records)
        return found

    def dependents(self, repo: str, modules: Iterable[str]) -> set[str]:
        records = self.connection.read(
            "MATCH (i:IndexState {repo: $repo}) WHERE any(m IN i.deps WHERE m IN $modules) "
            "RETURN i.path AS path",
            repo=repo,
            modules=sorted(set(modules)),
        )
        return {r["path"] for r in records}

    def dependents_across(self, modules: Iterable[str], besides: str) -> dict[str, set[str]]:
        records = self.connection.read(
            "MATCH (r:Repo) WHERE r.name <> $besides "
            "MATCH (i:IndexState {repo: r.name}) WHERE any(m IN i.deps WHERE m IN $modules) "
            "RETURN i.repo AS repo, i.path AS path",
            besides=besides,
            modules=sorted(set(modules)),
        )
        found: dict[str, set[str]] = {}
        for r in records:
            found.setdefault(r["repo"], set()).add(r["path"])
        return found

    def skipped(self, repo: str) -> list[Skipped]:
        records = self.connection.read(
            "MATCH (s:SkippedFile {repo: $repo}) RETURN s.path AS path, s.reason AS reason, "
            "s.size AS size ORDER BY path",
            repo=repo,
        )
        return [Skipped(r["path"], r["reason"], r["size"]) for r in records]

    def pending(self, repo: str) -> set[str]:
        records = self.connection.read(
            "MATCH (r:Repo {name: $repo}) RETURN r.pending AS p", repo=repo
        )
        return set(records[0]["p"] or []) if records else set()

    # ------------------------------------------------------------------ writes
    def write_files(self, repo: str, writes: list[FileWrite], replace: bool) -> None:
        if not writes:
            return
        symbols: list[dict[str, Any]] = []
        sizes: list[dict[str, int]] = []  # each file's share of the full-text tables
        for w in writes:
            unresolved = _unresolved_lists(w.unresolved)
            first = len(symbols)
            for symbol in w.symbols:
                row = _symbol_props(symbol)
                row["search_body"] = w.bodies.get(symbol.id, "")
                row.update(unresolved.get(symbol.id, _NO_UNRESOLVED))
                row["written"] = _digest(row)
                symbols.append(row)
            sizes.append(search_size(symbols[first:]))
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
                "sizes": size,
                "facts": w.facts,
                "deps": w.deps,
                "resolution": w.record.resolution,
                "flows": w.flows,
                "flows_digest": w.flows_digest,
                "http": w.http,
            }
            for w, size in zip(writes, sizes, strict=True)
        ]
        links = _link_rows(repo, [(w.record.path, w.edges, w.imports) for w in writes])

        def work(tx: Any) -> None:
            # a transaction may be retried: what it writes is worked out inside it
            to_create, to_link, stored = symbols, links, None
            if replace:
                # by difference: what the files hold already and still say is left as it is
                stored = _stored_rows(tx, repo, [w.record.path for w in writes])
                _clear_file_rows(tx, repo, files, symbols=True)
                to_link = {**links, "edges": _write_edge_difference(tx, links["edges"], stored)}
            tx.run(
                "MERGE (r:Repo {name: $repo}) WITH r "
                "UNWIND $files AS f MERGE (file:File {id: f.id}) "
                "SET file += f.props REMOVE file:Stub MERGE (r)-[:CONTAINS]->(file) "
                "MERGE (i:IndexState {id: f.id}) "
                "SET i.repo = $repo, i.path = f.path, i.facts = f.facts, i.deps = f.deps, "
                "i.resolution = f.resolution, i.flows = f.flows, i.flows_digest = f.flows_digest, "
                "i.http = f.http, i += f.sizes",
                files=files,
                repo=repo,
            ).consume()
            if stored is not None:
                to_create = _changed_symbols(tx, symbols, stored.symbols)
            # new files have no DEFINES/HAS_MEMBER yet: CREATE them; a file written again keeps
            # the ones of its surviving symbols: MERGE
            link = "MERGE" if replace else "CREATE"
            for start in range(0, len(to_create), CHUNK):
                # a file's symbols come parents first, so a member's parent already exists
                tx.run(
                    "UNWIND $rows AS row MERGE (s:Symbol {id: row.id}) "
                    "SET s += row REMOVE s:Stub "
                    "WITH s, row MATCH (f:File {id: row.repo + ':' + row.path}) "
                    f"{link} (f)-[:DEFINES]->(s) "
                    "WITH s, row OPTIONAL MATCH (p:Symbol {id: row.parent}) "
                    "FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END | "
                    f"  {link} (p)-[:HAS_MEMBER]->(s))",
                    rows=to_create[start : start + CHUNK],
                ).consume()
            _write_links(tx, repo, to_link)

        self.connection.write(work)

    def write_edges(self, repo: str, writes: list[EdgeWrite]) -> None:
        if not writes:
            return
        files = [
            {
                "id": file_id(repo, w.path),
                "path": w.path,
                "deps": w.deps,
                "resolution": w.resolution,
                "flows": w.flows,
                "flows_digest": w.flows_digest,
                "http": w.http,
            }
            for w in writes
        ]
        links = _link_rows(repo, [(w.path, w.edges, w.imports) for w in writes])
        unresolved = [
            {"id": sid, **lists}
            for w in writes
            for sid, lists in _unresolved_lists(w.unresolved).items()
        ]

        def work(tx: Any) -> None:
            stored = _stored_rows(tx, repo, [w.path for w in writes], symbols_too=False)
            _clear_file_rows(tx, repo, files, symbols=False)
            to_link = {**links, "edges": _write_edge_difference(tx, links["edges"], stored)}
            tx.run(
                "UNWIND $files AS f MATCH (i:IndexState {id: f.id}) "
                "SET i.deps = f.deps, i.resolution = f.resolution, i.flows = f.flows, "
                "i.flows_digest = f.flows_digest, i.http = f.http",
                files=files,
            ).consume()
            tx.run(
                "UNWIND $files AS f MATCH (s:Symbol {repo: $repo, path: f.path}) "
                "REMOVE s.unresolved, s.unresolved_lines, s.unresolved_from, s.unresolved_why, "
                "s.external_bases, s.external_bases_from",
                files=files,
                repo=repo,
            ).consume()
            tx.run(
                "UNWIND $rows AS u MATCH (s:Symbol {id: u.id}) SET s += u", rows=unresolved
            ).consume()
            _write_links(tx, repo, to_link)

        self.connection.write(work)

    def http_rows(self, repo: str) -> dict[str, bytes]:
        records = self.connection.read(
            "MATCH (i:IndexState {repo: $repo}) WHERE i.http IS NOT NULL "
            "RETURN i.path AS path, i.http AS http",
            repo=repo,
        )
        return {r["path"]: bytes(r["http"]) for r in records}

    def service_listings(self) -> dict[str, tuple[str, str]]:
        records = self.connection.read(
            "MATCH (s:ServiceState) RETURN s.repo AS repo, s.routes AS routes, s.calls AS calls"
        )
        return {r["repo"]: (r["routes"], r["calls"]) for r in records}

    def write_services(self, repo: str, write: ServiceWrite) -> None:
        routes = None
        if write.routes is not None:
            routes = [_symbol_props(s) | {"search_body": ""} for s in write.routes]
        sizes = search_size(routes) if routes is not None else {}
        route_edges = _service_edge_rows(write.route_edges)
        calls = _service_edge_rows(write.calls)

        def work(tx: Any) -> None:
            if routes is not None:
                # route nodes are kept with their incoming HTTP_CALLS (other repositories'):
                # the ones that are gone go, the others are set again
                keep = {r["id"] for r in routes}
                tx.run(
                    "UNWIND $gone AS id MATCH (s:Symbol {id: id}) WHERE s.kind = 'route' "
                    "DETACH DELETE s",
                    gone=[sid for sid in write.gone_routes if sid not in keep],
                ).consume()
                tx.run(
                    "UNWIND $kept AS id MATCH (:Symbol {id: id})-[r:ROUTES_TO]->() DELETE r",
                    kept=[sid for sid in write.gone_routes if sid in keep],
                ).consume()
                tx.run(
                    "UNWIND $rows AS row MERGE (s:Symbol {id: row.id}) SET s += row "
                    "REMOVE s:Stub WITH s, row MATCH (f:File {id: row.repo + ':' + row.path}) "
                    "MERGE (f)-[:DEFINES]->(s)",
                    rows=routes,
                ).consume()
                _write_service_edges(tx, "ROUTES_TO", route_edges)
            tx.run(
                "UNWIND $gone AS e "
                "MATCH (:Symbol {id: e[0]})-[r:HTTP_CALLS]->(:Symbol {id: e[1]}) DELETE r",
                gone=[list(pair) for pair in write.gone_calls],
            ).consume()
            _write_service_edges(tx, "HTTP_CALLS", calls)
            tx.run(
                "MERGE (s:ServiceState {repo: $repo}) SET s.routes = $routes, s.calls = $calls, "
                "s += $sizes",
                repo=repo,
                routes=write.listing,
                calls=write.calls_listing,
                sizes=sizes,
            ).consume()

        self.connection.write(work)

    def delete_files(self, repo: str, paths: Iterable[str]) -> None:
        rows = [{"id": file_id(repo, p), "path": p} for p in paths]
        if not rows:
            return

        def work(tx: Any) -> None:
            # a file or symbol with history keeps its node, relabelled (RETIRE)
            for label, retired, match in (
                ("Symbol", "RetiredSymbol", "MATCH (n:Symbol {repo: $repo, path: f.path})"),
                ("File", "RetiredFile", "MATCH (n:File {id: f.id})"),
            ):
                tx.run(
                    f"UNWIND $rows AS f {match} "
                    "WHERE n.changes IS NOT NULL OR EXISTS { (:Commit)-[:TOUCHED]->(n) } "
                    f"{RETIRE.format(node='n', label=label, retired=retired)}",
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

        self.connection.write(work)

    def finish_run(self, repo: str) -> None:
        """Remove placeholders a run created for targets that never appeared, size the
        repository's search texts (BM25's statistics, `graph.REPO_SEARCH_SIZE`), and wait for
        the search index (updated in the background during the run) to catch up."""

        def work(tx: Any) -> None:  # one transaction: a 1-file re-index makes about ten
            tx.run("MATCH (n:Stub {repo: $repo}) DETACH DELETE n", repo=repo).consume()
            sizes = tx.run(SIZES_WRITTEN, repo=repo).single()
            if sizes["unsized"]:  # files an earlier version wrote: a pass over the symbols
                sizes = tx.run(REPO_SEARCH_SIZE, repo=repo).single()
            tx.run(
                "MERGE (z:SearchSize {repo: $repo}) SET z += $sizes",
                repo=repo,
                sizes={key: sizes[key] or 0 for key in SIZE_KEYS},
            ).consume()

        self.connection.write(work)
        self.connection.run_auto("CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()")

    def update_file_stats(self, repo: str, stats: list[tuple[str, int, int]]) -> None:
        if not stats:
            return
        rows = [{"id": file_id(repo, p), "size": size, "mtime": mtime} for p, size, mtime in stats]
        self.connection.run(
            "UNWIND $rows AS r MATCH (f:File {id: r.id}) SET f.size = r.size, f.mtime_ns = r.mtime",
            rows=rows,
        )

    def set_skipped(self, repo: str, skipped: list[Skipped]) -> None:
        rows = [{"path": s.path, "reason": s.reason, "size": s.size} for s in skipped]

        def work(tx: Any) -> None:
            tx.run("MATCH (s:SkippedFile {repo: $repo}) DELETE s", repo=repo).consume()
            tx.run(
                "UNWIND $rows AS r CREATE (s:SkippedFile) SET s = r, s.repo = $repo",
                rows=rows,
                repo=repo,
            ).consume()

        self.connection.write(work)

    def set_packages(self, repo: str, names: Iterable[str], ecosystem: str) -> None:
        rows = sorted(set(names))

        def work(tx: Any) -> None:
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

        self.connection.write(work)

    def add_pending(self, repo: str, modules: Iterable[str]) -> None:
        self.connection.run(
            "MERGE (r:Repo {name: $repo}) "
            "SET r.pending = [m IN coalesce(r.pending, []) WHERE NOT m IN $names] + $names",
            repo=repo,
            names=sorted(set(modules)),
        )

    def clear_pending(self, repo: str) -> None:
        self.connection.run("MATCH (r:Repo {name: $repo}) REMOVE r.pending", repo=repo)


def _clear_file_rows(tx: Any, repo: str, files: list[dict], symbols: bool) -> None:
    """Remove what files contribute besides their edges (written by difference): their
    symbols that are gone (`symbols`) and their imports; `files` rows: {path, id, keep: the
    surviving symbol ids}."""
    if symbols:
        # a symbol leaving with history keeps it until the next mining (see delete_files)
        tx.run(
            "UNWIND $files AS f MATCH (s:Symbol {repo: $repo, path: f.path}) "
            "WHERE NOT s.id IN f.keep AND s.kind <> 'route' "
            "AND (s.changes IS NOT NULL OR EXISTS { (:Commit)-[:TOUCHED]->(s) }) "
            f"{RETIRE.format(node='s', label='Symbol', retired='RetiredSymbol')}",
            files=files,
            repo=repo,
        ).consume()
        tx.run(
            # a route symbol stays: the services stage replaces it (index.services)
            "UNWIND $files AS f MATCH (s:Symbol {repo: $repo, path: f.path}) "
            "WHERE NOT s.id IN f.keep AND s.kind <> 'route' DETACH DELETE s",
            files=files,
            repo=repo,
        ).consume()
    tx.run(
        "UNWIND $files AS f MATCH (:File {id: f.id})-[r:IMPORTS]->() DELETE r", files=files
    ).consume()


def _digest(row: dict[str, Any]) -> str:
    """What a symbol's row writes, as a digest kept on the node (`written`): a file written
    again rewrites only the symbols whose digest differs. Marshal's version 2 writes no
    back-references, so equal rows give equal bytes whatever objects they share (half the
    time of their `repr`; a symbol written by an earlier version is rewritten once)."""
    return hashlib.blake2b(marshal.dumps(sorted(row.items()), 2), digest_size=12).hexdigest()


@dataclass(slots=True)
class _Stored:
    """What files hold in the graph before they are written again: the digest of each of
    their symbols' rows (`_digest`; None for a node written before digests), and their
    resolver edges by (type, source, target) with the relationship's id and properties."""

    symbols: dict[str, str | None]
    edges: dict[tuple[str, str, str], tuple[str, dict[str, Any]]]


_EDGE_PROPS = ("lines", "count", "via", "confidence", "order")


def _stored_rows(tx: Any, repo: str, paths: list[str], symbols_too: bool = True) -> _Stored:
    symbols = {
        record["id"]: record["written"]
        for record in tx.run(
            "UNWIND $paths AS path MATCH (s:Symbol {repo: $repo, path: path}) "
            "RETURN s.id AS id, s.written AS written",
            paths=paths if symbols_too else [],
            repo=repo,
        )
    }
    edges = {
        (record["type"], record["src"], record["dst"]): (record["rid"], record["props"])
        for record in tx.run(
            "UNWIND $paths AS path MATCH (s:Symbol {repo: $repo, path: path})"
            "-[r:CALLS|REFERENCES|INHERITS]->(d) WHERE NOT coalesce(r.via, '') IN $derived "
            "RETURN type(r) AS type, s.id AS src, d.id AS dst, elementId(r) AS rid, "
            "r {.lines, .count, .via, .confidence, .order} AS props",
            paths=paths,
            repo=repo,
            derived=list(DERIVED_VIAS),
        )
    }
    return _Stored(symbols, edges)


def _same(stored: Any, written: Any) -> bool:
    if isinstance(written, tuple | list):
        return isinstance(stored, list | tuple) and list(stored) == list(written)
    return stored == written


def _changed_symbols(tx: Any, rows: list[dict], stored: dict[str, str | None]) -> list[dict]:
    """Rewrite the stored symbols among `rows` whose row changed (a None in a row removes that
    property, as on a first write) and return the rows of the new symbols, to be created."""
    new = [row for row in rows if row["id"] not in stored]
    changed = [row for row in rows if row["id"] in stored and stored[row["id"]] != row["written"]]
    for start in range(0, len(changed), CHUNK):
        tx.run(
            "UNWIND $rows AS row MATCH (s:Symbol {id: row.id}) SET s += row",
            rows=changed[start : start + CHUNK],
        ).consume()
    return new


def _write_edge_difference(
    tx: Any, edges: dict[str, list[dict]], stored: _Stored
) -> dict[str, list[dict]]:
    """Delete the stored edges the files no longer have, update those whose properties
    changed, and return the ones to create."""
    kept: set[tuple[str, str, str]] = set()
    updates: list[dict] = []
    create: dict[str, list[dict]] = {etype: [] for etype in edges}
    for etype, rows in edges.items():
        for row in rows:
            key = (etype, row["src"], row["dst"])
            found = stored.edges.get(key)
            if found is None or key in kept:
                create[etype].append(row)
                continue
            kept.add(key)
            rid, props = found
            if not all(_same(props.get(k), row[k] if k != "order" else row[k] or None)
                       for k in _EDGE_PROPS):  # fmt: skip
                updates.append({**row, "rid": rid})
    gone = [rid for key, (rid, _props) in stored.edges.items() if key not in kept]
    if gone:
        tx.run(
            "UNWIND $rids AS rid MATCH ()-[r]->() WHERE elementId(r) = rid DELETE r", rids=gone
        ).consume()
    if updates:
        tx.run(
            "UNWIND $rows AS e MATCH ()-[r]->() WHERE elementId(r) = e.rid "
            "SET r.lines = e.lines, r.count = e.count, r.via = e.via, "
            "r.confidence = e.confidence, r.order = CASE WHEN type(r) = 'INHERITS' "
            "THEN e.order ELSE null END",
            rows=updates,
        ).consume()
    return create


def _service_edge_rows(edges: list[Edge]) -> list[dict[str, Any]]:
    return [
        {"src": e.src, "dst": e.dst, "lines": e.lines, "count": e.count, "via": e.via,
         "confidence": e.confidence}
        for e in edges
    ]  # fmt: skip


def _write_service_edges(tx: Any, etype: str, rows: list[dict[str, Any]]) -> None:
    """The services stage's edges, between symbols that exist (a route's handler, another
    repository's route): never a placeholder."""
    for start in range(0, len(rows), CHUNK):
        tx.run(
            "UNWIND $rows AS e MATCH (a:Symbol {id: e.src}) MATCH (b:Symbol {id: e.dst}) "
            f"CREATE (a)-[r:{etype}]->(b) SET r.lines = e.lines, r.count = e.count, "
            "r.via = e.via, r.confidence = e.confidence",
            rows=rows[start : start + CHUNK],
        ).consume()


def _link_rows(
    repo: str, per_file: list[tuple[str, list[Edge], list[ImportLink]]]
) -> dict[str, Any]:
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
                    "order": e.order,
                }
            )
        for link in file_imports:
            row = {"src": file_id(repo, path), "names": link.names}
            if link.target_kind == "file":
                imports.append({**row, "dst": file_id(repo, link.target), "path": link.target})
            else:
                packages.append({**row, "name": link.target})
    return {"edges": edges, "imports": imports, "packages": packages}


def _write_links(tx: Any, repo: str, links: dict[str, Any]) -> None:
    for etype, rows in links["edges"].items():
        # the base order is stored on INHERITS only (0, its absence, everywhere else)
        order = ", r.order = e.order" if etype == "INHERITS" else ""
        for start in range(0, len(rows), CHUNK):
            # a target in a file written later in this run is created as a :Stub and filled
            # in when its file is written (stubs left at the end of a run are removed)
            tx.run(
                "UNWIND $rows AS e MATCH (a:Symbol {id: e.src}) "
                "MERGE (b:Symbol {id: e.dst}) ON CREATE SET b:Stub, b.repo = $repo "
                f"CREATE (a)-[r:{etype}]->(b) SET r.lines = e.lines, r.count = e.count, "
                f"r.via = e.via, r.confidence = e.confidence{order}",
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
