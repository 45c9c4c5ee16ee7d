"""What changed code reaches, walking the graph backwards from it: who calls it (across
repositories), through values and base classes, up to the tests that exercise it — never cut
at a fixed depth. The walk runs over the repositories' edges held in memory (`impact.graph`),
surest paths first."""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass, field

from cartograph.impact.graph import ReverseGraph
from cartograph.model import SymbolRow
from cartograph.store.interfaces import Store

BREAK_TYPES = ("CALLS", "REFERENCES", "INHERITS", "IMPORTS", "ROUTES_TO", "HTTP_CALLS")
MAX_REACHED = 200_000  # symbols one walk settles at most (a note says when it stopped)
DISPATCH_CONFIDENCE = 0.6  # a caller of a base-class method reaching a changed override
WALK_FLOOR = 0.05  # a path less sure than this is not followed (nor reported)


@dataclass(slots=True)
class Reached:
    id: str
    depth: int  # calls between it and the changed code along its surest path (1: directly)
    confidence: float  # the product of the edges' confidences along its surest path
    via: str  # how it reaches the next step (the first edge's via)
    toward: str  # the id of the next symbol on the way to the changed code
    changed: str  # the id of the changed symbol it reaches
    crosses: bool  # the way crosses into another repository


@dataclass(slots=True)
class Walk:
    reached: dict[str, Reached] = field(default_factory=dict)
    stopped: bool = False  # MAX_REACHED was hit


def seeds_with_overrides(
    store: Store, graph: ReverseGraph, changed: list[SymbolRow]
) -> dict[str, tuple[str, float]]:
    """The changed symbols, and the base-class methods they override (a call bound to the
    base method runs the override): id → (changed id, confidence)."""
    seeds: dict[str, tuple[str, float]] = {s.id: (s.id, 1.0) for s in changed}
    candidates: dict[str, str] = {}
    for symbol in changed:
        if symbol.kind != "method" or not symbol.parent or symbol.name.startswith("__init"):
            continue
        for base in graph.ancestors(symbol.parent):
            candidates.setdefault(f"{base}.{symbol.name}", symbol.id)
    for base_method in store.graph.get_symbols(candidates).values():
        if base_method.kind == "method":
            seeds.setdefault(base_method.id, (candidates[base_method.id], DISPATCH_CONFIDENCE))
    return seeds


def walk_back(graph: ReverseGraph, seeds: dict[str, tuple[str, float]]) -> Walk:
    """Every symbol from which a path of calls, references or inheritance leads to a seed,
    with the confidence of its surest path (the product of its steps' weights: an edge's
    confidence, a reference's halved — `impact.graph`) and that path's length; settled surest
    first. Seeds are never reached again (best holds their own confidence)."""
    walk = Walk()
    best: dict[str, float] = {seed: confidence for seed, (_c, confidence) in seeds.items()}
    changed_of = {seed: changed for seed, (changed, _confidence) in seeds.items()}
    heap = [(-confidence, 0, seed) for seed, confidence in best.items()]
    heapq.heapify(heap)
    settled: set[str] = set()
    reached = walk.reached
    push, pop = heapq.heappush, heapq.heappop
    known = best.get
    while heap:
        negative, depth, node = pop(heap)
        if node in settled:
            continue
        settled.add(node)
        if len(settled) >= MAX_REACHED:
            walk.stopped = True
            break
        here = -negative
        onward = reached.get(node)
        repo = node[: node.index(":")]
        changed = changed_of[node]
        for src, via, weight in graph.callers(node):
            surer = here * weight
            if surer < WALK_FLOOR or surer <= known(src, 0.0):
                continue
            best[src] = surer
            changed_of[src] = changed
            crosses = not src.startswith(repo + ":") or bool(onward and onward.crosses)
            reached[src] = Reached(src, depth + 1, surer, via, node, changed, crosses)
            push(heap, (-surer, depth + 1, src))
    return walk


def direct_dependents(store: Store, ids: Iterable[str]) -> dict[str, list]:
    """The edges into each of `ids` that break when it goes: calls, references, subclasses,
    imports. id → [EdgeRow]."""
    found: dict[str, list] = {}
    for row in store.graph.edges_of(ids, "in", BREAK_TYPES):
        if row.other is not None:
            found.setdefault(row.edge.dst, []).append(row)
    return found
