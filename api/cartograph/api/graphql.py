"""GraphQL at /graphql (Strawberry; GraphiQL in a browser): repositories, files, symbols with
their callers and callees, call trees to a chosen depth (`trace`), search, history, claims.

Callers, callees, files and parents of a page of symbols are loaded in batches (DataLoaders over
the library's many-id reads), so a query asking for 50 symbols with their callers costs a fixed
number of store round trips, not 50. Queries deeper than MAX_DEPTH, with more than MAX_ALIASES
aliases or MAX_TOKENS tokens, are refused with a clear error before anything runs; a query may
run at most MAX_TRACES traces (a trace per step of a trace would multiply), and a query whose
answer could hold more than MAX_COST objects is refused before it runs (graphql_cost). Every
field needs the `read` scope; sessions, claims and a claim's holder need `claims`, as on REST.

A query is executed and its answer serialised on a worker thread, in an event loop of its own
(`Router`): neither its store work nor the CPU of resolving and encoding thousands of fields
stalls the server's loop (health checks, REST, other queries). A refusal (an error a user can
act on, a query out of bounds) is logged as one line, a bug with its traceback.

GET /graphql from a browser (HTML, no query) is the GraphiQL page (`cartograph.api.ide`):
it needs no token, the queries it sends do.

The fields of `WrittenQuery` are written by hand (it is a graph, not a list of operations), but
each calls the library function of a catalogue operation and takes its defaults and bounds from
that operation's parameters (`first` is the operation's `limit`). Where a field answers an
operation's answer as it is (`locate`, `impact`, `pullRequestReport`, a trace's `envelope`),
its type is made from the answer type (graphql_types.py: the fields MCP's and REST's schemas
have; a symbol row is the walkable `Symbol`). `Query` adds one field per other catalogue
operation that names one (`stats`, `hotspots`, `team`, …: graphql_answers.py), answering its
JSON. Errors carry their kind in `extensions.kind`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from enum import Enum
from typing import Any

import anyio
import strawberry
from cartograph import model
from cartograph.agents import sessions as agents
from cartograph.agents.overlay import session_view
from cartograph.api.graphql_answers import CUTS, answer_fields
from cartograph.api.graphql_cost import MAX_COST, query_cost
from cartograph.api.graphql_types import AnswerTypes
from cartograph.api.guard import log_refusal, wants_graphiql
from cartograph.api.ide import graphiql_page
from cartograph.auth import require
from cartograph.errors import CartographError, TooLarge
from cartograph.impact.report import Impact
from cartograph.impact.report import impact as impact_of
from cartograph.model import ApiToken, Review, SymbolRow
from cartograph.operations import Param, operation
from cartograph.query import QueryError, find_symbol
from cartograph.query import search as search_symbols
from cartograph.query import trace as trace_symbol
from cartograph.query.answers import answer
from cartograph.query.common import Envelope
from cartograph.query.history import history as history_of
from cartograph.query.listing import (
    call_neighbours,
    files_by_id,
    list_files,
    list_repositories,
    symbols_by_id,
)
from cartograph.query.locate import LocationMap, locate
from cartograph.query.overview import repository_relations
from cartograph.render import json_form_type, to_data
from cartograph.reviews import get_review, list_reviews
from cartograph.store.interfaces import Store
from cartograph.sync import default_data_dir
from cartograph.team import session_by_id
from fastapi import Request, Response
from fastapi.responses import HTMLResponse
from graphql import ASTValidationRule, GraphQLError
from strawberry.dataloader import DataLoader
from strawberry.extensions import (
    AddValidationRules,
    MaxTokensLimiter,
    ParserCache,
    SchemaExtension,
    ValidationCache,
)
from strawberry.extensions.max_aliases import create_validator as aliases_rule
from strawberry.extensions.query_depth_limiter import create_validator as depth_rule
from strawberry.fastapi import GraphQLRouter
from strawberry.types import ExecutionContext, Info
from strawberry.types.unset import UNSET
from strawberry.utils.logging import StrawberryLogger

MAX_DEPTH = 8
QUERY_CACHE = 256  # documents kept parsed and validated
MAX_ALIASES = 30
MAX_TOKENS = 2000
MAX_TRACES = 10  # per query: a trace under each step of a trace would multiply without end
EXECUTIONS = 2  # queries executing at once, per process (`Router`)

# the operations whose parameters the fields take: defaults and bounds come from there
SEARCH = operation("search")
CONTEXT = operation("context")
CALLERS = operation("callers")
CALLEES = operation("callees")
TRACE = operation("trace")
HISTORY = operation("history")
FILES = operation("files")
CLAIMS = operation("claims")
IMPACT = operation("impact")
LOCATE = operation("locate")
REVIEW = operation("review")
REVIEWS = operation("reviews")
SESSION_ID = operation("session-end").param("session")
REPO = SEARCH.param("repo")


def _checked(param: Param, value, spelled: str | None = None):
    """A GraphQL argument checked as its operation's parameter is (the same bounds)."""
    return param.parse(value, spelled or param.spelled("graphql"))


def _require(info: Info, scope: str) -> None:
    """Fields beyond `read` (sessions, claims, their holders) need their scope, as on REST."""
    require(info.context["caller"], scope)


def _read(info: Info, function: Callable, *args, shared: bool = False, **keywords):
    """A library call with the request's store, through the answer cache. It blocks: the whole
    execution runs on a worker thread with an event loop of its own (`Router`), never on the
    server's. The store as the request's session sees it, unless `shared` (impact compares
    with the shared graph)."""
    store = info.context["shared_store" if shared else "store"]
    return answer(store(), function, *args, **keywords)


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

    @strawberry.field(description="The session holding the claim (needs the `claims` scope).")
    async def holder(self, info: Info) -> Session | None:
        _require(info, "claims")
        found = _read(info, session_by_id, self.session)
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
    async def callers(
        self, info: Info, first: int = CALLERS.param("limit").default
    ) -> list[Symbol]:
        first = _checked(CALLERS.param("limit"), first)
        found = await info.context["loaders"].callers.load(self.row.id)
        return found[:first]

    @strawberry.field
    async def callees(
        self, info: Info, first: int = CALLEES.param("limit").default
    ) -> list[Symbol]:
        first = _checked(CALLEES.param("limit"), first)
        found = await info.context["loaders"].callees.load(self.row.id)
        return found[:first]

    @strawberry.field(description="The call tree above (IN) or below (OUT) this symbol.")
    async def trace(
        self,
        info: Info,
        direction: Direction = Direction.OUT,
        depth: int = TRACE.param("depth").default,
        fanout: int = TRACE.param("fanout").default,
        references: bool = TRACE.param("include_references").default,
    ) -> Trace:
        return await _trace(info, self.row.id, self.row.repo, direction, depth, fanout, references)


# the answer types as GraphQL object types (cartograph.api.graphql_types): a symbol row is the
# walkable Symbol
ANSWERS = AnswerTypes(
    {SymbolRow: (Symbol, lambda row: Symbol(row=row)), model.Claim: (Claim, lambda c: _claim(c))},
    # the types written here (those after this line too)
    reserved=frozenset(
        {"File", "Commit", "Person", "Session", "Claim", "Symbol", "TraceStep", "Trace"}
        | {"SymbolConnection", "ProvidedPackage", "RepositoryLink", "Repository", "Direction"}
    ),
)
EnvelopeType = ANSWERS.of(Envelope)
LocationMapType = ANSWERS.of(LocationMap)
ImpactType = ANSWERS.of(Impact)
REVIEW_FORM = json_form_type(Review)
ReviewType = ANSWERS.of(REVIEW_FORM)


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
    envelope: EnvelopeType  # type: ignore[valid-type]


async def _trace(
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
        raise TooLarge(f"at most {MAX_TRACES} traces in one query")
    found = _read(
        info,
        trace_symbol,
        _checked(TRACE.param("symbol"), name),
        _checked(TRACE.param("direction"), direction.value),
        _checked(TRACE.param("depth"), depth),
        _checked(TRACE.param("repo"), repo),
        _checked(TRACE.param("fanout"), fanout),
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
        envelope=ANSWERS.value(found.envelope, Envelope),
    )


@strawberry.type
class SymbolConnection:
    nodes: list[Symbol]
    next_offset: int | None


@strawberry.type(description="A package a repository provides.")
class ProvidedPackage:
    ecosystem: str
    name: str
    version: str
    manifest: str
    imports: list[str]


@strawberry.type(
    description="Another repository this one binds into (a provider) or that binds into it (a "
    "consumer): the edges between them, the packages, and the consumer's version mismatches."
)
class RepositoryLink:
    repo: str
    edges: int
    packages: list[str]
    mismatches: list[str]


@strawberry.type
class Repository:
    name: str
    indexed_sha: str
    indexed_at: str

    @strawberry.field(description="What the repository provides, from its manifests.")
    async def provides(self, info: Info) -> list[ProvidedPackage]:
        relations = _read(info, repository_relations, self.name)
        return [
            ProvidedPackage(
                ecosystem=p.ecosystem,
                name=p.name,
                version=p.version,
                manifest=p.manifest,
                imports=list(p.imports),
            )
            for p in relations.provides
        ]

    @strawberry.field(description="The repositories whose code this one binds into.")
    async def providers(self, info: Info) -> list[RepositoryLink]:
        relations = _read(info, repository_relations, self.name)
        return [_link(link) for link in relations.providers]

    @strawberry.field(description="The repositories whose code binds into this one.")
    async def consumers(self, info: Info) -> list[RepositoryLink]:
        relations = _read(info, repository_relations, self.name)
        return [_link(link) for link in relations.consumers]

    @strawberry.field(description="The newest impact reports of its pull requests.")
    async def reviews(
        self, info: Info, first: int = REVIEWS.param("limit").default
    ) -> list[ReviewType]:  # type: ignore[valid-type]
        found = _read(info, list_reviews, self.name, _checked(REVIEWS.param("limit"), first))
        return [ANSWERS.value(to_data(r), REVIEW_FORM) for r in found]

    @strawberry.field
    async def files(
        self,
        info: Info,
        first: int = FILES.param("limit").default,
        offset: int = FILES.param("offset").default,
    ) -> list[File]:
        page = _read(
            info,
            list_files,
            self.name,
            limit=_checked(FILES.param("limit"), first),
            offset=_checked(FILES.param("offset"), offset),
        )
        return [_file(f) for f in page.items]


def _link(link) -> RepositoryLink:
    return RepositoryLink(
        repo=link.repo,
        edges=link.edges,
        packages=list(link.packages),
        mismatches=list(link.mismatches),
    )


def _claim(claim: model.Claim) -> Claim:
    return Claim(
        repo=claim.repo,
        path=claim.path,
        session=claim.session,
        agent=claim.agent,
        task=claim.task,
        intent=claim.intent,
        since=claim.since,
        expires_at=claim.expires_at,
    )


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
    """One set per request: each batches the ids asked for in one tick of the execution's
    event loop."""

    def __init__(self, store: Callable[[], Store]) -> None:
        self.store = store
        self.symbols = DataLoader(load_fn=self._symbols)
        self.files = DataLoader(load_fn=self._files)
        self.callers = DataLoader(load_fn=lambda ids: self._neighbors(ids, "in"))
        self.callees = DataLoader(load_fn=lambda ids: self._neighbors(ids, "out"))

    async def _symbols(self, ids: list[str]) -> list[Symbol | None]:
        found = await self._read(symbols_by_id, ids)
        return [Symbol(row=found[i]) if i in found else None for i in ids]

    async def _files(self, ids: list[str]) -> list[File | None]:
        found = await self._read(files_by_id, ids)
        return [_file(found[i]) if i in found else None for i in ids]

    async def _neighbors(self, ids: list[str], direction: str) -> list[list[Symbol]]:
        grouped = await self._read(call_neighbours, ids, direction)
        return [[Symbol(row=row) for row in grouped.get(i, [])] for i in ids]

    async def _read(self, function: Callable, *args):
        return answer(self.store(), function, *args)  # on the execution's own thread


@strawberry.type
class WrittenQuery:
    """The fields written by hand; `Query` adds those made from the catalogue."""

    @strawberry.field
    async def repositories(self, info: Info) -> list[Repository]:
        return [
            Repository(name=r.name, indexed_sha=r.indexed_sha, indexed_at=r.indexed_at)
            for r in _read(info, list_repositories)
        ]

    @strawberry.field
    async def search(
        self,
        info: Info,
        query: str,
        repo: str | None = None,
        first: int = SEARCH.param("limit").default,
        offset: int = SEARCH.param("offset").default,
    ) -> SymbolConnection:
        found = _read(
            info,
            search_symbols,
            _checked(SEARCH.param("query"), query),
            _checked(SEARCH.param("repo"), repo),
            None,
            _checked(SEARCH.param("limit"), first),
            _checked(SEARCH.param("offset"), offset),
        )
        return SymbolConnection(
            nodes=[Symbol(row=h.symbol) for h in found.hits], next_offset=found.next_offset
        )

    @strawberry.field(
        description="Where to look for a task or bug report: the likely functions and methods, "
        "their tests and a confidence; empty below `minConfidence` percent."
    )
    async def locate(
        self,
        info: Info,
        text: str,
        repo: str | None = None,
        first: int = LOCATE.param("limit").default,
        min_confidence: int = LOCATE.param("min_confidence").default,
    ) -> LocationMapType:  # type: ignore[valid-type]
        found = _read(
            info,
            locate,
            _checked(LOCATE.param("text"), text),
            _checked(REPO, repo),
            _checked(LOCATE.param("limit"), first),
            _checked(LOCATE.param("min_confidence"), min_confidence),
        )
        return ANSWERS.value(found, LocationMap)

    @strawberry.field
    async def symbol(self, info: Info, name: str, repo: str | None = None) -> Symbol:
        name = _checked(CONTEXT.param("symbol"), name)
        return Symbol(row=_read(info, find_symbol, name, _checked(REPO, repo)))

    @strawberry.field(
        description="The call tree above (IN: what reaches it) or below (OUT: what it reaches) "
        "a symbol, breadth-first to `depth` levels, at most `fanout` children per symbol."
    )
    async def trace(
        self,
        info: Info,
        name: str,
        repo: str | None = None,
        direction: Direction = Direction.OUT,
        depth: int = TRACE.param("depth").default,
        fanout: int = TRACE.param("fanout").default,
        references: bool = TRACE.param("include_references").default,
    ) -> Trace:
        return await _trace(info, name, repo, direction, depth, fanout, references)

    @strawberry.field
    async def history(
        self,
        info: Info,
        target: str,
        repo: str | None = None,
        first: int = HISTORY.param("limit").default,
    ) -> list[Commit]:
        page = _read(
            info,
            history_of,
            _checked(HISTORY.param("target"), target),
            _checked(REPO, repo),
            _checked(HISTORY.param("limit"), first),
        )
        return [
            Commit(sha=e.sha, at=e.at, message=e.message, author_email=e.author, author_name=e.name)
            for e in page.entries
        ]

    @strawberry.field(
        description="What a change reaches: give `base` and `head` (refs of the repository's "
        "history) or `patch` (a unified diff against the indexed commit)."
    )
    async def impact(
        self,
        info: Info,
        repo: str,
        base: str | None = None,
        head: str | None = None,
        patch: str | None = None,
        first: int = IMPACT.param("limit").default,
        min_confidence: int = IMPACT.param("min_confidence").default,
        budget: int | None = None,
    ) -> ImpactType:  # type: ignore[valid-type]
        answer = _read(
            info,
            impact_of,
            _checked(IMPACT.param("repo"), repo),
            _checked(IMPACT.param("base"), base),
            _checked(IMPACT.param("head"), head),
            _checked(IMPACT.param("patch"), patch),
            _checked(IMPACT.param("limit"), first),
            min_confidence=_checked(IMPACT.param("min_confidence"), min_confidence),
            budget=_checked(IMPACT.param("budget"), budget),
            data_dir=default_data_dir(),
            shared=True,
        )
        return ANSWERS.value(answer, Impact)

    @strawberry.field(description="The stored impact report of a pull request.")
    async def pull_request_report(self, info: Info, repo: str, number: int) -> ReviewType:  # type: ignore[valid-type]
        found = _read(
            info,
            get_review,
            _checked(REVIEW.param("repo"), repo),
            _checked(REVIEW.param("number"), number),
        )
        return ANSWERS.value(to_data(found), REVIEW_FORM)

    @strawberry.field(description="An agent session (needs the `claims` scope).")
    async def session(self, info: Info, id: int) -> Session | None:
        _require(info, "claims")
        found = _read(info, session_by_id, _checked(SESSION_ID, id, "id"))
        return _session(found) if found else None

    @strawberry.field(description="Files claimed by live sessions (needs the `claims` scope).")
    async def claims(self, info: Info, repo: str | None = None) -> list[Claim]:
        _require(info, "claims")
        claimed = _read(info, agents.claims, _checked(CLAIMS.param("repo"), repo))
        return [_claim(c) for c in claimed]


Query = strawberry.type(
    type("Query", (WrittenQuery,), answer_fields(WrittenQuery, ANSWERS)),
    description="Repositories, symbols and their calls, and one field per question of the "
    "catalogue not written here (its answer type, with the fields REST's JSON has).",
)


class BudgetCuts(SchemaExtension):
    """An answer cut to `maxTokens` says so in the response: `extensions.cutToBudget`, by the
    field's place in the response, what it left out and the cursor for the rest."""

    def get_results(self) -> dict[str, Any]:
        context = self.execution_context.context
        cuts = context.get(CUTS) if isinstance(context, dict) else None
        return {"cutToBudget": cuts} if cuts else {}


class CostLimit(SchemaExtension):
    """Refuses a query whose answer could hold more than MAX_COST objects (graphql_cost)."""

    def on_execute(self):
        context = self.execution_context
        if context.graphql_document is not None:
            cost = query_cost(
                context.schema._schema,
                context.graphql_document,
                context.operation_name,
                context.variables,
            )
            if cost > MAX_COST:
                raise GraphQLError(
                    f"this query could return {cost} objects; at most {MAX_COST} are allowed "
                    "(ask for fewer with `first`, or nest fewer lists)",
                    extensions={"kind": "too_large"},
                )
        yield


class ErrorKinds(SchemaExtension):
    """An error a user can act on says its kind (`extensions.kind`: not_found, invalid, …)."""

    def on_execute(self):
        yield
        result = self.execution_context.result
        for error in (result.errors if result else None) or []:
            original = error.original_error
            if isinstance(original, CartographError):
                error.extensions = {**(error.extensions or {}), "kind": original.kind.value}


# the depth and alias limits as validation rules made once (QueryDepthLimiter and
# MaxAliasesLimiter make a new rule class per request, which no validation cache can key on)
LIMIT_RULES: list[type[ASTValidationRule]] = [
    depth_rule(MAX_DEPTH, None),
    aliases_rule(MAX_ALIASES),
]


class Schema(strawberry.Schema):
    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        """An error the user can act on — a CartographError (a missing scope, a name that
        matches nothing, a bound), or the query refused before it ran (syntax, validation, a
        limit) — is one line at INFO; anything else is a bug and keeps strawberry's log, at
        ERROR with its traceback."""
        for error in errors:
            original = error.original_error
            if original is None or isinstance(original, (CartographError, GraphQLError)):
                kind = original.kind.value if isinstance(original, CartographError) else "invalid"
                log_refusal("graphql", "/graphql", kind, error.message)
            else:
                StrawberryLogger.error(error, execution_context)


schema = Schema(
    query=Query,
    extensions=[
        ErrorKinds,
        CostLimit,
        BudgetCuts,
        lambda: AddValidationRules(LIMIT_RULES),
        lambda: MaxTokensLimiter(max_token_count=MAX_TOKENS),
        # a query asked again (a client's fixed queries) is parsed and validated once
        lambda: ParserCache(maxsize=QUERY_CACHE),
        lambda: ValidationCache(maxsize=QUERY_CACHE),
    ],
)


def build_graphql_router(
    store: Callable[[], Store],
    caller: Callable[[Request], ApiToken | None],
    session: Callable[[Request], int | None] = lambda request: None,
) -> GraphQLRouter:
    """`caller(request)`: the token the request came with (None: a tokenless local one). Every
    field needs `read`; sessions and claims need `claims`. `session(request)`: the agent
    session it is made in, whose overlay (its unpushed edits) the answers see."""

    async def context(request: Request) -> dict:
        if wants_graphiql(request.method, request.url.path, request.url.query, _accept(request)):
            return {}  # the page: no query runs, no token is needed (the guard let it pass)
        token = caller(request)
        require(token, "read")
        made_in = session(request)
        if made_in is None:
            seen = store
        else:

            def seen() -> Store:
                return session_view(store(), made_in, token)

        return {
            "store": seen,
            "shared_store": store,
            "loaders": Loaders(seen),
            "traces": 0,
            "caller": token,
            "session": made_in,
        }

    return Router(schema, context_getter=context, graphql_ide="graphiql")


class Router(GraphQLRouter):
    """Strawberry's FastAPI router, but a query runs off the server's event loop: once the body
    is read (on the loop: the ASGI channel is the loop's), the rest — parsing, validation,
    execution with its DataLoaders, error formatting, JSON encoding — runs in a worker thread,
    in an event loop made for the request. And GET /graphql from a browser is Cartograph's
    GraphiQL page (assets served from the package, a field for the token)."""

    # at most EXECUTIONS queries execute at once; the others wait their turn, off the loop.
    # More would not finish sooner (Python runs one thread at a time) and each runnable thread
    # delays the event loop's next turn (health checks, REST, reading the next request)
    _executions: anyio.CapacityLimiter | None = None

    def should_render_graphql_ide(self, request) -> bool:
        return wants_graphiql(
            request.method, "/graphql", str(request.query_params), request.headers.get("accept")
        )

    async def render_graphql_ide(self, request: Request) -> HTMLResponse:
        return graphiql_page(tokenless=bool(getattr(request.state, "tokenless", False)))

    async def get_sub_response(self, request: Request) -> Response:
        # strawberry keeps the request's sub-response on the router (`temporal_response`),
        # which the next request overwrites once this one has awaited: keep it with the request
        return request.state.graphql_response

    async def run(self, request, context=UNSET, root_value=UNSET):
        if self.is_websocket_request(request):
            return await super().run(request, context, root_value)
        request.state.graphql_response = self.temporal_response  # before the first await
        if self.should_render_graphql_ide(self.request_adapter_class(request)):
            return await self.render_graphql_ide(request)  # no query: no turn to wait for
        await request.body()  # read here, kept by the request for the thread's loop
        base = super().run
        if self._executions is None:  # made in the server's loop, on its first query
            self._executions = anyio.CapacityLimiter(EXECUTIONS)
        return await anyio.to_thread.run_sync(
            lambda: asyncio.run(base(request, context, root_value)), limiter=self._executions
        )


def _accept(request: Request) -> str:
    return request.headers.get("accept", "")


__all__ = ["QueryError", "Router", "build_graphql_router", "schema"]
