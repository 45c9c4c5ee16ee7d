"""The services stage: HTTP routes composed from their routers and mounts, and the requests
of every repository matched to them (docs/services.md).

Runs after the flow stage, from what the files' resolutions stored (`FileWrite.http`, rows
as `cartograph.resolve.http` lays them out), when a run wrote a file that has HTTP rows or
had some, deleted one, indexed the repository first, or follows a run that stopped before it:

1. **routes**: each route's path is its router's prefixes (the mounts that include it,
   transitively, up to an application or a root URL module) joined to its own. A route is a
   symbol of kind `route` named `METHOD /path/{param}`, declared in the file of its
   decorator or URL entry, with a ROUTES_TO edge to its handler;
2. **requests**: each request is matched against the routes of every indexed repository
   (`resolve.http.match_call`, with the repository's `[services]` configuration); a match
   is an HTTP_CALLS edge from the function that sends it to the route.

What the stage writes replaces what it wrote before, and only when it differs. When a
repository's routes change, the other repositories' requests are matched again, after the
run releases its lock (`rematch_others`), each under its own repository's lock, and only the
requests a change can reach: each repository's services state keeps, beside its HTTP_CALLS
edges, a digest of every listing its requests were matched against and, per repository, the
functions whose requests weighed its routes (`CallsState`).
"""

from __future__ import annotations

import hashlib
import json
import marshal
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from cartograph.index.flows import FLOWS_PENDING
from cartograph.index.locks import acquire, lock_owner, release
from cartograph.index.results import IndexingError
from cartograph.model import Edge, Manifest, ServiceWrite, SymbolRow, symbol_id
from cartograph.resolve.http import MATCH_CONFIDENCE, Match, Route, RouteIndex, join_paths
from cartograph.resolve.openapi import FRAMEWORK as OPENAPI
from cartograph.store import Store
from cartograph.testlayout import TestLayout

MAX_PREFIXES = 16  # the paths one router is reachable under (mounted in several places)


@dataclass(slots=True)
class ComposedRoute:
    route: Route
    path: str  # the file that declares it
    line: int
    framework: str


@dataclass(slots=True)
class ServicesOutcome:
    routes: int = 0
    calls: int = 0  # requests matched to a route
    unmatched: int = 0
    routes_changed: bool = False  # what other repositories' requests are matched against
    written: bool = False


@dataclass(slots=True)
class Request:
    """A request a repository's code sends, as its resolution found it."""

    source: str  # the symbol id of the function that sends it
    method: str
    base: str
    path: str
    line: int
    library: str
    file: str = ""
    match: Match | None = None  # what match_requests found
    weighed: set[str] = field(default_factory=set)  # the repositories whose routes it weighed


def file_rows(store: Store, repo: str) -> dict[str, list]:
    return {path: marshal.loads(blob) for path, blob in store.index.http_rows(repo).items()}


def compose_routes(
    repo: str, rows_by_file: dict[str, list], tests: TestLayout
) -> list[ComposedRoute]:
    """Every route of a repository with its full path, sorted by id."""
    routers: dict[str, tuple[str, str]] = {}  # key → (framework, own prefix)
    mounts: dict[str, list[tuple[str, str]]] = {}  # child key → [(parent key, prefix)]
    declared: list[tuple[str, list]] = []
    global_prefixes: dict[str, str] = {}  # framework → the prefix of its root routers
    for path, rows in sorted(rows_by_file.items()):
        if tests.is_test_file(path):
            continue  # a test's application and routes are not the service's (its requests are)
        for row in rows:
            if row[0] == "global":
                global_prefixes.setdefault(row[1], row[2])
            elif row[0] == "router":
                routers[row[1]] = (row[2], row[3])
            elif row[0] == "mount":
                mounts.setdefault(row[2], []).append((row[1], row[3]))
            elif row[0] == "route":
                declared.append((path, row))

    memo: dict[str, list[str]] = {}

    def prefixes(key: str, seen: frozenset[str]) -> list[str]:
        if key in memo:
            return memo[key]
        framework, own = routers.get(key, ("", ""))
        found: list[str] = []
        parents = [m for m in mounts.get(key, ()) if m[0] not in seen]
        if not parents:
            found = [join_paths(global_prefixes.get(framework, ""), own)]
        for parent, prefix in parents:
            # Flask: a blueprint registered with a url_prefix takes it instead of its own
            inner = prefix if framework == "flask" and prefix else join_paths(prefix, own)
            for outer in prefixes(parent, seen | {key}):
                found.append(join_paths(outer, inner))
        found = sorted(set(found))[:MAX_PREFIXES]
        if not seen:
            memo[key] = found
        return found

    composed: dict[str, ComposedRoute] = {}
    served: set[tuple[str, str]] = set()  # (method, path) the code declares
    # the code's routes first: a document's operation the code declares too is the code's
    declared.sort(key=lambda item: item[1][6] == OPENAPI)
    for path, (_, router, methods, route_path, handler, line, framework) in declared:
        for prefix in prefixes(router, frozenset()):
            full = join_paths(prefix, route_path)
            for method in methods:
                if framework == OPENAPI and (method, full) in served:
                    continue
                if framework != OPENAPI:
                    served.add((method, full))
                name = f"{method} {full}"
                sid = symbol_id(repo, path, name)
                composed.setdefault(
                    sid,
                    ComposedRoute(Route(repo, sid, method, full, handler), path, line, framework),
                )
    return [composed[k] for k in sorted(composed)]


def requests_of(rows_by_file: dict[str, list]) -> list[Request]:
    return [
        Request(row[1], row[2], row[3], row[4], row[5], row[6], path)
        for path, rows in sorted(rows_by_file.items())
        for row in rows
        if row[0] == "client"
    ]


def listing_of(routes: list[ComposedRoute]) -> str:
    return json.dumps(
        [[c.route.id, c.route.method, c.route.path, c.route.handler, c.line, c.framework]
         for c in routes]
    )  # fmt: skip


def routes_of_listing(repo: str, listing: str) -> list[Route]:
    return [
        Route(repo, sid, method, path, handler)
        for sid, method, path, handler, *_ in json.loads(listing)
    ]


def all_routes(store: Store) -> list[Route]:
    """Every indexed repository's routes, as their services stages listed them."""
    return listed_routes(store.index.service_listings())


def listed_routes(listings: dict[str, tuple[str, str]], excluding: str = "") -> list[Route]:
    """The routes of the repositories' stored listings, but those of `excluding`."""
    return [
        route
        for repo, (listing, _calls) in sorted(listings.items())
        if repo != excluding
        for route in routes_of_listing(repo, listing)
    ]


def serves_routes(store: Store, repo: str) -> bool:
    """Whether the repository's last services stage listed routes (other repositories'
    requests may reach them)."""
    listing = store.index.service_listings().get(repo)
    return listing is not None and bool(json.loads(listing[0]))


def match_requests(
    repo: str,
    requests: Iterable[Request],
    routes: list[Route] | RouteIndex,
    manifest: Manifest | None,
) -> list[Edge]:
    """The HTTP_CALLS edges of a repository's requests (each request's match, and the
    repositories whose routes it weighed, recorded on it)."""
    services = manifest.services if manifest is not None else {}
    index = routes if isinstance(routes, RouteIndex) else RouteIndex(routes)
    edges: dict[tuple[str, str], Edge] = {}
    for request in requests:
        found, request.weighed = index.match(
            request.method, request.base, request.path, repo, services
        )
        request.match = found
        if found is None:
            continue
        key = (request.source, found.route.id)
        edge = edges.get(key)
        if edge is None:
            edges[key] = Edge(
                "HTTP_CALLS", request.source, found.route.id, [request.line], 1, found.via,
                found.confidence,
            )  # fmt: skip
            continue
        edge.count += 1
        if request.line not in edge.lines:
            edge.lines = sorted([*edge.lines, request.line])
        if found.confidence > edge.confidence:
            edge.via, edge.confidence = found.via, found.confidence
    return [edges[k] for k in sorted(edges)]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _config_digest(manifest: Manifest | None) -> str:
    return _digest(json.dumps(sorted((manifest.services if manifest else {}).items())))


@dataclass(slots=True)
class CallsState:
    """What a repository's services stage stored of its requests (the services state's
    `calls`): its HTTP_CALLS edges; the digest of each repository's route listing they were
    matched against (`seen`) and of its `[services]` configuration; and, per repository, the
    functions one of whose requests weighed its routes (a route of it fitted the request at
    the stage that decided its match: `RouteIndex.match`). A request that weighed no route of
    a repository, and fits none of its current routes, keeps its match whatever that
    repository's routes became: `rematch` matches only the others again."""

    edges: list[list]  # [src, dst, lines, count, via], sorted by (src, dst)
    seen: dict[str, str]
    config: str
    weighed: dict[str, list[str]]

    def text(self) -> str:
        return json.dumps(
            {"edges": self.edges, "seen": self.seen, "config": self.config,
             "weighed": self.weighed},
            sort_keys=True,
        )  # fmt: skip

    @staticmethod
    def read(text: str) -> CallsState | None:
        """The state a listing holds; None for one an older version wrote."""
        try:
            held = json.loads(text)
            return CallsState(held["edges"], held["seen"], held["config"], held["weighed"])
        except (ValueError, TypeError, KeyError):
            return None


def _edge_rows(edges: list[Edge]) -> list[list]:
    return [[e.src, e.dst, e.lines, e.count, e.via] for e in edges]


def _edge_of(row: list) -> Edge:
    src, dst, lines, count, via = row
    return Edge("HTTP_CALLS", src, dst, lines, count, via, MATCH_CONFIDENCE[via])


def _weighed(requests: Iterable[Request]) -> dict[str, set[str]]:
    by_repo: dict[str, set[str]] = {}
    for request in requests:
        for repo in request.weighed:
            by_repo.setdefault(repo, set()).add(request.source)
    return by_repo


def calls_state(
    edges: list[Edge],
    requests: list[Request],
    listings: Mapping[str, str],
    manifest: Manifest | None,
) -> CallsState:
    """The state of requests just matched against the routes of these listings (repository
    → its routes' listing)."""
    return CallsState(
        _edge_rows(edges),
        {repo: _digest(listing) for repo, listing in sorted(listings.items())},
        _config_digest(manifest),
        {repo: sorted(found) for repo, found in sorted(_weighed(requests).items())},
    )


def _route_ids(listing: str) -> list[str]:
    return [sid for sid, *_ in json.loads(listing)]


def _route_keys(listing: str) -> set[tuple[str, str, str]]:
    return {(sid, method, path) for sid, method, path, *_ in json.loads(listing)}


def with_changed_rows(
    stored: dict[str, list], changed: Mapping[str, list | None]
) -> dict[str, list]:
    """The stored HTTP rows by file with the `changed` files' rows (as their resolution yields
    them; None or empty: none, or the file is gone) in their place."""
    rows = {path: r for path, r in stored.items() if path not in changed}
    rows.update({path: r for path, r in changed.items() if r})
    return rows


def services_as_changed(
    store: Store, repo: str, rows: dict[str, list]
) -> tuple[list[ComposedRoute], list[Edge]]:
    """What the services stage would list for a repository whose files had these HTTP rows,
    written nowhere (a session's overlay, `agents.overlay`): its routes, and the HTTP_CALLS
    edges of its requests, matched against those routes and every other repository's listed
    ones."""
    manifest = store.repos.manifests().get(repo) or Manifest(repo)
    composed = compose_routes(repo, rows, manifest.tests)
    routes = listed_routes(store.index.service_listings(), excluding=repo)
    routes += [c.route for c in composed]
    return composed, match_requests(repo, requests_of(rows), routes, manifest)


def route_edge(composed: ComposedRoute) -> Edge:
    """A route's ROUTES_TO edge to its handler (a document's operation names no code)."""
    return Edge("ROUTES_TO", composed.route.id, composed.route.handler, [composed.line], 1,
                "route", 1.0)  # fmt: skip


def run_services(store: Store, repo: str, manifest: Manifest | None) -> ServicesOutcome:
    """Compose the repository's routes, match its requests, write what changed."""
    rows = file_rows(store, repo)
    composed = compose_routes(repo, rows, (manifest or Manifest(repo)).tests)
    listing = listing_of(composed)
    listings = store.index.service_listings()
    before = listings.get(repo)
    routes = listed_routes(listings, excluding=repo) + [c.route for c in composed]
    requests = requests_of(rows)
    calls = match_requests(repo, requests, routes, manifest)
    seen = {other: held for other, (held, _calls) in listings.items()} | {repo: listing}
    state = calls_state(calls, requests, seen, manifest)
    written_state = state.text()
    outcome = ServicesOutcome(
        routes=len(composed),
        calls=sum(1 for r in requests if r.match is not None),
        unmatched=sum(1 for r in requests if r.match is None),
    )
    outcome.routes_changed = _route_keys(listing) != (
        _route_keys(before[0]) if before is not None else set()
    )
    routes_written = before is None or before[0] != listing
    stored = _stored_edges(before[1]) if before is not None else []
    edges_written = before is None or stored != state.edges
    if routes_written or edges_written or before is None or before[1] != written_state:
        symbols = [route_symbol(c) for c in composed] if routes_written else None
        route_edges = [route_edge(c) for c in composed if c.route.handler]
        store.index.write_services(
            repo,
            ServiceWrite(
                symbols,
                route_edges,
                calls if edges_written else [],
                listing,
                written_state,
                _route_ids(before[0]) if before is not None else [],
                [(row[0], row[1]) for row in stored] if edges_written else [],
            ),
        )
        outcome.written = True
    return outcome


def _stored_edges(text: str) -> list[list]:
    """The HTTP_CALLS edges a services state lists (an older version's: a plain list)."""
    state = CallsState.read(text)
    if state is not None:
        return state.edges
    try:
        held = json.loads(text)
    except ValueError:
        return []
    return held if isinstance(held, list) else []


class ListedRoutes:
    """Every repository's route listing, as read once for a round of rematches, and the
    route indexes built from it when a rematch needs one (all routes, or a few
    repositories')."""

    def __init__(self, listings: Mapping[str, str]) -> None:
        self.listings = dict(listings)
        self._indexes: dict[frozenset[str], RouteIndex] = {}

    def index(self, repos: Iterable[str] | None = None) -> RouteIndex:
        key = frozenset(self.listings if repos is None else repos).intersection(self.listings)
        index = self._indexes.get(key)
        if index is None:
            index = self._indexes[key] = RouteIndex(
                route
                for repo in sorted(key)
                for route in routes_of_listing(repo, self.listings[repo])
            )
        return index

    def with_listing(self, repo: str, listing: str) -> ListedRoutes:
        """These listings with `repo`'s as given (read again under its lock)."""
        if self.listings.get(repo) == listing:
            return self
        return ListedRoutes({**self.listings, repo: listing})


def rematch_others(store: Store, repo: str, lock_timeout: float) -> list[str]:
    """After a run whose routes changed, released its lock: match the other repositories'
    requests again, each under its own lock; the repositories whose edges changed, and
    notes for those whose lock stayed held (their next run matches them)."""
    changed: list[str] = []
    # the routes every request is matched against, and the configurations, read once; each
    # repository's own listing is read again under its lock (what its write replaces)
    listings = store.index.service_listings()
    routes = ListedRoutes({other: listing for other, (listing, _calls) in listings.items()})
    manifests = store.repos.manifests()
    for other in sorted(listings):
        if other == repo:
            continue
        owner = lock_owner()
        try:
            acquire(store, other, owner, lock_timeout, None)
        except IndexingError:
            store.index.add_pending(other, {FLOWS_PENDING})
            continue
        try:
            if rematch(store, other, routes, manifests.get(other)):
                changed.append(other)
        finally:
            release(store, other, owner)
    return changed


def rematch(store: Store, repo: str, routes: ListedRoutes, manifest: Manifest | None) -> bool:
    """Match a repository's stored requests again against every repository's listed routes
    (another repository's changed); whether its edges changed. The caller holds the
    repository's index lock.

    Only the requests a change can reach are matched: those of the functions whose requests
    weighed the routes of a repository whose listing differs from the one they were matched
    against (`CallsState.seen`), or fit one of its routes now. Every request is, when the
    state was written by an older version or the repository's `[services]` differ."""
    before = store.index.service_listings().get(repo)
    if before is None:
        return False
    routes = routes.with_listing(repo, before[0])
    state = CallsState.read(before[1])
    config = _config_digest(manifest)
    seen = {other: _digest(listing) for other, listing in sorted(routes.listings.items())}
    services = manifest.services if manifest is not None else {}
    sources: set[str] | None = None  # the functions whose requests are matched again; all
    if state is not None and state.config == config:
        changed = {r for r in state.seen.keys() | seen.keys() if state.seen.get(r) != seen.get(r)}
        if not changed:
            return False
        sources = {s for r in changed for s in state.weighed.get(r, ())}
    requests = requests_of(file_rows(store, repo))
    if sources is not None:
        fresh = routes.index(changed)
        if fresh.routes:
            sources.update(
                r.source
                for r in requests
                if r.source not in sources and fresh.fits(r.method, r.base, r.path, repo, services)
            )
        if not sources:
            return False  # nothing reaches the change: the stored state answers for it too
    again = [r for r in requests if sources is None or r.source in sources]
    calls = match_requests(repo, again, routes.index(), manifest)
    stored = _stored_edges(before[1])
    kept: list[list] = []  # the edges and weighings of the functions not matched again
    weighed: dict[str, set[str]] = {}
    if sources is not None and state is not None:
        kept = [row for row in stored if row[0] not in sources]
        weighed = {r: set(found) - sources for r, found in state.weighed.items()}
    for r, found in _weighed(again).items():
        weighed.setdefault(r, set()).update(found)
    after = CallsState(
        sorted(kept + _edge_rows(calls), key=lambda row: (row[0], row[1])),
        seen,
        config,
        {r: sorted(found) for r, found in sorted(weighed.items()) if found},
    )
    edges_changed = after.edges != stored
    if not edges_changed and state is not None and after.weighed == state.weighed:
        return False  # the same as stored: it answers for these listings too
    gone = [(row[0], row[1]) for row in stored if sources is None or row[0] in sources]
    store.index.write_services(
        repo,
        ServiceWrite(
            None, [], calls if edges_changed else [], before[0], after.text(), [],
            gone if edges_changed else [],
        ),
    )  # fmt: skip
    return edges_changed


def route_symbol(composed: ComposedRoute) -> SymbolRow:
    route = composed.route
    name = f"{route.method} {route.path}"
    return SymbolRow(
        route.id, route.repo, composed.path, name, name, "route", composed.line, composed.line,
        f"{composed.framework} route {name}", "", True, None,
    )  # fmt: skip
