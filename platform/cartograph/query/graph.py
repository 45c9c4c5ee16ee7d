"""Questions about the call graph: context, callers, callees, trace, path."""

from __future__ import annotations

from dataclasses import dataclass, field

from cartograph import languages
from cartograph.agents.lessons import lesson_keys
from cartograph.model import CALLING_REFERENCE_VIAS, Edge, Lesson, SymbolRow, Unresolved
from cartograph.query.answers import cacheable
from cartograph.query.common import Envelope, Freshness, QueryError, clamp, find_symbol
from cartograph.resolve.mro import c3, depth_first, linearize
from cartograph.store.interfaces import EdgeRow, Store, TraceStep

# calls, and the HTTP hops between services: a request to a route, a route to its handler
CALL_TYPES = ["CALLS", "HTTP_CALLS", "ROUTES_TO"]
USE_TYPES = [*CALL_TYPES, "REFERENCES"]
MAX_DEPTH = 10
MAX_FANOUT = 50
CONTEXT_EDGES = 15
MAX_LISTED = 200  # members, subclasses and unresolved calls shown in one answer
MAX_LESSONS = 10
MEMBER_HOLDERS = frozenset({"module", "class", "interface", "enum", "variable"})  # have members


@dataclass(slots=True)
class Neighbor:
    symbol: SymbolRow
    type: str
    via: str
    confidence: float
    lines: list[int]  # call sites, in the caller's file
    count: int
    crosses: bool = False  # the edge is between two repositories
    # reached over HTTP through this route (`GET /users/{id}`): a request's function among a
    # handler's callers, or a handler among a request's callees
    through: str = ""

    @classmethod
    def of(cls, row: EdgeRow, other: SymbolRow) -> Neighbor:
        edge = row.edge
        crosses = edge.src.partition(":")[0] != edge.dst.partition(":")[0]
        return cls(other, edge.type, edge.via, edge.confidence, edge.lines, edge.count, crosses)


@dataclass(slots=True)
class NeighborPage:
    symbol: SymbolRow
    direction: str  # "callers" or "callees"
    items: list[Neighbor]
    total: int
    offset: int
    next_offset: int | None
    unresolved: list[Unresolved] = field(default_factory=list)  # callees only
    envelope: Envelope = field(default_factory=Envelope)


@dataclass(slots=True)
class Context:
    symbol: SymbolRow
    parent: SymbolRow | None
    members: list[SymbolRow]
    bases: list[SymbolRow]
    subclasses: list[SymbolRow]
    overrides: list[SymbolRow]  # the base-class methods this method overrides
    overridden_by: list[SymbolRow]
    callers: NeighborPage
    callees: NeighborPage
    referenced_by: list[Neighbor]
    envelope: Envelope = field(default_factory=Envelope)
    lessons: list[Lesson] = field(default_factory=list)  # agents' lessons about it or its file


@dataclass(slots=True)
class Trace:
    root: SymbolRow
    direction: str
    depth: int
    steps: list[TraceStep]
    truncated: bool  # some node had more children than the fan-out limit
    envelope: Envelope = field(default_factory=Envelope)


@dataclass(slots=True)
class PathStep:
    edge: Edge
    source: SymbolRow
    target: SymbolRow


@dataclass(slots=True)
class CallPath:
    source: SymbolRow
    target: SymbolRow
    steps: list[PathStep] | None  # None: no path within max_depth
    max_depth: int
    envelope: Envelope = field(default_factory=Envelope)


def _neighbors(
    store: Store,
    symbol: SymbolRow,
    direction: str,
    types: list[str],
    limit: int,
    offset: int,
) -> tuple[list[Neighbor], int]:
    ids = [symbol.id]
    edge_direction = "in" if direction == "callers" else "out"
    rows = store.graph.edges_of(ids, edge_direction, types, limit, offset)
    if len(rows) < limit and (rows or offset == 0):
        total = offset + len(rows)  # a short page is the last one: no count needed
    else:
        total = store.graph.edge_counts(ids, edge_direction, types)[symbol.id]
    items = [Neighbor.of(r, r.other) for r in rows if r.other is not None]
    if "HTTP_CALLS" in types:
        items += _through_routes(store, items, edge_direction, limit)
    if direction == "callers" and "REFERENCES" not in types:
        items += _calls_by_name(store, symbol, limit)
    return items, total


def _calls_by_name(store: Store, symbol: SymbolRow, limit: int) -> list[Neighbor]:
    """The callers of a function that call it through something else (a decorated function
    called by its name runs its decorator's wrapper: `model.CALLING_REFERENCE_VIAS`), each
    marked with what the call goes through, beyond the page's count."""
    named = [
        row
        for row in store.graph.edges_of([symbol.id], "in", ["REFERENCES"], limit, 0)
        if row.edge.via in CALLING_REFERENCE_VIAS and row.other is not None
    ]
    if not named:
        return []
    wrappers = [
        row.other.qualname
        for row in store.graph.edges_of([symbol.id], "in", ["CALLS"], MAX_LISTED, 0)
        if row.edge.via == "wrapped" and row.other is not None
    ]
    found = []
    for row in named:
        assert row.other is not None
        neighbor = Neighbor.of(row, row.other)
        neighbor.type = "CALLS"
        neighbor.through = wrappers[0] if wrappers else ""
        found.append(neighbor)
    return found


def _through_routes(
    store: Store, items: list[Neighbor], direction: str, limit: int
) -> list[Neighbor]:
    """The far side of the routes among a symbol's neighbours: a handler's callers include
    the functions whose requests reach its route, a request's callees the route's handler
    (each marked with the route it goes through, beyond the page's count)."""
    routes = {n.symbol.id: n.symbol for n in items if n.symbol.kind == "route"}
    if not routes:
        return []
    hop = "HTTP_CALLS" if direction == "in" else "ROUTES_TO"
    found: list[Neighbor] = []
    for row in store.graph.edges_of(list(routes), direction, [hop], limit, 0):
        if row.other is None:
            continue
        route = routes[row.edge.dst if direction == "in" else row.edge.src]
        neighbor = Neighbor.of(row, row.other)
        neighbor.through = route.name
        found.append(neighbor)
    return found


def neighbors(
    store: Store,
    name: str,
    direction: str,
    repo: str | None = None,
    limit: int | None = 20,
    offset: int = 0,
    include_references: bool = False,
) -> NeighborPage:
    """Who calls `name` ("callers") or what it calls ("callees"), one page at a time."""
    if direction not in ("callers", "callees"):
        raise QueryError("direction is 'callers' or 'callees'")
    symbol = find_symbol(store, name, repo)
    limit = clamp(limit)
    offset = max(0, int(offset))
    types = USE_TYPES if include_references else CALL_TYPES
    items, total = _neighbors(store, symbol, direction, types, limit, offset)
    unresolved = (
        store.graph.unresolved_of([symbol.id])[:MAX_LISTED] if direction == "callees" else []
    )
    next_offset = offset + limit if total > offset + limit else None
    envelope = Freshness(store).envelope(
        [symbol, *(n.symbol for n in items)],
        users_of=[symbol.repo] if direction == "callers" else None,
    )
    return NeighborPage(symbol, direction, items, total, offset, next_offset, unresolved, envelope)


@cacheable
def callers(store: Store, name: str, **options) -> NeighborPage:
    return neighbors(store, name, "callers", **options)


@cacheable
def callees(store: Store, name: str, **options) -> NeighborPage:
    return neighbors(store, name, "callees", **options)


@cacheable
def context(store: Store, name: str, repo: str | None = None) -> Context:
    """One symbol in full: where, signature, doc, class and members, bases and overrides,
    the first callers and callees, and its unresolved calls."""
    symbol = find_symbol(store, name, repo)
    parent = store.graph.get_symbols([symbol.parent]).get(symbol.parent) if symbol.parent else None
    members = store.graph.members([symbol.id])[:MAX_LISTED] if symbol.kind in MEMBER_HOLDERS else []
    if symbol.kind == "module":
        members = [m for m in members if m.kind != "variable" or m.exported]
    bases = [r.other for r in store.graph.edges_of([symbol.id], "out", ["INHERITS"]) if r.other]
    subclasses = [
        r.other
        for r in store.graph.edges_of([symbol.id], "in", ["INHERITS"], MAX_LISTED)
        if r.other
    ]
    overrides: list[SymbolRow] = []
    overridden_by: list[SymbolRow] = []
    if symbol.kind == "method" and parent is not None:
        overrides = overridden(store, parent, symbol.name)
        overridden_by = _overriders(store, parent.id, symbol.name)

    caller_items, caller_total = _neighbors(store, symbol, "callers", CALL_TYPES, CONTEXT_EDGES, 0)
    callee_items, callee_total = _neighbors(store, symbol, "callees", CALL_TYPES, CONTEXT_EDGES, 0)
    unresolved = store.graph.unresolved_of([symbol.id])[:MAX_LISTED]
    referenced = [
        Neighbor.of(r, r.other)
        for r in store.graph.edges_of([symbol.id], "in", ["REFERENCES"], CONTEXT_EDGES, 0)
        if r.other is not None
    ]
    envelope = Freshness(store).envelope(
        [symbol, *(n.symbol for n in caller_items), *(n.symbol for n in callee_items)],
        users_of=[symbol.repo],
    )
    return Context(
        symbol=symbol,
        parent=parent,
        members=members,
        bases=bases,
        subclasses=subclasses,
        overrides=overrides,
        overridden_by=overridden_by,
        callers=NeighborPage(
            symbol,
            "callers",
            caller_items,
            caller_total,
            0,
            CONTEXT_EDGES if caller_total > CONTEXT_EDGES else None,
        ),
        callees=NeighborPage(
            symbol,
            "callees",
            callee_items,
            callee_total,
            0,
            CONTEXT_EDGES if callee_total > CONTEXT_EDGES else None,
            unresolved,
        ),
        referenced_by=referenced,
        envelope=envelope,
        lessons=store.team.find_lessons(
            lesson_keys([symbol.id, symbol.path, f"{symbol.repo}:{symbol.path}"]), [], MAX_LESSONS
        ),
    )


def overridden(store: Store, cls: SymbolRow, name: str) -> list[SymbolRow]:
    """The methods called `name` that a method of `cls` overrides, in the order its language
    looks members up (Python's C3, TypeScript's depth first): the first is the one
    `super().name()` reaches. The hierarchy is read one level per read (each class's bases in
    their declared order, stored on the INHERITS edges), then every ancestor's members in one
    read."""
    bases_of: dict[str, list[str]] = {}
    seen = {cls.id}
    frontier = [cls.id]
    for _ in range(MAX_DEPTH):
        declared: dict[str, list[tuple[int, str]]] = {}
        for row in store.graph.edges_of(frontier, "out", ["INHERITS"]):
            declared.setdefault(row.edge.src, []).append((row.edge.order, row.edge.dst))
        frontier = []
        for child, bases in declared.items():
            bases_of[child] = [dst for _order, dst in sorted(bases)]
            for base in bases_of[child]:
                if base not in seen:
                    seen.add(base)
                    frontier.append(base)
        if not frontier:
            break
    family = languages.family_of(cls.path)
    order = depth_first if family is not None and family.lookup_order == "depth_first" else c3
    ancestors = linearize(cls.id, lambda c: bases_of.get(c, ()), order)[1:]
    methods = (
        [m for m in store.graph.members(ancestors, name) if m.kind == "method"] if ancestors else []
    )
    if not methods:
        return []
    return methods[:1] + [m for m in methods[1:] if m.parent != methods[0].parent][:4]


def _overriders(store: Store, class_id: str, name: str) -> list[SymbolRow]:
    """Methods called `name` in the subclasses of a class, nearest level first: the hierarchy
    one read per level, then their members in one read."""
    classes: list[str] = []
    seen = {class_id}
    frontier = [class_id]
    for _ in range(MAX_DEPTH):
        rows = store.graph.edges_of(frontier, "in", ["INHERITS"])
        frontier = []
        for row in rows:
            other = row.other
            if other is None or other.id in seen:
                continue
            seen.add(other.id)
            frontier.append(other.id)
        if not frontier:
            break
        classes.extend(frontier)
    return [m for m in store.graph.members(classes, name) if m.kind == "method"] if classes else []


@cacheable
def trace(
    store: Store,
    name: str,
    direction: str = "out",
    depth: int = 3,
    repo: str | None = None,
    fanout: int = 20,
    include_references: bool = False,
) -> Trace:
    """The call tree below (`out`: what it reaches) or above (`in`: what reaches it) a symbol.

    Breadth-first, cycle-safe: a symbol already shown is listed again as `repeated` and not
    expanded twice. `fanout` bounds the children shown per node.
    """
    if direction not in ("in", "out"):
        raise QueryError("direction is 'in' (callers) or 'out' (callees)")
    symbol = find_symbol(store, name, repo)
    depth = max(1, min(int(depth), MAX_DEPTH))
    fanout = max(1, min(int(fanout), MAX_FANOUT))
    types = USE_TYPES if include_references else CALL_TYPES
    steps = store.graph.trace(symbol.id, direction, types, depth, fanout + 1)
    # one extra child was fetched per parent to tell whether the fan-out limit cut anything
    shown: list[TraceStep] = []
    per_parent: dict[tuple[int, str], int] = {}
    truncated = False
    kept_ids = {symbol.id}
    for step in steps:
        if step.parent not in kept_ids:
            continue
        key = (step.depth, step.parent)
        per_parent[key] = per_parent.get(key, 0) + 1
        if per_parent[key] > fanout:
            truncated = True
            continue
        shown.append(step)
        if not step.repeated:
            kept_ids.add(step.symbol.id)
    envelope = Freshness(store).envelope(
        [symbol, *(s.symbol for s in shown)], users_of=[symbol.repo] if direction == "in" else None
    )
    return Trace(symbol, direction, depth, shown, truncated, envelope)


@cacheable
def path(
    store: Store,
    source: str,
    target: str,
    repo: str | None = None,
    max_depth: int = 8,
    include_references: bool = False,
) -> CallPath:
    """The shortest chain of calls from `source` to `target`."""
    start = find_symbol(store, source, repo)
    end = find_symbol(store, target, repo)
    max_depth = max(1, min(int(max_depth), 20))
    types = USE_TYPES if include_references else CALL_TYPES
    edges = store.graph.shortest_path(start.id, end.id, types, max_depth)
    steps: list[PathStep] | None = None
    if edges is not None:
        symbols = store.graph.get_symbols({e.src for e in edges} | {e.dst for e in edges})
        steps = [PathStep(e, symbols[e.src], symbols[e.dst]) for e in edges]
    shown = [start, end, *(s.target for s in steps or [])]
    return CallPath(start, end, steps, max_depth, Freshness(store).envelope(shown))
