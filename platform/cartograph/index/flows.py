"""Stage 6, flows: the calls through values that no single file can decide.

A function passed as an argument is called by the function that receives it, in another file
(`run(handler)` in app.py; `callback()` in runner.py): the edge `run -> handler` starts in
runner.py, but what makes it is in app.py. The same holds for a decorator's wrapper calling
the function it wraps, and for `self.step()` in a base class reaching the overrides in the
subclasses (`dispatch`). Resolving a file records what it knows as *flow rows*
(`FileResolution.flows`, stored with the file); this stage reads every file's rows, joins them
and writes the edges they imply as the *derived* edges of the file each edge starts in.

Rows (all ids are symbol ids):

- ["arg", function, parameter, value, kind]: a call (or a decorator application, or a default
  value) passes `value` to `function`'s `parameter`; kind "v" the value itself (a function,
  method or class), "e" an element of a display passed (`apply_all([f, g])`), "l" a function a
  passed lambda's body calls.
- ["pass", function, parameter, callee, callee_parameter]: `function` passes its parameter on
  (`inner(callback)`), through any number of hops.
- ["call", function, parameter, source, line, mode]: `source` (the function or a closure in
  it) calls `parameter`'s value (mode "v": `callback()`) or an element of it ("e": `for f in
  fns: f()`, `table[k]()`) at `line`.
- ["self", source, class, name, line]: `self.name()` / `cls.name()` in a method of `class`.
- ["class", class, [indexed bases], [names of the methods it defines]].

Edges (their vias are `model.DERIVED_VIAS`, which a file's own resolution never writes):
what reaches a parameter and is called there — a value passed, an element of a display passed
and called through iteration or a subscript, a function a passed lambda calls — is CALLS via
"argument" (a class: the class and its `__init__`); an override of `name` in a subclass of
`class` is CALLS via "dispatch". One edge per (source, target); a pair the file's own
resolution already writes is left to it (and the derived edge written again if that goes).

Rewriting a file keeps its derived edges. The stage runs when a file's flow rows changed (or
a file with rows was deleted), on a first index, and after a run that stopped before it (the
FLOWS_PENDING mark): it reads every file's rows (one query), recomputes every derived edge and
writes only the files whose derived edges changed. A run that changed no rows only sets right,
in the files it rewrote, which derived pairs their own edges now share (`refresh_overlaps`).
"""

from __future__ import annotations

import marshal
from collections import defaultdict, deque
from collections.abc import Iterable

from cartograph.model import DerivedWrite, Edge, split_symbol_id
from cartograph.resolve.core import CONFIDENCE, MAX_LINES
from cartograph.store.interfaces import Store

FLOWS_PENDING = "//flows"  # in the repository's pending marks: the stage must run
MAX_VALUES = 64  # values one parameter may hold; beyond, the parameter is left out
Key = tuple[str, str, str]


class _Flows:
    """Every file's rows, indexed for the joins."""

    def __init__(self, rows: Iterable[list]) -> None:
        self.values: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
        self.forwards: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
        self.calls: list[tuple[str, str, str, int, str]] = []
        self.selfs: list[tuple[str, str, str, int]] = []
        self.bases: dict[str, list[str]] = {}
        self.methods: dict[str, frozenset[str]] = {}
        for row in rows:
            tag = row[0]
            if tag == "arg":
                self.values[(row[1], row[2])].add((row[3], row[4]))
            elif tag == "pass":
                self.forwards[(row[1], row[2])].add((row[3], row[4]))
            elif tag == "call":
                self.calls.append((row[1], row[2], row[3], row[4], row[5]))
            elif tag == "self":
                self.selfs.append((row[1], row[2], row[3], row[4]))
            elif tag == "class":
                self.bases[row[1]] = row[2]
                self.methods[row[1]] = frozenset(row[3])

    def propagate(self) -> None:
        """Values passed on (`inner(callback)`) reach the parameters they are passed to."""
        pending = deque(key for key in self.values if key in self.forwards)
        while pending:
            key = pending.popleft()
            values = self.values[key]
            for target in self.forwards.get(key, ()):
                held = self.values[target]
                before = len(held)
                if before >= MAX_VALUES:
                    continue
                held |= values
                if len(held) != before and target in self.forwards:
                    pending.append(target)

    def init_of(self, cls: str) -> str | None:
        """The `__init__` a class runs: its own or the first indexed base's that has one."""
        seen: set[str] = set()
        queue = deque([cls])
        while queue:
            current = queue.popleft()
            if current in seen:
                continue
            seen.add(current)
            if "__init__" in self.methods.get(current, ()):
                return current + ".__init__"
            queue.extend(self.bases.get(current, ()))
        return None

    def subclasses(self) -> dict[str, list[str]]:
        children: dict[str, list[str]] = defaultdict(list)
        for cls, bases in self.bases.items():
            for base in bases:
                children[base].append(cls)
        return children


def derive(rows: Iterable[list]) -> dict[Key, Edge]:
    """Every derived edge the rows imply, by (type, source, target)."""
    flows = _Flows(rows)
    flows.propagate()
    edges: dict[Key, Edge] = {}

    def add(src: str, dst: str, line: int, via: str) -> None:
        key = ("CALLS", src, dst)
        edge = edges.get(key)
        if edge is None:
            edges[key] = Edge("CALLS", src, dst, [line], 1, via, CONFIDENCE[via])
            return
        edge.count += 1
        if line not in edge.lines and len(edge.lines) < MAX_LINES:
            edge.lines.append(line)
        if CONFIDENCE[via] > edge.confidence:
            edge.via, edge.confidence = via, CONFIDENCE[via]

    for owner, parameter, src, line, mode in flows.calls:
        values = flows.values.get((owner, parameter))
        if not values or len(values) > MAX_VALUES:
            continue
        for value, kind in values:
            if (mode == "v" and kind in ("v", "l")) or (mode == "e" and kind == "e"):
                add(src, value, line, "argument")
                if kind != "l" and value in flows.bases:  # a class: constructed
                    init = flows.init_of(value)
                    if init is not None:
                        add(src, init, line, "argument")
    children = flows.subclasses()
    for src, cls, name, line in flows.selfs:
        seen = {cls}
        queue = deque(children.get(cls, ()))
        while queue:
            sub = queue.popleft()
            if sub in seen:
                continue
            seen.add(sub)
            if name in flows.methods.get(sub, ()):
                add(src, f"{sub}.{name}", line, "dispatch")
            queue.extend(children.get(sub, ()))
    for edge in edges.values():
        edge.lines.sort()
    return edges


def encode_derived(edges: list[Edge], written: list[Key]) -> bytes:
    """What a file stores of its derived edges: all of them, and the keys actually written
    (an edge its own resolution already writes, the same pair, is left to it)."""
    rows = sorted(
        (e.type, e.src, e.dst, tuple(e.lines), e.count, e.via, e.confidence) for e in edges
    )
    return marshal.dumps((rows, sorted(written)))


def decode_derived(derived: bytes | None) -> tuple[list[Edge], list[Key]]:
    if not derived:
        return [], []
    rows, written = marshal.loads(derived)
    edges = [
        Edge(t, src, dst, list(lines), count, via, conf)
        for t, src, dst, lines, count, via, conf in rows
    ]
    return edges, [tuple(k) for k in written]


def run_flows(store: Store, repo: str, touched: Iterable[str] = ()) -> int:
    """Recompute the repository's derived edges from every file's flow rows and write the
    files whose derived edges changed (and the `touched` ones: files rewritten by this run,
    whose own edges may now share a pair with a derived one); returns how many there are."""
    states = store.index.flow_states(repo)
    rows: list[list] = []
    for flows, _derived in states.values():
        if flows:
            rows.extend(marshal.loads(flows))
    derived = derive(rows)
    by_path: dict[str, list[Edge]] = defaultdict(list)
    for edge in derived.values():
        by_path[split_symbol_id(edge.src)[1]].append(edge)
    stored = {path: decode_derived(d) for path, (_f, d) in states.items() if d}
    changed = {
        path
        for path in set(by_path) | set(stored)
        if _rows(by_path.get(path, [])) != _rows(stored.get(path, ([], []))[0])
    }
    changed |= {path for path in touched if path in stored or path in by_path}
    _write(store, repo, {p: by_path.get(p, []) for p in changed}, stored)
    return len(derived)


def refresh_overlaps(store: Store, repo: str, paths: Iterable[str]) -> None:
    """Files rewritten by a run that changed no flow rows keep their derived edges; only the
    pairs their own resolution now writes too (or no longer writes) are set right."""
    states = store.index.flow_states(repo, list(paths))
    stored = {path: decode_derived(d) for path, (_f, d) in states.items() if d}
    _write(store, repo, {path: edges for path, (edges, _w) in stored.items()}, stored)


def _rows(edges: list[Edge]) -> list[tuple]:
    return sorted(
        (e.type, e.src, e.dst, tuple(e.lines), e.count, e.via, e.confidence) for e in edges
    )


def _write(
    store: Store,
    repo: str,
    edges_by_path: dict[str, list[Edge]],
    stored: dict[str, tuple[list[Edge], list[Key]]],
) -> None:
    if not edges_by_path:
        return
    own = store.index.edge_keys(repo, list(edges_by_path))
    writes = []
    for path in sorted(edges_by_path):
        edges = edges_by_path[path]
        previous = stored.get(path, ([], []))[1]
        direct = own.get(path, set()) - set(previous)
        written = [e for e in edges if (e.type, e.src, e.dst) not in direct]
        keys = [(e.type, e.src, e.dst) for e in written]
        if sorted(keys) == sorted(previous) and _rows(edges) == _rows(
            stored.get(path, ([], []))[0]
        ):
            continue
        blob = encode_derived(edges, keys) if edges else b""
        writes.append(DerivedWrite(path, sorted(previous), written, blob))
    store.index.write_derived(repo, writes)
