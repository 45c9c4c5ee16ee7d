"""Breadth-first trace and shortest path over `GraphReader.edges_of`, one store read per
level: the portable traversals every backend can answer with (a backend may answer
`shortest_path` natively, as Neo4j does, if it picks the same path)."""

from __future__ import annotations

from cartograph.model import Edge
from cartograph.store.interfaces import EdgeRow, GraphReader, TraceStep


def trace(
    graph: GraphReader, root: str, direction: str, types: list[str], depth: int, fanout: int
) -> list[TraceStep]:
    """The tree of `types` edges below (`out`) or above (`in`) `root`, level by level: at most
    `fanout` children per node (surest first, then by qualname), and a symbol already shown is
    listed again as `repeated` but not expanded twice (cycles and diamonds)."""
    steps: list[TraceStep] = []
    seen = {root}
    frontier = [root]
    for level in range(1, depth + 1):
        if not frontier:
            break
        rows = graph.edges_of(frontier, direction, types)
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
    graph: GraphReader, src: str, dst: str, types: list[str], max_depth: int
) -> list[Edge] | None:
    """A shortest path of `types` edges from src to dst, or None: of all the shortest ones,
    the one whose sequence of symbol ids sorts first (so every store answers the same path)."""
    if src == dst:
        return []
    layers: list[set[str]] = [{src}]
    successors: dict[str, dict[str, Edge]] = {}
    seen = {src}
    for _ in range(max_depth):
        frontier = sorted(layers[-1])
        rows = graph.edges_of(frontier, "out", types)
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
