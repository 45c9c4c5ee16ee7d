"""What changed code reaches, walking the graph backwards from it: who calls it (across
repositories), through values and base classes, up to the tests that exercise it — never cut
at a fixed depth, one store read per level."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from cartograph.discover import is_test_path
from cartograph.model import SymbolRow
from cartograph.query.graph import overridden
from cartograph.store.interfaces import Store

# a caller reaches what it calls, references (a callback it passes, a decorator it applies)
# or inherits from
REACH_TYPES = ("CALLS", "REFERENCES", "INHERITS")
BREAK_TYPES = ("CALLS", "REFERENCES", "INHERITS", "IMPORTS")
READ_CHUNK = 1000  # ids per read of a level
MAX_REACHED = 50_000  # symbols one walk visits at most (a note says when it stopped)
DISPATCH_CONFIDENCE = 0.6  # a caller of a base-class method reaching a changed override
REFERENCE_FACTOR = 0.5  # a value referenced (handed on, registered) is not always called
ENCLOSING_KINDS = frozenset({"function", "method"})


@dataclass(slots=True)
class Reached:
    symbol: SymbolRow
    depth: int  # calls between it and the changed code (1: it calls it directly)
    confidence: float  # the product of the edges' confidences along the surest path
    via: str  # how it reaches the next step (the first edge's via)
    toward: str  # the id of the next symbol on the way to the changed code
    changed: str  # the id of the changed symbol it reaches
    crosses: bool  # the way crosses into another repository


@dataclass(slots=True)
class Walk:
    reached: dict[str, Reached] = field(default_factory=dict)
    stopped: bool = False  # MAX_REACHED was hit


def seeds_with_overrides(store: Store, changed: list[SymbolRow]) -> dict[str, tuple[str, float]]:
    """The changed symbols, and the base-class methods they override (a call bound to the
    base method runs the override): id → (changed id, confidence)."""
    seeds: dict[str, tuple[str, float]] = {s.id: (s.id, 1.0) for s in changed}
    parents = store.graph.get_symbols(
        {s.parent for s in changed if s.kind == "method" and s.parent}
    )
    for symbol in changed:
        cls = parents.get(symbol.parent or "")
        if symbol.kind != "method" or cls is None or symbol.name.startswith("__init"):
            continue
        for base_method in overridden(store, cls, symbol.name):
            seeds.setdefault(base_method.id, (symbol.id, DISPATCH_CONFIDENCE))
    return seeds


def walk_back(store: Store, seeds: dict[str, tuple[str, float]]) -> Walk:
    """Every symbol from which a path of calls, references or inheritance leads to a seed,
    with the confidence of its surest path (the product of its edges' confidences, a
    reference counting REFERENCE_FACTOR more: a value handed on may not be called) and that
    path's length. A function defined inside another reaches its encloser too (a test's inner
    callback runs when the test does). Levels are read in batches; a symbol is read again
    when a surer path to it turns up."""
    walk = Walk()
    best = walk.reached
    confidence_of = {seed: confidence for seed, (_changed, confidence) in seeds.items()}
    changed_of = {seed: changed for seed, (changed, _confidence) in seeds.items()}
    depth_of = dict.fromkeys(seeds, 0)
    frontier = list(seeds)
    while frontier and not walk.stopped:
        improved: dict[str, None] = {}
        for start in range(0, len(frontier), READ_CHUNK):
            for row in store.graph.edges_of(
                frontier[start : start + READ_CHUNK], "in", REACH_TYPES
            ):
                caller, edge = row.other, row.edge
                if caller is None or caller.id == edge.dst or caller.id in seeds:
                    continue
                factor = REFERENCE_FACTOR if edge.type == "REFERENCES" else 1.0
                confidence = confidence_of[edge.dst] * (edge.confidence or 1.0) * factor
                if confidence <= confidence_of.get(caller.id, 0.0):
                    continue
                onward = best.get(edge.dst)
                crosses = caller.repo != edge.dst.partition(":")[0] or bool(
                    onward and onward.crosses
                )
                depth = depth_of[edge.dst] + 1
                best[caller.id] = Reached(
                    caller, depth, confidence, edge.via, edge.dst, changed_of[edge.dst], crosses
                )
                confidence_of[caller.id], depth_of[caller.id] = confidence, depth
                changed_of[caller.id] = changed_of[edge.dst]
                improved[caller.id] = None
        for parent in _enclosers(store, [best[i].symbol for i in improved], confidence_of):
            child = best[parent.toward]
            if child.confidence <= confidence_of.get(parent.symbol.id, 0.0):
                continue
            parent.depth, parent.confidence = child.depth, child.confidence
            parent.changed, parent.crosses = child.changed, child.crosses
            best[parent.symbol.id] = parent
            confidence_of[parent.symbol.id], depth_of[parent.symbol.id] = (
                child.confidence,
                child.depth,
            )
            changed_of[parent.symbol.id] = child.changed
            improved[parent.symbol.id] = None
        walk.stopped = len(best) >= MAX_REACHED
        frontier = list(improved)
    return walk


def _enclosers(
    store: Store, symbols: list[SymbolRow], confidence_of: dict[str, float]
) -> list[Reached]:
    """The test code (tests, fixtures, their helpers) that defines the nested functions just
    reached: a test registering a view or a callback runs it through the code it drives. (In
    the code under test, a function defined inside another is not run by defining it: a
    REFERENCES says when it is handed on.) Their depth, confidence and changed symbol are
    filled in by the caller."""
    wanted: dict[str, str] = {}
    for symbol in symbols:
        parent = symbol.parent
        if (
            parent
            and symbol.kind in ENCLOSING_KINDS
            and is_test_path(symbol.path)
            and confidence_of.get(parent, 0.0) < confidence_of[symbol.id]
        ):
            wanted.setdefault(parent, symbol.id)
    if not wanted:
        return []
    return [
        Reached(parent, 0, 0.0, "scope", wanted[parent_id], "", False)
        for parent_id, parent in store.graph.get_symbols(list(wanted)).items()
        if parent.kind in ENCLOSING_KINDS
    ]


def direct_dependents(store: Store, ids: Iterable[str]) -> dict[str, list]:
    """The edges into each of `ids` that break when it goes: calls, references, subclasses,
    imports. id → [EdgeRow]."""
    found: dict[str, list] = {}
    ids = list(ids)
    for start in range(0, len(ids), READ_CHUNK):
        for row in store.graph.edges_of(ids[start : start + READ_CHUNK], "in", BREAK_TYPES):
            if row.other is not None:
                found.setdefault(row.edge.dst, []).append(row)
    return found
