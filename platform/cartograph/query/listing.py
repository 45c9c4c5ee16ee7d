"""What the graph holds, listed: indexed repositories, a repository's files, its export as
nodes and edges, and the many-id reads GraphQL batches (symbols, files, call neighbours)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from cartograph.model import FileRecord, Repo, SymbolRow
from cartograph.query.answers import cacheable
from cartograph.query.common import check_repo
from cartograph.store.interfaces import Store


@dataclass(slots=True)
class FilePage:
    """A page of a repository's indexed files, by path."""

    repo: str
    items: list[FileRecord]
    total: int
    offset: int
    next_offset: int | None


@dataclass(slots=True)
class GraphExport:
    """A repository's nodes and edges, one JSON-able dict each, read as they are written out."""

    repo: str
    items: Iterable[dict] = field(default_factory=list)


def list_repositories(store: Store) -> list[Repo]:
    return store.repos.list_repos()


@cacheable
def list_files(
    store: Store, repo: str, under: str | None = None, limit: int = 100, offset: int = 0
) -> FilePage:
    """The repository's indexed files (all of them, or those under a folder), by path."""
    check_repo(store, repo)
    records = sorted(store.graph.files(repo, under=under or None).values(), key=lambda f: f.path)
    page = records[offset : offset + limit]
    more = offset + limit if len(records) > offset + limit else None
    return FilePage(repo, page, len(records), offset, more)


def export_graph(store: Store, repo: str) -> GraphExport:
    check_repo(store, repo)
    return GraphExport(repo, store.graph.export(repo))


@cacheable
def symbols_by_id(store: Store, ids: Iterable[str]) -> dict[str, SymbolRow]:
    return store.graph.get_symbols(list(ids))


@cacheable
def files_by_id(store: Store, file_ids: Iterable[str]) -> dict[str, FileRecord]:
    """Files by id (`repo:path`), one read per repository."""
    by_repo: dict[str, list[str]] = defaultdict(list)
    for file_id in file_ids:
        repo, _, path = file_id.partition(":")
        by_repo[repo].append(path)
    found: dict[str, FileRecord] = {}
    for repo, paths in by_repo.items():
        for path, record in store.graph.files(repo, paths).items():
            found[f"{repo}:{path}"] = record
    return found


@cacheable
def call_neighbours(store: Store, ids: list[str], direction: str) -> dict[str, list[SymbolRow]]:
    """The callers (`in`) or callees (`out`) of many symbols in one read, by symbol id."""
    grouped: dict[str, list[SymbolRow]] = defaultdict(list)
    for row in store.graph.edges_of(ids, direction, ["CALLS"]):
        if row.other is not None:
            anchor = row.edge.dst if direction == "in" else row.edge.src
            grouped[anchor].append(row.other)
    return grouped
