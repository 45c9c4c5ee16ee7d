"""What changed code reaches, walking the graph backwards from it: who calls it (across
repositories), through values and base classes, up to the tests that exercise it — never cut
at a fixed depth. The walk runs over the repositories' edges held in memory (`impact.graph`),
surest paths first."""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from cartograph.impact.graph import LOCAL_BITS, MODULE_VIAS, OPAQUE_CONFIDENCE, ReverseGraph
from cartograph.model import SymbolRow
from cartograph.store.interfaces import Store

BREAK_TYPES = ("CALLS", "REFERENCES", "INHERITS", "IMPORTS", "ROUTES_TO", "HTTP_CALLS")
MAX_REACHED = 200_000  # symbols one walk settles at most (a note says when it stopped)
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
    by_name: bool = False  # the way passes an open end (`ReverseGraph.open_of`)
    by_import: bool = False  # the way passes an import of module-level code

    @property
    def evidence(self) -> str:
        """What the way to the change rests on: "name" (an open end of the graph), "import"
        (module-level code an import runs), or "static" (the graph's edges alone)."""
        return "name" if self.by_name else "import" if self.by_import else "static"


@dataclass(slots=True)
class Walk:
    reached: dict[str, Reached] = field(default_factory=dict)
    stopped: bool = False  # MAX_REACHED was hit
    # the open ends met on the way (why each may call what the walk reached), by reason
    open_ends: Counter[str] = field(default_factory=Counter)


def walk_back(graph: ReverseGraph, changed: Iterable[SymbolRow]) -> Walk:
    """Every symbol from which a path of calls, references or inheritance leads to a changed
    symbol — through a base-class method it overrides, and through the graph's open ends
    (`ReverseGraph.open_of`) — with the confidence of its surest path (the product of its
    steps' weights: an edge's confidence, a reference's halved — `impact.graph`) and that
    path's length; settled surest first. The changed symbols are never reached again. The walk
    runs over the graph's nodes (integers), and reads as ids only what it settles."""
    walk = Walk()
    best: dict[int, float] = {graph.node(symbol.id): 1.0 for symbol in changed}
    seeds = list(best)
    changed_of = {seed: seed for seed in seeds}  # the changed symbol each one reaches
    heap = [(-confidence, 0, seed) for seed, confidence in best.items()]
    heapq.heapify(heap)
    settled: set[int] = set()
    # what reaches the change: node → (depth, confidence, via, toward, changed, crosses,
    # by name, by import), as `Reached` says
    found: dict[int, tuple[int, float, str, int, int, bool, bool, bool]] = {}
    push, pop = heapq.heappush, heapq.heappop
    known = best.get
    opaque: set[int] = set()  # the opaque tests met, counted once among the open ends
    # what was given once needs no second time: a step to the same source from a node
    # settled later is never surer (ReverseGraph's `met`), and each open end counts once
    overridden_met: set[tuple[int, str]] = set()  # (base class, name)
    named_met: set[tuple[int | str, ...]] = set()
    repo_bits = LOCAL_BITS
    while heap:
        negative, depth, node = pop(heap)
        if node in settled:
            continue
        settled.add(node)
        if len(settled) >= MAX_REACHED:
            walk.stopped = True
            break
        here = -negative
        onward = found.get(node)
        repo = node >> repo_bits
        toward = changed_of[node]
        by_name = onward is not None and onward[6]
        by_import = onward is not None and onward[7]
        crossed = onward is not None and onward[5]
        steps = [
            (src, via, weight, by_name)
            for src, via, weight in graph.callers_of(node)
            # an import runs module-level code: every importer reaches what it calls, so it
            # is followed only where the way to the change is sure of each step
            if not (by_name and via in MODULE_VIAS)
        ]
        steps += [
            (src, via, w, by_name) for src, via, w in graph.dispatched_of(node, overridden_met)
        ]
        for src, via, why, weight in graph.open_of(node, named_met):
            walk.open_ends[why] += 1
            steps.append((src, via, weight, True))
        if depth == 0:  # a changed symbol: a test the graph cannot see into may run it
            for test, why in graph.opaque_tests(graph.sid(node)).items():
                src = graph.node(test)
                if src not in opaque:
                    opaque.add(src)
                    walk.open_ends[why] += 1
                steps.append((src, why, OPAQUE_CONFIDENCE, True))
        for src, via, weight, named in steps:
            surer = here * weight
            if surer < WALK_FLOOR:
                continue
            before = known(src, 0.0)
            if surer <= before:
                # an equally sure way replaces the one found only where it is static and that
                # one passes an open end (from which importers are not followed): what the
                # walk reaches does not hang on which of the two it met first
                if surer < before or named or src in settled:
                    continue
                previous = found.get(src)
                if previous is None or not previous[6]:
                    continue
            best[src] = surer
            changed_of[src] = toward
            crosses = crossed or src >> repo_bits != repo
            imports = by_import or via in MODULE_VIAS
            found[src] = (depth + 1, surer, via, node, toward, crosses, named, imports)
            push(heap, (-surer, depth + 1, src))
    ids = {node: graph.sid(node) for node in (*seeds, *found)}  # each read once
    walk.reached = {
        ids[node]: Reached(ids[node], d, c, via, ids[t], ids[ch], x, n, i)
        for node, (d, c, via, t, ch, x, n, i) in found.items()
    }
    return walk


def direct_dependents(store: Store, ids: Iterable[str]) -> dict[str, list]:
    """The edges into each of `ids` that break when it goes: calls, references, subclasses,
    imports. id → [EdgeRow]."""
    found: dict[str, list] = {}
    for row in store.graph.edges_of(ids, "in", BREAK_TYPES):
        if row.other is not None:
            found.setdefault(row.edge.dst, []).append(row)
    return found
