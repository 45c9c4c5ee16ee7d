"""The callers of every symbol of the repositories a walk reaches, in memory: each repository's
edges read whole (one store query), with the enclosing test functions of nested test code, and
kept per process until a write changes that repository's edges — so a walk over tens of thousands of
symbols costs no store round trip per level, on either store."""

from __future__ import annotations

import hashlib
import logging
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from cartograph.discover import ENCLOSING_KINDS
from cartograph.index.crossrepo import provided_names
from cartograph.model import CALLING_REFERENCE_VIAS
from cartograph.store.interfaces import FileState, Store

log = logging.getLogger("cartograph.impact")
REACH_TYPES = ("CALLS", "REFERENCES", "INHERITS", "ROUTES_TO", "HTTP_CALLS")

Caller = tuple[str, str, float]  # (source id, via, how sure the step is)
REFERENCE_FACTOR = 0.5  # a value referenced (handed on, registered) is not always called
# a wrapper calling the function a decorator was given: walking back through it would make
# every caller of a shared wrapper reach every function it wraps; the calls of a decorated
# function reach it by name anyway ("decorated" edges)
UNWALKED_VIA = "wrapped"


@dataclass(slots=True)
class RepoEdges:
    """One repository's edges, indexed for walking backwards."""

    state: str  # the repository's index state they were read at (`index_state`)
    callers: dict[str, list[Caller]] = field(default_factory=dict)  # by target id
    bases: dict[str, list[str]] = field(default_factory=dict)  # class id → its bases' ids
    test_functions: set[str] = field(default_factory=set)  # functions and methods of test files


_CACHE: dict[tuple[str, str], RepoEdges] = {}
_NONE: list[Caller] = []
_LOCK = threading.Lock()


def index_state(states: Mapping[str, FileState]) -> str:
    """A digest of what a repository's files last wrote: each file's resolution digest, its
    flow rows' digest and whether the flow stage wrote edges from it. Any write that changes an
    edge changes it (so a cached graph is never used after one)."""
    digest = hashlib.blake2b(digest_size=16)
    for path in sorted(states):
        state = states[path]
        digest.update(f"{path}\0{state.resolution}\0{state.flows}\0{state.derived}\n".encode())
    return digest.hexdigest()


def _load(store: Store, repo: str, state: str) -> RepoEdges:
    edges = RepoEdges(state)
    intern = sys.intern
    surest: dict[str, dict[str, tuple[str, float]]] = {}  # dst → src → (via, weight)
    for src, dst, kind, via, confidence in store.graph.edge_list(repo, REACH_TYPES):
        if via == UNWALKED_VIA:
            continue
        src, dst = intern(src), intern(dst)
        # how sure the step is: the edge's confidence, a reference counting half (a value
        # handed on is not always called) unless it is a call by name; one step per pair, the
        # surest
        called = kind != "REFERENCES" or via in CALLING_REFERENCE_VIAS
        weight = (confidence or 1.0) * (1.0 if called else REFERENCE_FACTOR)
        into = surest.setdefault(dst, {})
        if src not in into or into[src][1] < weight:
            into[src] = (intern(via), weight)
        if kind == "INHERITS":
            edges.bases.setdefault(src, []).append(dst)
    edges.callers = {
        dst: [(src, via, weight) for src, (via, weight) in into.items()]
        for dst, into in surest.items()
    }
    tests = [path for path, record in store.graph.files(repo).items() if record.is_test]
    if tests:
        spans = store.graph.symbol_spans(repo, ENCLOSING_KINDS, tests)
        functions = {intern(sid) for found in spans.values() for _start, _end, sid in found}
        edges.test_functions = functions
        for sid in functions:
            # a function of test code defined in another runs when that one does (a view or a
            # callback a test registers): the encloser is one of its callers
            parent = sid.rpartition(".")[0]
            if parent in functions:
                edges.callers.setdefault(sid, []).append((parent, "scope", 1.0))
    return edges


class ReverseGraph:
    """The repositories' edges a walk needs, loaded as it reaches them: a repository, and the
    repositories with edges into it (its consumers)."""

    def __init__(self, store: Store, states: Mapping[str, Mapping[str, FileState]] | None = None):
        self.store = store
        self.states = dict(states or {})  # by repository: its file states, when read already
        self.repos: dict[str, RepoEdges] = {}
        self._consumers_of: dict[str, list[str]] = {}

    def edges(self, repo: str) -> RepoEdges | None:
        if repo not in self.repos:
            states = self.states.get(repo)
            if states is None:
                states = self.states[repo] = self.store.index.file_states(repo)
            if not states:
                return None
            state = index_state(states)
            key = (self.store.url, repo)
            with _LOCK:
                cached = _CACHE.get(key)
            if cached is None or cached.state != state:
                cached = _load(self.store, repo, state)
                with _LOCK:
                    _CACHE[key] = cached
            self.repos[repo] = cached
        return self.repos[repo]

    def callers(self, symbol_id: str) -> list[Caller]:
        """Every edge into the symbol, from its own repository and from those binding into
        it."""
        repo = symbol_id[: symbol_id.index(":")]
        own = self.edges(repo)
        found = own.callers.get(symbol_id, _NONE) if own is not None else _NONE
        consumers = self._consumers(repo)
        if not consumers:
            return found
        found = list(found)
        for consumer in consumers:
            edges = self.edges(consumer)
            if edges is not None:
                found += edges.callers.get(symbol_id, _NONE)
        return found

    def _consumers(self, repo: str) -> list[str]:
        """The other repositories that bind into this one: those whose files' recorded
        dependencies name a package it provides (read once per walk)."""
        if repo not in self._consumers_of:
            found: list[str] = []
            if len(self.store.repos.list_repos()) > 1:
                manifest = self.store.repos.manifests().get(repo)
                names = provided_names(manifest) if manifest is not None else set()
                if names:
                    found = sorted(self.store.index.dependents_across(names, repo))
            self._consumers_of[repo] = found
        return self._consumers_of[repo]

    def ancestors(self, class_id: str) -> list[str]:
        """Every base class above a class, nearest first (its repository's INHERITS)."""
        found: list[str] = []
        frontier = [class_id]
        while frontier:
            following = []
            for cls in frontier:
                edges = self.edges(cls.partition(":")[0])
                for base in edges.bases.get(cls, ()) if edges is not None else ():
                    if base not in found and base != class_id:
                        found.append(base)
                        following.append(base)
            frontier = following
        return found

    def is_test_function(self, symbol_id: str) -> bool:
        edges = self.edges(symbol_id.partition(":")[0])
        return edges is not None and symbol_id in edges.test_functions


def preload(store: Store) -> list[str]:
    """Read into this process's cache the edges of every repository whose edges changed since
    they were read (none the first time: all of them); the repositories read."""
    read = []
    for record in store.repos.list_repos():
        key = (store.url, record.name)
        with _LOCK:
            before = _CACHE.get(key)
        if ReverseGraph(store).edges(record.name) is not None:
            with _LOCK:
                if _CACHE.get(key) is not before:
                    read.append(record.name)
    return read


class GraphPreloader:
    """Keeps the edges an impact walks in this process's cache ahead of the first question: a
    thread reads them at start, and again for a repository after a write changes its edges (it
    looks at the store's generation every `interval` seconds). Without it, the first impact of
    a process, or the first after a push, reads the repository's edges itself (about a second
    on Django)."""

    def __init__(self, store: Callable[[], Store], interval: float = 2.0) -> None:
        self._store = store  # the store of the calling thread (its owner closes it)
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="graph-preloader", daemon=True)
        self.loaded: list[str] = []  # the repositories read, in order (for tests and logs)

    def start(self) -> GraphPreloader:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        seen: int | None = None
        while not self._stop.is_set():
            try:
                store = self._store()
                generation = store.generation()
                if generation != seen:
                    self.loaded += preload(store)
                    seen = generation
            except Exception:  # the store is away or mid-migration: try again later
                log.warning("could not preload the impact graph", exc_info=True)
            self._stop.wait(self.interval)
