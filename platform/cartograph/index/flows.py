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
  method or class), "d" the same given to a decorator (`@wraps_it def f`: the wrapper it
  returns calls `f` back), "e" an element of a display passed (`apply_all([f, g])`), "l" a
  function a passed lambda's body calls, "i" an instance of the class `value` (`serve(
  Handler())`).
- ["pass", function, parameter, callee, callee_parameter]: `function` passes its parameter on
  (`inner(callback)`), through any number of hops.
- In "arg" and "pass" rows, a function may be a dispatch key, `class->name`: a method called
  on an instance of `class` whose exact class is not known (`self.add_url_rule(rule, f)` in a
  base class). What reaches its parameter reaches the same parameter of the method `name` as
  `class` finds it and of every override of `name` below `class` (an override may call what
  the base method does not: Flask's `App.add_url_rule` stores the view `Scaffold.route`
  hands to the abstract `Scaffold.add_url_rule`).
- ["call", function, parameter, source, line, mode]: `source` (the function or a closure in
  it) calls `parameter`'s value (mode "v": `callback()`) or an element of it ("e": `for f in
  fns: f()`, `table[k]()`) at `line`, or its method `m` (mode ".m": `handler.handle()`).
- ["self", source, class, name, line]: `self.name()` / `cls.name()` in a method of `class`;
  ["self-use", source, class, name, line]: `self.name` handed on as a value there
  (`add_url_rule(view_func=self.send_static_file)`, a method only a subclass defines).
- ["getattr", source, class, prefix, line]: `getattr(obj, "prefix" + rest)(...)` on an instance
  or class of `class`.
- ["class", class, [indexed bases], [names of the methods it defines]].
- ["functions", module, [names]]: the module's public functions with an "_" in their name (what
  a plugin manager may call by name).
- ["hook", source, name, line]: `config.hook.name(...)` (pluggy): every implementation of
  `name`.

Edges (their vias are `model.DERIVED_VIAS`, which a file's own resolution never writes):
what reaches a parameter and is called there — a value passed, an element of a display passed
and called through iteration or a subscript, a function a passed lambda calls, the method an
instance passed runs (`handler.handle()`; `__call__` when it is called) — is CALLS via
"argument" (a class: the class and its `__init__`), or via "wrapped" when a decorator was given
it (a wrapper calling the function it wraps; impact never walks back through one: the calls of
a decorated function bind to it by name too, "decorated"); an override of `name` in a subclass of
`class` is CALLS via "dispatch" (REFERENCES for a value handed on); a method of `class`, its
bases or its subclasses whose name starts with a computed getattr's prefix is CALLS via
"getattr"; a module function or a method
named like a plugin hook called through a plugin manager (`config.hook.pytest_x(...)`) is
CALLS via "hook". One edge per (source, target);
a pair the file's own
resolution already writes is left to it (and the derived edge written again if that goes).

Rewriting a file keeps its derived edges. The stage runs when a file's flow rows changed (or
a file with rows was deleted), on a first index, and after a run that stopped before it (the
FLOWS_PENDING mark): it reads every file's rows (one query), recomputes every derived edge and
writes only the files whose derived edges changed. A run that changed no rows only sets right,
in the files it rewrote, which derived pairs their own edges now share (`refresh_overlaps`).
"""

from __future__ import annotations

import hashlib
import marshal
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator

from cartograph.model import DerivedWrite, Edge, split_symbol_id
from cartograph.resolve.core import CONFIDENCE, MAX_LINES
from cartograph.store.interfaces import Store

FLOWS_PENDING = "//flows"  # in the repository's pending marks: the stage must run
MAX_VALUES = 1024  # values one parameter may hold; beyond, the parameter is left out
FORWARD_PASSES = 4  # passes over the rows that follow forwards hop by hop (then: all at once)
Key = tuple[str, str, str]


def identity(row: list) -> tuple:
    """A row without its line: what a line-only edit leaves unchanged."""
    tag = row[0]
    if tag == "call":
        return ("call", row[1], row[2], row[3], row[5])
    if tag in ("self", "self-use", "getattr"):
        return (tag, row[1], row[2], row[3])
    if tag == "hook":
        return ("hook", row[1], row[2])
    return tuple(_frozen(item) for item in row)


def _frozen(item: object) -> object:
    return tuple(item) if isinstance(item, list) else item


def shape_digest(rows: list[list]) -> str:
    """The digest a file's flow rows are compared by: their identities, lines left out (a
    line-only change moves the file's derived edges' lines, nothing else)."""
    if not rows:
        return ""
    shape = sorted({identity(row) for row in rows})
    return hashlib.blake2b(repr(shape).encode(), digest_size=12).hexdigest()


def site_lines(rows: Iterable[list]) -> dict[tuple, list[int]]:
    """The lines of each call site (call, self and getattr rows), by identity."""
    lines: dict[tuple, set[int]] = defaultdict(set)
    for row in rows:
        if row[0] in ("call", "self", "self-use", "getattr"):
            lines[identity(row)].add(row[4])
        elif row[0] == "hook":
            lines[identity(row)].add(row[3])
    return {site: sorted(found) for site, found in lines.items()}


class _Flows:
    """What the joins need of every file's rows, read in passes over them (`rows()` gives
    them again each time) so that only what can make an edge is held: the values passed and
    the classes first; then the forwards out of the parameters values reach, pass after pass
    until no new parameter is reached; the call sites are streamed last (`derive`)."""

    def __init__(self, rows: Callable[[], Iterable[list]]) -> None:
        self.values: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
        self.forwards: dict[tuple[str, str], set[tuple[str, str]]] = {}
        self.bases: dict[str, list[str]] = {}
        self.methods: dict[str, frozenset[str]] = {}
        self.functions: dict[str, list[str]] = defaultdict(list)  # name → module functions
        for row in rows():
            tag = row[0]
            if tag == "arg":
                self.values[(row[1], row[2])].add((row[3], row[4]))
            elif tag == "class":
                self.bases[row[1]] = row[2]
                self.methods[row[1]] = frozenset(row[3])
            elif tag == "functions":
                module = row[1]
                for name in row[2]:
                    self.functions[name].append(f"{module}.{name}")
        self._children = self.subclasses()
        self._below: dict[str, set[str]] = {}
        seen = set(self.values)
        frontier = set(self.values)
        for _pass in range(FORWARD_PASSES):
            if not frontier:
                return
            reached = set()
            for row in rows():
                if row[0] == "pass" and (row[1], row[2]) in frontier:
                    target = (row[3], row[4])
                    self.forwards.setdefault((row[1], row[2]), set()).add(target)
                    if target not in seen:
                        reached.add(target)
            for key in frontier:
                for target in self.dispatched(key):
                    self.forwards.setdefault(key, set()).add(target)
                    if target not in seen:
                        reached.add(target)
            seen |= reached
            frontier = reached
        if frontier:  # a longer chain: every forward, in one more pass
            for row in rows():
                if row[0] == "pass":
                    self.forwards.setdefault((row[1], row[2]), set()).add((row[3], row[4]))
            keys = set(self.forwards) | {t for ts in self.forwards.values() for t in ts}
            for key in keys | set(self.values):
                for target in self.dispatched(key):
                    self.forwards.setdefault(key, set()).add(target)

    def dispatched(self, key: tuple[str, str]) -> list[tuple[str, str]]:
        """Where a value passed to a dispatch key's parameter (`class->name`, a method called
        on an instance of `class` or of a subclass) goes: the same parameter of the method
        `name` as `class` finds it (its own, or the nearest indexed base's) and of every
        override of `name` below `class`. Nothing for any other key."""
        function, parameter = key
        cls, arrow, name = function.partition("->")
        if not arrow:
            return []
        owners = []
        definer = self.definer(cls, name)
        if definer is not None:
            owners.append(definer)
        below = self._below.get(cls)
        if below is None:
            below = self._below[cls] = _descendants(cls, self._children)
        owners.extend(sub for sub in below if name in self.methods.get(sub, ()))
        return [(f"{owner}.{name}", parameter) for owner in owners]

    def definer(self, cls: str, name: str) -> str | None:
        """The class whose method `name` an instance of `cls` runs: `cls` or the first
        indexed base (breadth first) that defines it."""
        seen: set[str] = set()
        queue = deque([cls])
        while queue:
            current = queue.popleft()
            if current in seen:
                continue
            seen.add(current)
            if name in self.methods.get(current, ()):
                return current
            queue.extend(self.bases.get(current, ()))
        return None

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
        definer = self.definer(cls, "__init__")
        return definer + ".__init__" if definer is not None else None

    def ancestors(self, cls: str) -> set[str]:
        """Every indexed class above `cls`."""
        found: set[str] = set()
        queue = deque(self.bases.get(cls, ()))
        while queue:
            base = queue.popleft()
            if base in found or base == cls:
                continue
            found.add(base)
            queue.extend(self.bases.get(base, ()))
        return found

    def subclasses(self) -> dict[str, list[str]]:
        children: dict[str, list[str]] = defaultdict(list)
        for cls, bases in self.bases.items():
            for base in bases:
                children[base].append(cls)
        return children


def _descendants(cls: str, children: dict[str, list[str]]) -> set[str]:
    """Every indexed class below `cls`."""
    below: set[str] = set()
    queue = deque(children.get(cls, ()))
    while queue:
        sub = queue.popleft()
        if sub in below or sub == cls:
            continue
        below.add(sub)
        queue.extend(children.get(sub, ()))
    return below


def derive(rows: Callable[[], Iterable[list]]) -> dict[Key, tuple[str, set[tuple]]]:
    """Every derived edge the rows imply (`rows()`: every file's rows, read once per pass):
    (type, source, target) -> (via, the call sites that make it). `edges_of` turns them into
    edges with the sites' lines."""
    flows = _Flows(rows)
    flows.propagate()
    derived: dict[Key, tuple[str, set[tuple]]] = {}

    def add(src: str, dst: str, site: tuple, via: str, kind: str = "CALLS") -> None:
        key = (kind, src, dst)
        known = derived.get(key)
        if known is None:
            derived[key] = (via, {site})
            return
        known[1].add(site)
        if CONFIDENCE[via] > CONFIDENCE[known[0]]:
            derived[key] = (via, known[1])

    children = flows.subclasses()
    definers: dict[str, list[str]] = defaultdict(list)  # method name -> classes defining it
    for cls, names in flows.methods.items():
        for name in names:
            definers[name].append(cls)
    descendants: dict[str, set[str]] = {}
    for row in rows():
        if row[0] == "call":
            site = identity(row)
            _, owner, parameter, src, mode = site
            values = flows.values.get((owner, parameter))
            if not values or len(values) > MAX_VALUES:
                continue
            if mode[0] == "." or mode == "v":  # a method of an instance (or class) passed
                name = mode[1:] if mode[0] == "." else "__call__"
                for value, kind in values:
                    if kind == "i" or (kind == "v" and mode[0] == "." and value in flows.bases):
                        definer = flows.definer(value, name)
                        if definer is not None:
                            add(src, f"{definer}.{name}", site, "argument")
                if mode[0] == ".":
                    continue
            for value, kind in values:
                if (mode == "v" and kind in ("v", "l", "d")) or (mode == "e" and kind == "e"):
                    via = "wrapped" if kind == "d" else "argument"
                    add(src, value, site, via)
                    if kind != "l" and value in flows.bases:  # a class: constructed
                        init = flows.init_of(value)
                        if init is not None:
                            add(src, init, site, via)
            continue
        if row[0] == "hook":
            site = identity(row)
            _, src, name = site
            for function in flows.functions.get(name, ()):
                add(src, function, site, "hook")
            for owner in definers.get(name, ()):
                add(src, f"{owner}.{name}", site, "hook")
            continue
        if row[0] == "getattr":
            site = identity(row)
            _, src, cls, prefix = site
            family = {cls, *flows.ancestors(cls)}
            if cls in children:
                below = descendants.get(cls)
                if below is None:
                    below = descendants[cls] = _descendants(cls, children)
                family |= below
            for owner in family:
                for name in flows.methods.get(owner, ()):
                    if name.startswith(prefix):
                        add(src, f"{owner}.{name}", site, "getattr")
            continue
        if row[0] not in ("self", "self-use"):
            continue
        site = identity(row)
        _, src, cls, name = site
        candidates = definers.get(name, ())
        if not candidates or cls not in children:
            continue
        below = descendants.get(cls)
        if below is None:
            below = descendants[cls] = _descendants(cls, children)
        # the subclasses that define the method, from the smaller side: a name every class
        # defines (`__init__`, `run`) has thousands of definers, a class a few subclasses
        if len(below) < len(candidates):
            overriding = [sub for sub in below if name in flows.methods.get(sub, ())]
        else:
            overriding = [sub for sub in candidates if sub in below]
        kind = "CALLS" if row[0] == "self" else "REFERENCES"
        for sub in overriding:
            add(src, f"{sub}.{name}", site, "dispatch", kind)
    return derived


def edges_of(
    derived: dict[Key, tuple[str, set[tuple]]], lines: dict[tuple, list[int]]
) -> dict[Key, Edge]:
    """Derived edges with the lines of their call sites (`lines`: by site identity)."""
    edges = {}
    for key, (via, sites) in derived.items():
        found = sorted({line for site in sites for line in lines.get(site, ())})
        if not found:
            continue
        edges[key] = Edge(
            key[0], key[1], key[2], found[:MAX_LINES], len(found), via, CONFIDENCE[via]
        )
    return edges


Entry = tuple[Key, str, list[tuple]]  # a derived edge: its key, via and call sites


def encode_derived(entries: list[Entry], written: list[Key]) -> bytes:
    """What a file stores of its derived edges: each with its via and call sites, and the
    keys actually written (a pair its own resolution writes too is left to it)."""
    return marshal.dumps((sorted(entries), sorted(written)))


def decode_derived(derived: bytes | None) -> tuple[list[Entry], list[Key]]:
    if not derived:
        return [], []
    entries, written = marshal.loads(derived)
    return (
        [(tuple(key), via, [tuple(site) for site in sites]) for key, via, sites in entries],
        [tuple(key) for key in written],
    )


FLOWS_WRITE_CHUNK = 500  # files whose derived edges are written in one store call


def run_flows(store: Store, repo: str, touched: Iterable[str] = ()) -> int:
    """Recompute the repository's derived edges from every file's flow rows and write the
    files whose derived edges changed, and the `touched` ones (rewritten by this run: their
    sites' lines may have moved, their own edges may now share a pair with a derived one);
    returns how many derived edges the repository has. The rows stay encoded, decoded file
    by file on each of the join's passes over them (`derive`) and again for the files
    written, FLOWS_WRITE_CHUNK at a time."""
    states = store.index.flow_states(repo)

    def rows() -> Iterator[list]:
        for flows, _derived in states.values():
            if flows:
                yield from marshal.loads(flows)

    derived = derive(rows)
    by_path: dict[str, list[Entry]] = defaultdict(list)
    for key, (via, sites) in derived.items():
        by_path[split_symbol_id(key[1])[1]].append((key, via, sorted(sites)))
    del derived
    touched = set(touched)
    stored_paths = {path for path, (_flows, stored) in states.items() if stored}
    changed = sorted(
        path
        for path in set(by_path) | stored_paths
        if path in touched or sorted(by_path.get(path, [])) != _stored_entries(states, path)
    )
    for start in range(0, len(changed), FLOWS_WRITE_CHUNK):
        chunk = changed[start : start + FLOWS_WRITE_CHUNK]
        stored = {p: decode_derived(states[p][1]) for p in chunk if p in states and states[p][1]}
        files = {}
        for path in chunk:
            flows = states[path][0] if path in states else None
            files[path] = (by_path.get(path, []), marshal.loads(flows) if flows else [])
        _write(store, repo, files, stored)
    return sum(len(entries) for entries in by_path.values())


def _stored_entries(states: dict[str, tuple[bytes | None, bytes | None]], path: str) -> list[Entry]:
    return decode_derived(states[path][1] if path in states else None)[0]


def refresh_files(store: Store, repo: str, paths: Iterable[str]) -> None:
    """Files rewritten by a run that changed no file's flow shape keep their derived edges;
    only their lines (a line-only edit moves call sites) and the pairs their own resolution
    now writes too, or no longer writes, are set right."""
    states = store.index.flow_states(repo, list(paths))
    stored = {path: decode_derived(d) for path, (_f, d) in states.items() if d}
    files = {}
    for path, (entries, _written) in stored.items():
        flows = states[path][0]
        files[path] = (entries, marshal.loads(flows) if flows else [])
    _write(store, repo, files, stored)


def _write(
    store: Store,
    repo: str,
    files: dict[str, tuple[list[Entry], list[list]]],
    stored: dict[str, tuple[list[Entry], list[Key]]],
) -> None:
    """Write the derived edges of these files (entries, and the file's own rows for the
    lines of its sites), leaving out the pairs the file's own resolution writes."""
    if not files:
        return
    own = store.index.edge_keys(repo, list(files))
    writes = []
    for path in sorted(files):
        entries, rows = files[path]
        edges = edges_of({key: (via, set(sites)) for key, via, sites in entries}, site_lines(rows))
        previous = stored.get(path, ([], []))[1]
        direct = own.get(path, set()) - set(previous)
        written = [edge for key, edge in sorted(edges.items()) if key not in direct]
        keys = [(e.type, e.src, e.dst) for e in written]
        blob = encode_derived(entries, keys) if entries else b""
        if previous or written or entries or path in stored:
            writes.append(DerivedWrite(path, sorted(previous), written, blob))
    store.index.write_derived(repo, writes)
