"""The GraphStore protocol: everything the indexer writes and the queries read.

Both stores (SQLite, Neo4j) implement it and pass the same conformance suite
(tests/store). Traversals have a portable breadth-first implementation here
(`TraversalMixin`) that a store may replace with a native one (Cypher paths in Neo4j).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from cartograph.errors import Unavailable
from cartograph.model import (
    AgentSession,
    ApiToken,
    Claim,
    CoChange,
    Edge,
    EdgeWrite,
    FileRecord,
    FileWrite,
    HistoryBatch,
    Lesson,
    Repo,
    Skipped,
    SymbolRow,
    Touch,
    TrackedRepo,
    Unresolved,
    file_id,
)


class StoreError(Unavailable):
    """A store cannot be opened or used (bad URL, unreachable server, newer schema, ...)."""


@dataclass(slots=True)
class FileState:
    sha256: str
    size: int
    mtime_ns: int
    module: str
    language: str
    interface: str  # parsing.interface_hash of its facts
    aliases: str  # space-separated module aliases it was resolved under
    resolution: str = ""  # digest of what its last resolution wrote (see FileRecord)


@dataclass(slots=True)
class EdgeRow:
    """An edge seen from one end: `other` is the symbol at the far end (None if not indexed)."""

    edge: Edge
    other: SymbolRow | None


@dataclass(slots=True)
class TraceStep:
    depth: int
    edge: Edge
    parent: str  # the symbol id this step was reached from
    symbol: SymbolRow
    repeated: bool = False  # already shown higher in the tree (cycle or diamond)


@runtime_checkable
class GraphStore(Protocol):
    url: str
    # whether several processes may write one repository at once (SQLite serializes them;
    # Neo4j writers would contend for the locks of the same hub nodes)
    concurrent_writers: bool

    def close(self) -> None: ...

    # ---- repositories and locks
    def upsert_repo(self, repo: Repo) -> None: ...
    def get_repo(self, name: str) -> Repo | None: ...
    def list_repos(self) -> list[Repo]: ...
    def delete_repo(self, name: str) -> None: ...
    def acquire_index_lock(
        self, repo: str, owner: str, ttl: float, replacing: str | None = None
    ) -> bool: ...
    def index_lock_holder(self, repo: str) -> str | None: ...
    def refresh_index_lock(self, repo: str, owner: str, ttl: float) -> None: ...
    def release_index_lock(self, repo: str, owner: str) -> None: ...

    # ---- index writes
    def file_states(self, repo: str) -> dict[str, FileState]: ...
    def load_facts(self, repo: str, paths: Iterable[str]) -> dict[str, bytes]: ...
    def write_files(self, repo: str, writes: list[FileWrite], replace: bool) -> None: ...
    def write_edges(self, repo: str, writes: list[EdgeWrite]) -> None: ...
    def delete_files(self, repo: str, paths: Iterable[str]) -> None: ...
    def finish_run(self, repo: str) -> None: ...  # after an index run's last write
    def update_file_stats(self, repo: str, stats: list[tuple[str, int, int]]) -> None: ...
    def set_skipped(self, repo: str, skipped: list[Skipped]) -> None: ...
    def set_packages(self, repo: str, names: Iterable[str], ecosystem: str) -> None: ...
    def dependents(self, repo: str, modules: Iterable[str]) -> set[str]: ...
    # module names whose dependents still need re-resolving (survives an interrupted run)
    def add_pending(self, repo: str, modules: Iterable[str]) -> None: ...
    def pending(self, repo: str) -> set[str]: ...
    def clear_pending(self, repo: str) -> None: ...

    # ---- reads
    def get_symbols(self, ids: Iterable[str]) -> dict[str, SymbolRow]: ...
    def find_symbols(self, text: str, repo: str | None, limit: int) -> list[SymbolRow]: ...
    def search_symbols(
        self, words: list[str], repo: str | None, kinds: list[str] | None, limit: int, offset: int
    ) -> list[tuple[SymbolRow, float]]: ...
    def edges_of(
        self,
        ids: Iterable[str],
        direction: str,
        types: Iterable[str],
        limit: int | None = None,
        offset: int = 0,
    ) -> list[EdgeRow]: ...
    # the number of `types` edges into ("in") or out of each of `ids` (0 included)
    def edge_counts(
        self, ids: Iterable[str], direction: str, types: Iterable[str]
    ) -> dict[str, int]: ...
    def members(self, parent_ids: Iterable[str], name: str | None = None) -> list[SymbolRow]: ...
    def symbols_in_file(self, repo: str, path: str) -> list[SymbolRow]: ...
    # all files, the files at `paths`, or the files under the folder `under`
    def files(
        self, repo: str, paths: Iterable[str] | None = None, under: str | None = None
    ) -> dict[str, FileRecord]: ...
    def unresolved_of(self, src_ids: Iterable[str]) -> list[Unresolved]: ...
    def unresolved_names(self, repo: str, kind: str = "call") -> set[str]: ...
    def search_unresolved(
        self, name: str, repo: str | None, limit: int
    ) -> list[tuple[str, Unresolved]]: ...
    def dead_code_candidates(self, repo: str, path_prefix: str) -> list[tuple[SymbolRow, int]]: ...
    def import_links(self, repo: str) -> list[tuple[str, str, str, list[str]]]: ...
    def most_called(self, repo: str, limit: int) -> list[tuple[SymbolRow, int]]: ...
    def stats(self, repo: str) -> dict: ...
    def skipped(self, repo: str) -> list[Skipped]: ...
    def export(self, repo: str) -> Iterator[dict]: ...
    # ---- git history (schema version 2)
    # API tokens (only hashes)
    def add_token(self, name: str, scopes: tuple[str, ...], digest: str, at: str) -> ApiToken: ...
    def token_by_hash(self, digest: str) -> ApiToken | None: ...
    def list_tokens(self) -> list[ApiToken]: ...
    def revoke_token(self, name: str, at: str) -> bool: ...

    # agent sessions, file claims (atomic), activity and lessons
    def create_session(self, agent: str, task: str, at: str) -> AgentSession: ...
    def get_session(self, session_id: int) -> AgentSession | None: ...
    def touch_session(self, session_id: int, at: str) -> None: ...
    def end_session(self, session_id: int, at: str) -> None: ...
    def claim_path(
        self,
        repo: str,
        path: str,
        session: int,
        intent: str,
        now: str,
        expires_at: str,
        alive_after: str,
    ) -> Claim: ...
    def release_path(self, repo: str, path: str, session: int) -> bool: ...
    def list_claims(self, repo: str | None, now: str, alive_after: str) -> list[Claim]: ...
    def record_activity(self, session: int, repo: str, path: str, kind: str, at: str) -> bool: ...
    def session_activity(self, session: int) -> list[tuple[str, str, str, str]]: ...
    def add_lesson(
        self, session: int, agent: str, text: str, kind: str, about: list[str], at: str
    ) -> Lesson: ...
    def find_lessons(self, about: list[str], text: str, limit: int) -> list[Lesson]: ...

    # tracked repositories (push-triggered sync) and the webhook deliveries seen
    def track_repo(self, tracked: TrackedRepo) -> None: ...
    def get_tracked(self, name: str) -> TrackedRepo | None: ...
    def tracked_repos(self) -> list[TrackedRepo]: ...
    def update_tracked(self, name: str, **fields: object) -> None: ...
    def untrack_repo(self, name: str) -> None: ...
    def record_delivery(self, repo: str, delivery_id: str) -> bool: ...

    def write_history(self, repo: str, batch: HistoryBatch) -> None: ...
    # paths and symbol ids that hold history but are no longer in the index
    def history_orphans(self, repo: str) -> tuple[set[str], set[str]]: ...
    # the symbol ids holding history whose id names one of `paths`, by path
    def history_symbols(self, repo: str, paths: Iterable[str]) -> dict[str, set[str]]: ...
    # re-key history to other paths / symbol ids, all at once (None: forget it)
    def remap_history(
        self, repo: str, files: dict[str, str | None], symbols: dict[str, str | None]
    ) -> None: ...
    def clear_history(self, repo: str) -> None: ...
    def refresh_cochange_weights(
        self, repo: str, files: Iterable[str] | None = None, symbols: Iterable[str] | None = None
    ) -> None: ...
    def set_history_state(self, repo: str, mined_sha: str, codeowners: str) -> None: ...
    def symbol_spans(
        self, repo: str, kinds: Iterable[str], paths: Iterable[str] | None = None
    ) -> dict[str, list[tuple[int, int, str]]]: ...
    def file_history(self, repo: str, path: str, limit: int, offset: int = 0) -> list[Touch]: ...
    def symbol_history(self, symbol: str, limit: int, offset: int = 0) -> list[Touch]: ...
    def touches_under(self, repo: str, path: str, exact: bool) -> list[Touch]: ...
    def cochanges(self, repo: str, path: str, min_count: int, limit: int) -> list[CoChange]: ...
    def symbol_cochanges(self, symbol: str, min_count: int, limit: int) -> list[CoChange]: ...
    def history_stats(self, repo: str) -> dict: ...

    def trace(
        self, root: str, direction: str, types: list[str], depth: int, fanout: int
    ) -> list[TraceStep]: ...
    def shortest_path(
        self, src: str, dst: str, types: list[str], max_depth: int
    ) -> list[Edge] | None: ...


class TraversalMixin:
    """Breadth-first trace and shortest path over `edges_of`, one store round trip per level."""

    def trace(
        self, root: str, direction: str, types: list[str], depth: int, fanout: int
    ) -> list[TraceStep]:
        steps: list[TraceStep] = []
        seen = {root}
        frontier = [root]
        for level in range(1, depth + 1):
            if not frontier:
                break
            rows = self.edges_of(frontier, direction, types)  # type: ignore[attr-defined]
            by_parent: dict[str, list[EdgeRow]] = {}
            for row in rows:
                parent = row.edge.dst if direction == "in" else row.edge.src
                by_parent.setdefault(parent, []).append(row)
            next_frontier: list[str] = []
            for parent in frontier:
                children = by_parent.get(parent, [])
                children.sort(key=_trace_order)
                for row in children[:fanout]:
                    other_id = row.edge.src if direction == "in" else row.edge.dst
                    if row.other is None:
                        continue
                    repeated = other_id in seen
                    steps.append(TraceStep(level, row.edge, parent, row.other, repeated))
                    if not repeated:
                        seen.add(other_id)
                        next_frontier.append(other_id)
            frontier = next_frontier
        return steps

    def shortest_path(
        self, src: str, dst: str, types: list[str], max_depth: int
    ) -> list[Edge] | None:
        """A shortest call path from src to dst, or None: of all the shortest ones, the one
        whose sequence of symbol ids sorts first (so every store answers the same path)."""
        if src == dst:
            return []
        layers: list[set[str]] = [{src}]
        successors: dict[str, dict[str, Edge]] = {}
        seen = {src}
        for _ in range(max_depth):
            frontier = sorted(layers[-1])
            rows = self.edges_of(frontier, "out", types)  # type: ignore[attr-defined]
            nxt: set[str] = set()
            for row in rows:
                edge = row.edge
                if edge.dst in seen and edge.dst not in nxt:
                    continue
                options = successors.setdefault(edge.src, {})
                if edge.dst not in options or edge.type < options[edge.dst].type:
                    options[edge.dst] = edge
                nxt.add(edge.dst)
            if not nxt:
                return None
            seen |= nxt
            layers.append(nxt)
            if dst in nxt:
                break
        else:
            return None
        # walk back: the nodes of each layer that lie on some shortest path to dst
        on_path: list[set[str]] = [set() for _ in layers]
        on_path[-1] = {dst}
        for level in range(len(layers) - 2, -1, -1):
            on_path[level] = {
                node
                for node in layers[level]
                if any(n in on_path[level + 1] for n in successors.get(node, {}))
            }
        path: list[Edge] = []
        node = src
        for level in range(1, len(layers)):
            options = successors[node]
            node = min(n for n in options if n in on_path[level])
            path.append(options[node])
        return path


def _trace_order(row: EdgeRow) -> tuple:
    other = row.other
    return (-row.edge.confidence, other.qualname if other else "", row.edge.src, row.edge.dst)


def export_graph(
    repo: Repo,
    files: Iterable[FileRecord],
    symbols: Iterable[SymbolRow],
    edges: Iterable[Edge],
    imports: Iterable[tuple[str, str, str, list[str]]],
    packages: Iterable[tuple[str, str]],
) -> Iterator[dict]:
    """Every node and relationship of a repository as `cartograph export` writes them (one
    JSON object each), from what a store read: the same output from every store."""
    name = repo.name
    yield {
        "type": "node",
        "label": "Repo",
        "id": name,
        "name": name,
        "indexed_sha": repo.indexed_sha,
        "indexed_at": repo.indexed_at,
    }
    for record in files:
        yield {
            "type": "node",
            "label": "File",
            "id": record.id,
            "repo": name,
            "path": record.path,
            "language": record.language,
            "sha256": record.sha256,
            "lines": record.lines,
            "is_test": record.is_test,
        }
        yield {"type": "edge", "label": "CONTAINS", "src": name, "dst": record.id}
    for symbol in symbols:
        yield {
            "type": "node",
            "label": "Symbol",
            "id": symbol.id,
            "repo": name,
            "path": symbol.path,
            "name": symbol.name,
            "qualname": symbol.qualname,
            "kind": symbol.kind,
            "start_line": symbol.start_line,
            "end_line": symbol.end_line,
            "signature": symbol.signature,
            "doc": symbol.doc,
            "exported": symbol.exported,
            "decorators": symbol.decorators,
        }
        yield {
            "type": "edge",
            "label": "DEFINES",
            "src": file_id(name, symbol.path),
            "dst": symbol.id,
        }
        if symbol.parent:
            yield {"type": "edge", "label": "HAS_MEMBER", "src": symbol.parent, "dst": symbol.id}
    for edge in edges:
        yield {
            "type": "edge",
            "label": edge.type,
            "src": edge.src,
            "dst": edge.dst,
            "lines": list(edge.lines),
            "count": edge.count,
            "via": edge.via,
            "confidence": edge.confidence,
        }
    for path, kind, target, names in imports:
        dst = file_id(name, target) if kind == "file" else f"package:{target}"
        yield {
            "type": "edge",
            "label": "IMPORTS",
            "src": file_id(name, path),
            "dst": dst,
            "names": names,
        }
    for package, ecosystem in packages:
        yield {
            "type": "node",
            "label": "Package",
            "id": f"package:{package}",
            "name": package,
            "ecosystem": ecosystem,
        }
        yield {"type": "edge", "label": "PROVIDES", "src": name, "dst": f"package:{package}"}
