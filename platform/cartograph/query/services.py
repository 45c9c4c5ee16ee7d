"""A repository as a service: the HTTP routes it serves (with their handlers and how many
requests of indexed code reach them) and the requests it sends (the route each reaches, or,
unmatched, the base URL they go to). docs/services.md."""

from __future__ import annotations

from dataclasses import dataclass, field

from cartograph.index.services import all_routes, file_rows, match_requests, requests_of
from cartograph.model import SymbolRow
from cartograph.query.answers import cacheable
from cartograph.query.common import Envelope, Freshness, QueryError, check_repo, clamp
from cartograph.store.interfaces import Store


@dataclass(slots=True)
class ServedRoute:
    route: SymbolRow
    handler: SymbolRow | None
    requests: int  # HTTP_CALLS edges into it, from any indexed repository


@dataclass(slots=True)
class SentRequest:
    source: SymbolRow | None  # the function that sends it
    method: str
    base: str  # "" a relative URL; a host; the variable, setting or env:NAME holding it
    path: str
    line: int
    library: str
    route: SymbolRow | None = None  # what it reaches (None: no route of indexed code)
    via: str = ""  # how it was matched (an HTTP_CALLS via)


@dataclass(slots=True)
class ServiceMap:
    repo: str
    routes: list[ServedRoute]
    route_total: int
    requests: list[SentRequest]  # matched ones first, then unmatched by base
    request_total: int
    unmatched_by_base: dict[str, int] = field(default_factory=dict)
    # the repositories whose indexed code sends requests that reach these routes (itself
    # included) → how many requests
    clients: dict[str, int] = field(default_factory=dict)
    envelope: Envelope = field(default_factory=Envelope)


@cacheable
def service_map(store: Store, repo: str, limit: int | None = 50) -> ServiceMap:
    """The routes `repo` serves and the requests it sends, each with what it connects to."""
    if check_repo(store, repo) is None:
        raise QueryError("services needs a repository name")
    limit = clamp(limit, 50)
    routes = all_routes(store)
    own = [r for r in routes if r.repo == repo]
    requests = requests_of(file_rows(store, repo))
    match_requests(repo, requests, routes, store.repos.manifests().get(repo))
    requests.sort(key=lambda r: (r.match is None, r.base, r.path, r.method, r.file, r.line))
    shown_routes = own[:limit]
    shown_requests = requests[:limit]
    ids = {r.id for r in shown_routes} | {r.handler for r in shown_routes}
    ids |= {r.source for r in shown_requests}
    ids |= {r.match.route.id for r in shown_requests if r.match is not None}
    symbols = store.graph.get_symbols(sorted(ids))
    counts: dict[str, int] = {}
    clients: dict[str, int] = {}
    for row in store.graph.edges_of([r.id for r in own], "in", ["HTTP_CALLS"]):
        counts[row.edge.dst] = counts.get(row.edge.dst, 0) + 1
        client = row.other.repo if row.other is not None else row.edge.src.partition(":")[0]
        clients[client] = clients.get(client, 0) + row.edge.count
    served = [
        ServedRoute(symbols[r.id], symbols.get(r.handler), counts.get(r.id, 0))
        for r in shown_routes
        if r.id in symbols
    ]
    sent = [
        SentRequest(
            symbols.get(r.source),
            r.method,
            r.base,
            r.path,
            r.line,
            r.library,
            symbols.get(r.match.route.id) if r.match is not None else None,
            r.match.via if r.match is not None else "",
        )
        for r in shown_requests
    ]
    unmatched: dict[str, int] = {}
    for r in requests:
        if r.match is None:
            unmatched[r.base] = unmatched.get(r.base, 0) + 1
    touched = [s.route for s in served] + [s.source for s in sent if s.source is not None]
    envelope = Freshness(store).envelope(touched, [repo])
    return ServiceMap(
        repo, served, len(own), sent, len(requests), dict(sorted(unmatched.items())),
        dict(sorted(clients.items(), key=lambda item: (-item[1], item[0]))), envelope,
    )  # fmt: skip
