"""GraphQL at /graphql (Strawberry; GraphiQL in a browser): repositories, files, symbols with
their callers and callees, call trees to a chosen depth (`trace`), search, history, claims.

Callers, callees, files and parents of a page of symbols are loaded in batches (DataLoaders over
the store's many-id reads), so a query asking for 50 symbols with their callers costs a fixed
number of store round trips, not 50. Queries deeper than MAX_DEPTH, with more than MAX_ALIASES
aliases or MAX_TOKENS tokens, are refused with a clear error before anything runs; a query may
run at most MAX_TRACES traces (a trace per step of a trace would multiply). Every field needs
the `read` scope.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from enum import Enum

import strawberry
from cartograph.agents import sessions as agents
from cartograph.model import SymbolRow
from cartograph.query import QueryError, find_symbol
from cartograph.query import search as search_symbols
from cartograph.query import trace as trace_symbol
from cartograph.query.common import Envelope
from cartograph.query.history import history as history_of
from cartograph.store.interfaces import Store
from fastapi import Request
from strawberry.dataloader import DataLoader
from strawberry.extensions import MaxAliasesLimiter, MaxTokensLimiter, QueryDepthLimiter
from strawberry.fastapi import GraphQLRouter
from strawberry.types import Info

MAX_DEPTH = 8
MAX_ALIASES = 30
MAX_TOKENS = 2000
MAX_FIRST = 100


MAX_TRACE_DEPTH = 10
MAX_TRACE_FANOUT = 50
MAX_TRACES = 10  # per query: a trace under each step of a trace would multiply without end


def _within(value: int, name: str, high: int) -> int:
    if value < 1 or value > high:
        raise ValueError(f"`{name}` is 1 to {high}")
    return value


def _first(first: int) -> int:
    return _within(first, "first", MAX_FIRST)


@strawberry.enum
class Direction(Enum):
    IN = "in"  # what reaches the symbol: its callers, their callers, ...
    OUT = "out"  # what the symbol reaches: its callees, theirs, ...


@strawberry.type
class File:
    repo: str
    path: str
    language: str
    lines: int
    is_test: bool


@strawberry.type
class Commit:
    sha: str
    at: str
    message: str
    author_email: str
    author_name: str

    @strawberry.field
    def author(self) -> Person:
        return Person(email=self.author_email, name=self.author_name)


@strawberry.type
class Person:
    email: str
    name: str


@strawberry.type
class Session:
    id: int
    agent: str
    task: str
    started_at: str
    last_seen: str
    ended_at: str


@strawberry.type
class Claim:
    repo: str
    path: str
    session: int
    agent: str
    task: str
    intent: str
    since: str
    expires_at: str

    @strawberry.field
    def holder(self, info: Info) -> Session | None:
        found = info.context["store"]().team.get_session(self.session)
        return _session(found) if found else None


@strawberry.type
class Symbol:
    row: strawberry.Private[SymbolRow]

    @strawberry.field
    def id(self) -> str:
        return self.row.id

    @strawberry.field
    def name(self) -> str:
        return self.row.name

    @strawberry.field
    def qualname(self) -> str:
        return self.row.qualname

    @strawberry.field
    def kind(self) -> str:
        return self.row.kind

    @strawberry.field
    def repo(self) -> str:
        return self.row.repo

    @strawberry.field
    def path(self) -> str:
        return self.row.path

    @strawberry.field
    def start_line(self) -> int:
        return self.row.start_line

    @strawberry.field
    def end_line(self) -> int:
        return self.row.end_line

    @strawberry.field
    def signature(self) -> str:
        return self.row.signature

    @strawberry.field
    def doc(self) -> str:
        return self.row.doc

    @strawberry.field
    async def file(self, info: Info) -> File | None:
        return await info.context["loaders"].files.load(f"{self.row.repo}:{self.row.path}")

    @strawberry.field
    async def parent(self, info: Info) -> Symbol | None:
        if not self.row.parent:
            return None
        return await info.context["loaders"].symbols.load(self.row.parent)

    @strawberry.field
    async def callers(self, info: Info, first: int = 20) -> list[Symbol]:
        found = await info.context["loaders"].callers.load(self.row.id)
        return found[: _first(first)]

    @strawberry.field
    async def callees(self, info: Info, first: int = 20) -> list[Symbol]:
        found = await info.context["loaders"].callees.load(self.row.id)
        return found[: _first(first)]

    @strawberry.field(description="The call tree above (IN) or below (OUT) this symbol.")
    def trace(
        self,
        info: Info,
        direction: Direction = Direction.OUT,
        depth: int = 3,
        fanout: int = 20,
        references: bool = False,
    ) -> Trace:
        return _trace(info, self.row.id, self.row.repo, direction, depth, fanout, references)


@strawberry.type
class IndexedCommit:
    repo: str
    indexed_sha: str
    indexed_at: str
    dirty: bool


@strawberry.type
class Freshness:
    """Which commit an answer reflects, and which of its files changed on disk since."""

    repos: list[IndexedCommit]
    stale: list[str]


def _freshness(envelope: Envelope) -> Freshness:
    return Freshness(
        repos=[
            IndexedCommit(
                repo=r.name, indexed_sha=r.indexed_sha, indexed_at=r.indexed_at, dirty=r.dirty
            )
            for r in envelope.repos
        ],
        stale=list(envelope.stale),
    )


@strawberry.type
class TraceStep:
    depth: int  # 1 for the root's own callers or callees
    parent_id: str  # the symbol this step was reached from (the root's id at depth 1)
    symbol: Symbol
    via: str  # how the resolver bound the call: import, self, annotation, ...
    confidence: float
    lines: list[int]  # call sites, in the caller's file
    repeated: bool  # already shown higher in the tree (a cycle or a diamond): not expanded


@strawberry.type
class Trace:
    root: Symbol
    direction: Direction
    depth: int
    steps: list[TraceStep]  # breadth-first
    truncated: bool  # some symbol had more callers or callees than `fanout`
    freshness: Freshness


def _trace(
    info: Info,
    name: str,
    repo: str | None,
    direction: Direction,
    depth: int,
    fanout: int,
    references: bool,
) -> Trace:
    info.context["traces"] += 1
    if info.context["traces"] > MAX_TRACES:
        raise ValueError(f"at most {MAX_TRACES} traces in one query")
    found = trace_symbol(
        info.context["store"](),
        name,
        direction.value,
        _within(depth, "depth", MAX_TRACE_DEPTH),
        repo,
        _within(fanout, "fanout", MAX_TRACE_FANOUT),
        references,
    )
    return Trace(
        root=Symbol(row=found.root),
        direction=direction,
        depth=found.depth,
        steps=[
            TraceStep(
                depth=step.depth,
                parent_id=step.parent,
                symbol=Symbol(row=step.symbol),
                via=step.edge.via,
                confidence=step.edge.confidence,
                lines=list(step.edge.lines),
                repeated=step.repeated,
            )
            for step in found.steps
        ],
        truncated=found.truncated,
        freshness=_freshness(found.envelope),
    )


@strawberry.type
class SymbolConnection:
    nodes: list[Symbol]
    next_offset: int | None


@strawberry.type
class Repository:
    name: str
    indexed_sha: str
    indexed_at: str

    @strawberry.field
    def files(self, info: Info, first: int = 50, offset: int = 0) -> list[File]:
        rows = sorted(info.context["store"]().graph.files(self.name).values(), key=lambda f: f.path)
        return [_file(f) for f in rows[offset : offset + _first(first)]]


def _session(row) -> Session:
    return Session(
        id=row.id,
        agent=row.agent,
        task=row.task,
        started_at=row.started_at,
        last_seen=row.last_seen,
        ended_at=row.ended_at,
    )


def _file(record) -> File:
    return File(
        repo=record.repo,
        path=record.path,
        language=record.language,
        lines=record.lines,
        is_test=record.is_test,
    )


class Loaders:
    """One set per request: each batches the ids asked for in one event-loop tick."""

    def __init__(self, store: Callable[[], Store]) -> None:
        self.store = store
        self.symbols = DataLoader(load_fn=self._symbols)
        self.files = DataLoader(load_fn=self._files)
        self.callers = DataLoader(load_fn=lambda ids: self._neighbors(ids, "in"))
        self.callees = DataLoader(load_fn=lambda ids: self._neighbors(ids, "out"))

    async def _symbols(self, ids: list[str]) -> list[Symbol | None]:
        found = self.store().graph.get_symbols(ids)
        return [Symbol(row=found[i]) if i in found else None for i in ids]

    async def _files(self, ids: list[str]) -> list[File | None]:
        by_repo: dict[str, list[str]] = defaultdict(list)
        for file_id in ids:
            repo, _, path = file_id.partition(":")
            by_repo[repo].append(path)
        found = {}
        for repo, paths in by_repo.items():
            for path, record in self.store().graph.files(repo, paths).items():
                found[f"{repo}:{path}"] = _file(record)
        return [found.get(i) for i in ids]

    async def _neighbors(self, ids: list[str], direction: str) -> list[list[Symbol]]:
        rows = self.store().graph.edges_of(ids, direction, ["CALLS"])
        grouped: dict[str, list[Symbol]] = defaultdict(list)
        for row in rows:
            if row.other is None:
                continue
            anchor = row.edge.dst if direction == "in" else row.edge.src
            grouped[anchor].append(Symbol(row=row.other))
        return [grouped.get(i, []) for i in ids]


@strawberry.type
class Query:
    @strawberry.field
    def repositories(self, info: Info) -> list[Repository]:
        return [
            Repository(name=r.name, indexed_sha=r.indexed_sha, indexed_at=r.indexed_at)
            for r in info.context["store"]().repos.list_repos()
        ]

    @strawberry.field
    def search(
        self, info: Info, query: str, repo: str | None = None, first: int = 20, offset: int = 0
    ) -> SymbolConnection:
        found = search_symbols(info.context["store"](), query, repo, None, _first(first), offset)
        return SymbolConnection(
            nodes=[Symbol(row=h.symbol) for h in found.hits], next_offset=found.next_offset
        )

    @strawberry.field
    def symbol(self, info: Info, name: str, repo: str | None = None) -> Symbol:
        return Symbol(row=find_symbol(info.context["store"](), name, repo))

    @strawberry.field(
        description="The call tree above (IN: what reaches it) or below (OUT: what it reaches) "
        "a symbol, breadth-first to `depth` levels, at most `fanout` children per symbol."
    )
    def trace(
        self,
        info: Info,
        name: str,
        repo: str | None = None,
        direction: Direction = Direction.OUT,
        depth: int = 3,
        fanout: int = 20,
        references: bool = False,
    ) -> Trace:
        return _trace(info, name, repo, direction, depth, fanout, references)

    @strawberry.field
    def history(
        self, info: Info, target: str, repo: str | None = None, first: int = 20
    ) -> list[Commit]:
        page = history_of(info.context["store"](), target, repo, _first(first))
        return [
            Commit(sha=e.sha, at=e.at, message=e.message, author_email=e.author, author_name=e.name)
            for e in page.entries
        ]

    @strawberry.field
    def session(self, info: Info, id: int) -> Session | None:
        found = info.context["store"]().team.get_session(id)
        return _session(found) if found else None

    @strawberry.field
    def claims(self, info: Info, repo: str | None = None) -> list[Claim]:
        return [
            Claim(
                repo=c.repo,
                path=c.path,
                session=c.session,
                agent=c.agent,
                task=c.task,
                intent=c.intent,
                since=c.since,
                expires_at=c.expires_at,
            )
            for c in agents.claims(info.context["store"](), repo)
        ]


schema = strawberry.Schema(
    query=Query,
    extensions=[
        lambda: QueryDepthLimiter(max_depth=MAX_DEPTH),
        lambda: MaxAliasesLimiter(max_alias_count=MAX_ALIASES),
        lambda: MaxTokensLimiter(max_token_count=MAX_TOKENS),
    ],
)


def build_graphql_router(
    store: Callable[[], Store], authorize: Callable[[object], None]
) -> GraphQLRouter:
    async def context(request: Request) -> dict:
        authorize(request)
        return {"store": store, "loaders": Loaders(store), "traces": 0}

    return GraphQLRouter(schema, context_getter=context, graphql_ide="graphiql")


__all__ = ["QueryError", "build_graphql_router", "schema"]
