"""The evaluator core every language family resolves with.

- `Memo`: one memo for a run, with dependency tracking. Every computation records what it
  consulted (`memo.consulted.add(key)`; today: the names of the modules or files it looked
  up, found or not), and so does everything that uses its cached answer; resolving a file in
  a `recording()` yields that file's dependencies, which an incremental run compares against
  what changed.
- `FileResolution`: what resolving one file yields, whatever its language.
- `EdgeSet`: the edges of one file, one per (type, source, target), with the confidence of
  the rule (`via`) that found the most confident site.
- `render`: a callee as written, for unresolved calls.

The families keep only their rules: `resolve/python.py` and `resolve/ecma.py` (full
resolution), `resolve/generic.py` with a rules module per language (by name).

A dependency is a key the memo stores and replays as it comes, a str today (`Dependency`): a
family consults module names (Python) or file paths (the others), and the index stores them as
they are. Recording finer keys later — the name looked up in a module, `(module, name)`,
failed lookups included — changes only `Dependency`, what the families add to `consulted` and
what the index compares them against.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from cartograph.model import Edge, SymbolRow, Unresolved, symbol_id

# what a resolution records for a package name it looked up outside its repository, found in
# another repository or not (an import of `libpay`, of `@acme/ui`, of `example.com/pay`): the
# repository that starts providing it re-resolves the file
PACKAGE_DEP = "~pkg:"


class ForeignCode(Protocol):
    """The code of the other indexed repositories a resolution may bind into (the providers
    of the packages its repository imports), as foreign paths (`model.foreign_path`).
    Implemented by the index (cartograph.index.crossrepo); None where a run has no other
    repositories."""

    def python_module(self, name: str) -> tuple[str, str, bool] | None:
        """(foreign path, provider repository, is a package) of a Python module by name."""
        ...

    def npm_package(self, name: str) -> tuple[str, dict] | None:
        """(foreign folder, entry fields of its package.json) of an npm package by name."""
        ...

    def go_module(self, import_path: str) -> tuple[str, str] | None:
        """(foreign folder of its go.mod, module path) of the module an import path names, or
        (given a foreign folder) of the module that folder is in."""
        ...

    def jvm_package(self, package: str) -> list[str]:
        """The foreign paths of the source files of a Java/Kotlin package (`com.acme.money`)
        the one other repository declaring it provides."""
        ...

    def files_in(self, directory: str) -> list[str]:
        """The foreign paths of the files directly in a foreign folder."""
        ...

    def has(self, path: str) -> bool: ...

    def declared_packages(self, ecosystem: str) -> list[str]:
        """The packages of an ecosystem the repository's manifests depend on."""
        ...

    def style_providers(self) -> list[str]:
        """The repositories whose stylesheets this one's custom properties may come from: those
        providing a package it depends on."""
        ...

    def style_definitions(self, name: str) -> list[tuple[str, str]]:
        """(foreign path, qualname) of a custom property's definitions in their stylesheets."""
        ...


def module_symbol(repo: str, path: str, lines: int) -> SymbolRow:
    """The module symbol of a file named by its path (every family but Python's): its
    qualname is the path without its extension."""
    qualname = posixpath.splitext(path)[0]
    return SymbolRow(
        id=symbol_id(repo, path, qualname),
        repo=repo,
        path=path,
        name=posixpath.basename(qualname),
        qualname=qualname,
        kind="module",
        start_line=1,
        end_line=max(lines, 1),
        signature="",
        doc="",
        exported=True,
        parent=None,
    )


class Found(NamedTuple):
    """An evaluation's answer: the value (None: not known) and the rule that found it (its
    `via`, what an edge made from it records)."""

    value: Any
    via: str | None


UNKNOWN = Found(None, None)
# cached computations nested before a chain is answered from its far end (Memo._settle);
# 60 was too few for a generated 10,000-module repository's call chains (its cold and warm
# answers differed), 200 holds them, inside index.pipeline.RECURSION_LIMIT Python frames
MAX_EVALUATION_DEPTH = 200
MAX_LINES = 50  # call-site lines kept on one edge

# how sure a rule is of the edge it writes (full resolution: Python, TypeScript/JavaScript)
CONFIDENCE = {
    "scope": 1.0,
    "import": 1.0,
    "self": 1.0,
    "super": 1.0,
    "constructor": 1.0,
    "inheritance": 0.95,
    "annotation": 0.9,
    "return": 0.8,
    "injection": 0.8,
    "export": 1.0,
    "name": 0.5,
    # calls through values (issue 13)
    "decorator": 0.9,
    "decorated": 0.9,  # a call by name of a decorated function, which runs through its wrapper
    "protocol": 0.9,
    "property": 0.9,
    "fixture": 0.8,
    "argument": 0.8,
    "wrapped": 0.8,  # a decorator's wrapper calling the function it was applied to
    "lambda": 0.8,
    "container": 0.7,
    "dispatch": 0.6,
    "getattr": 0.6,  # a method named with the prefix a computed getattr looks up
    "hook": 0.6,  # an implementation of a plugin hook, called through its plugin manager
    "callback": 0.5,  # code outside the repository calling back what it was handed
    "framework": 0.8,  # a framework running what was registered with it (resolve/plugins)
}
# the by-name tier (Go, Java, …): a name found through an import, or only by its name
NAME_CONFIDENCE = {"import": 0.9, "name": 0.5}
DEFAULT_CONFIDENCE = 0.5

Dependency = str  # a module name or a file path (see the module docstring)
EMPTY: frozenset = frozenset()


class _TooDeep(Exception):
    """Raised where a chain of computations grows too deep, caught by the outermost one."""

    def __init__(self, key: tuple, compute: Callable[[], object], on_cycle: object) -> None:
        self.key, self.compute, self.on_cycle = key, compute, on_cycle


class OverBudget(Exception):
    """A question needed more computations than the budget it was asked under
    (`Memo.budget`): its answer is unknown."""


# the work one question may cost, in computations a memo runs (cache hits are free): a
# reference resolved (REFERENCE_BUDGET), and every reference of a file together
# (FILE_BUDGET); past them a reference is left unresolved, never a hang. What real
# repositories cost is measured by benchmark/large_repos.py (its report gives the costliest
# reference and file of each)
REFERENCE_BUDGET = 200_000
FILE_BUDGET = 2_000_000
UNLIMITED = 1 << 62


class Recording:
    """The dependencies of what ran inside `Memo.recording()` (set when it ends)."""

    __slots__ = ("deps",)

    def __init__(self) -> None:
        self.deps: set[Dependency] = set()


class Memo:
    """One run's cache of computations, each with the dependencies it consulted.

    `cached(key, compute, on_cycle)` computes once per run. A computation that runs into
    itself (`a = b; b = a`, two modules star-importing each other) gets `on_cycle` at the
    point of recursion; every computation in that cycle is then left out of the cache, so what
    a question answers never depends on which question was asked first. A chain deeper than
    MAX_EVALUATION_DEPTH (classes, each the base of the next) is answered from its far end:
    the outermost computation steps back, asks the deepest question first, caches it, and
    tries again — the same answer as a shallow start would give (`_settle`).
    """

    __slots__ = (
        "_active",
        "_frames",
        "_left",
        "_memo",
        "_stack",
        "_tainted",
        "_used",
        "computations",
        "consulted",
        "file_budget",
        "reference_budget",
    )

    def __init__(self) -> None:
        # one frame per computation in progress: the keys it consulted itself, and the
        # dependency sets of the cached computations it used (unioned when it completes)
        self._frames: list[tuple[set[Dependency], list[frozenset]]] = []
        self._memo: dict[tuple, tuple[object, frozenset]] = {}
        self._active: set[tuple] = set()
        self._stack: list[tuple] = []
        self._tainted: set[tuple] = set()
        # the keys the computation in progress consulted: add a key to it when looking
        # something up (a set, so recording one costs no call); never keep a reference to it
        self.consulted: set[Dependency] = set()
        self._used: list[frozenset] = []
        self._push()
        self._left = UNLIMITED  # computations the budgets in force still allow
        self.computations = 0  # run so far (what a budget counts)
        self.reference_budget = REFERENCE_BUDGET
        self.file_budget = FILE_BUDGET

    # ------------------------------------------------------------ dependencies
    def _push(self) -> tuple[set[Dependency], list[frozenset]]:
        frame: tuple[set[Dependency], list[frozenset]] = (set(), [])
        self._frames.append(frame)
        self.consulted, self._used = frame
        return frame

    def _pop(self) -> frozenset:
        deps = _union(self._frames.pop())
        self.consulted, self._used = self._frames[-1]
        return deps

    @contextmanager
    def recording(self) -> Iterator[Recording]:
        """Everything consulted inside the block, through cached computations too."""
        recorded = Recording()
        self._push()
        try:
            yield recorded
        finally:
            recorded.deps = set(self._pop())

    # ------------------------------------------------------------ budgets
    @contextmanager
    def budget(self, computations: int) -> Iterator[None]:
        """Computations run inside the block count against `computations`, and against every
        budget the block is nested in; the first one past the smallest raises OverBudget
        (nothing of the question in progress is cached). Cache hits cost nothing, so a
        question answered from a warm memo can fit a budget it would exceed cold."""
        outer = self._left
        self._left = start = min(outer, computations)
        try:
            yield
        finally:
            self._left = outer - (start - self._left)

    # ------------------------------------------------------------ computations
    def cached(self, key: tuple, compute: Callable[[], object], on_cycle: object = UNKNOWN):
        """`compute()` once per run (see the class docstring for cycles and deep chains)."""
        hit = self._memo.get(key)
        if hit is not None:
            if hit[1]:
                self._used.append(hit[1])
            return hit[0]
        stack = self._stack
        if key in self._active:
            self._tainted.update(stack[stack.index(key) :])
            return on_cycle
        if len(stack) >= MAX_EVALUATION_DEPTH:
            raise _TooDeep(key, compute, on_cycle)
        outermost = not stack
        while True:
            try:
                return self._compute(key, compute)
            except _TooDeep as deep:
                if not outermost:
                    raise
                self._settle(deep)

    def cut(self) -> None:
        """A chain was cut short by a limit of the caller's (not a cycle): the computations in
        progress answer from a partial view, so none of them is cached."""
        self._tainted.update(self._stack)

    def _settle(self, deep: _TooDeep) -> None:
        """Answer a too-deep question (and any deeper one it runs into) from the top. One
        that is part of a cycle cannot be cached (its answer depends on where the cycle was
        entered), so the chain cannot be shortened: RecursionError (the caller's reference
        stays unresolved). A warm memo may hold the chain's upper part and answer it: the one
        case where an answer depends on what was asked before, which is why the limit is
        far above what real code chains (MAX_EVALUATION_DEPTH)."""
        pending = [deep]
        while pending:
            current = pending[-1]
            try:
                self._compute(current.key, current.compute)
            except _TooDeep as deeper:
                pending.append(deeper)
                continue
            pending.pop()
            if current.key not in self._memo:  # part of a cycle: nothing to build on
                raise RecursionError(f"resolution chain too deep at {current.key!r}")

    def _compute(self, key: tuple, compute: Callable[[], object]) -> object:
        self.computations += 1
        self._left -= 1
        if self._left < 0:
            raise OverBudget(key)
        stack = self._stack
        self._active.add(key)
        stack.append(key)
        self._push()
        try:
            result = compute()
        except OverBudget:
            self._tainted.discard(key)  # abandoned: no cycle of it is in progress any more
            raise
        finally:
            deps = self._pop()
            stack.pop()
            self._active.discard(key)
        if key in self._tainted:
            self._tainted.discard(key)
        else:
            self._memo[key] = (result, deps)
        if deps:
            self._used.append(deps)
        return result


def _union(frame: tuple[set[Dependency], list[frozenset]]) -> frozenset:
    own, used = frame
    if not used:
        return frozenset(own) if own else EMPTY
    distinct = {id(d): d for d in used}.values()
    if not own and len(distinct) == 1:
        return next(iter(distinct))
    return frozenset(own).union(*distinct)


@dataclass(slots=True)
class FileResolution:
    """Everything the resolver writes for one file."""

    path: str
    module: str
    symbols: list[SymbolRow]
    edges: list[Edge]
    unresolved: list[Unresolved]
    deps: set[str]
    imports: list[tuple[str, str, list[str]]] = field(default_factory=list)  # (kind, target, names)
    # what this file tells about values flowing between functions, for the flow stage
    # (`cartograph.index.flows`): rows as documented there; [] for the by-name tier
    flows: list[list] = field(default_factory=list)
    # its HTTP routes, routers, mounts and requests (`cartograph.resolve.http`), for the
    # services stage (`cartograph.index.services`)
    http: list[list] = field(default_factory=list)
    # the references left unresolved because resolving them went past a budget (OverBudget)
    over_budget: int = 0


class EdgeSet:
    """The edges of one file: one per (type, source, target), counting its sites, with their
    lines and the via and confidence of the most confident one. An INHERITS edge keeps the
    base's `order` among the class's declared bases.

    `confidence` maps a via to how sure its rule is; `sorted_lines` keeps every line, sorted
    (the by-name tier), instead of the first MAX_LINES in the order the sites were met."""

    __slots__ = ("_confidence", "_edges", "_sorted_lines")

    def __init__(self, confidence: dict[str, float] = CONFIDENCE, sorted_lines: bool = False):
        self._edges: dict[tuple[str, str, str], Edge] = {}
        self._confidence = confidence
        self._sorted_lines = sorted_lines

    def add(
        self,
        etype: str,
        src: str,
        dst: str,
        line: int,
        via: str | None,
        confidence: float | None = None,
        order: int = 0,
    ) -> None:
        via = via or "scope"
        if confidence is None:
            confidence = self._confidence.get(via, DEFAULT_CONFIDENCE)
        key = (etype, src, dst)
        edge = self._edges.get(key)
        if edge is None:
            self._edges[key] = Edge(etype, src, dst, [line], 1, via, confidence, order)
            return
        edge.count += 1
        if self._sorted_lines:
            if line not in edge.lines:
                edge.lines.append(line)
                edge.lines.sort()
        elif line not in edge.lines and len(edge.lines) < MAX_LINES:
            edge.lines.append(line)
        if confidence > edge.confidence:
            edge.via, edge.confidence = via, confidence

    def edges(self) -> list[Edge]:
        return list(self._edges.values())


def render(expr: list | None) -> str:
    """A callee as written, minus arguments (for unresolved calls): the expression encodings
    of Python and of TypeScript/JavaScript (`this`, `super`, `new`, `?` for text kept as is)."""
    if expr is None:
        return "?"
    kind = expr[0]
    if kind in ("n", "?"):
        return expr[1]
    if kind in ("this", "super"):
        return kind
    if kind == "new":
        return f"new {render(expr[1])}"
    if kind == "a":
        return f"{render(expr[1])}.{expr[2]}"
    if kind == "c":
        return f"{render(expr[1])}(…)"
    if kind == "i":
        return f"{render(expr[1])}[…]"
    if kind == "g":
        return render(expr[1])
    return "?"
