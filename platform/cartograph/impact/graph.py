"""The callers of every symbol of the repositories a walk reaches: each repository's edges read
whole (one store query), with the enclosing test functions of nested test code, derived once
per index state into a file every process maps (`impact.walkfile`; or its bytes held per
process) — so a walk over tens of thousands of symbols costs no store round trip per level, on
either store. A walk reads it by integer node (`ReverseGraph.node`)."""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import re
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from cartograph import languages
from cartograph.impact import walkfile
from cartograph.impact.walkfile import WalkFile, WalkGraph
from cartograph.index.crossrepo import provided_names
from cartograph.model import (
    CALLING_REFERENCE_VIAS,
    ENTRY_POINT_LOADERS,
    FileRecord,
    computed_lookup,
)
from cartograph.resolve.standard import standard_class_members
from cartograph.resolve.values import PROTOCOL_METHOD_NAMES
from cartograph.store.interfaces import FileState, Store
from cartograph.sync import default_data_dir
from cartograph.testlayout import ENCLOSING_KINDS, TEST_NAME_PREFIXES, TestLayout

log = logging.getLogger("cartograph.impact")
T = TypeVar("T")
REACH_TYPES = ("CALLS", "REFERENCES", "INHERITS", "ROUTES_TO", "HTTP_CALLS")

Caller = tuple[str, str, float]  # (source id, via, how sure the step is)
REFERENCE_FACTOR = 0.5  # a value referenced (handed on, registered) is not always called
# the open ends of the graph, walked as steps less sure than an edge: a call the resolver left
# unresolved that names the symbol (its receiver's value, a parameter, a plugin hook, a
# getattr with a literal prefix), and a dunder method, which syntax runs on its class's
# instances (`a == b`, `with x`, `len(x)`): reached where the class is
NAME_CONFIDENCE = 0.3
# a name the builtin types' methods have too (`.update`, `.write`, `.get`): an unresolved
# call of it is most likely theirs, so the step is walked as barely possible
BUILTIN_NAME_CONFIDENCE = 0.05
PROTOCOL_CONFIDENCE = 0.5
DISPATCH_CONFIDENCE = 0.6  # a caller of a base-class method reaching an override
NOT_DISPATCHED = frozenset({"__init__", "__new__", "__init_subclass__"})  # run on their class
NAME_VIA = "name"
IMPORT_VIA = "importer"  # an importer of a module whose module-level code the walk reached
MODULE_VIA = "module"  # a test of a file (or below a conftest.py) whose module code it reached
MODULE_VIAS = frozenset({IMPORT_VIA, MODULE_VIA})
SUBPROCESS_VIA = "subprocess"  # a test that starts a process, which may run the changed code
GENERATED_VIA = "generated"  # a test class whose tests are made at run time
OPAQUE_CONFIDENCE = 0.3  # how sure a step to such a test is
PROTOCOL_VIA = "protocol"
INHERITED_VIA = "inherited"  # a test a test class inherits runs the base class's method
IMPORTED_VIA = "imported"  # a test class imported into another test module runs there too
DEFINITION_VIA = "definition"  # a class body's calls run where the class is defined
ENTRY_POINT_VIA = "entry-point"  # loading entry points runs what the repository names
ENTRY_POINT_CONFIDENCE = 0.5
SUBCLASS_VIA = "subclass"  # defining a subclass runs its bases' __init_subclass__
SUBCLASS_HOOKS = frozenset({"__init_subclass__"})
SETUP_VIA = "setup"  # a test runs its class's and module's set-up and tear-down
CLASS_SETUPS = (  # unittest's and pytest's xunit-style set-up and tear-down of a test class
    "setUp", "tearDown", "asyncSetUp", "asyncTearDown", "setUpClass", "tearDownClass",
    "setup_method", "teardown_method", "setup_class", "teardown_class", "setup", "teardown",
)  # fmt: skip
MODULE_SETUPS = (  # and of a test module
    "setUpModule", "tearDownModule", "setup_module", "teardown_module",
    "setup_function", "teardown_function",
)  # fmt: skip
_LAST_NAME = re.compile(r"([A-Za-z_]\w*)\s*$")
# a wrapper calling the function a decorator was given: walking back through it would make
# every caller of a shared wrapper reach every function it wraps; the calls of a decorated
# function reach it by name anyway ("decorated" edges)
UNWALKED_VIA = "wrapped"


@dataclass(slots=True)
class RepoEdges:
    """One repository's edges, indexed for walking backwards."""

    repo: str
    state: str  # the repository's index state they were read at (`index_state`)
    callers: dict[str, list[Caller]] = field(default_factory=dict)  # by target id
    bases: dict[str, list[str]] = field(default_factory=dict)  # class id → its bases' ids
    test_functions: set[str] = field(default_factory=set)  # functions and methods of test files
    test_paths: set[str] = field(default_factory=set)  # the test files
    # unresolved calls that may reach an indexed symbol: by the name called, (source, why)
    open_calls: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # getattr calls whose name starts with a literal: (the literal, source)
    computed_calls: list[tuple[str, str]] = field(default_factory=list)
    # classes with a base from outside: id → those bases, (as written, the module they come from)
    external_based: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    modules: set[str] = field(default_factory=set)  # the module symbols of its files
    # tests the graph cannot see into, which any change may reach, by id → why: "subprocess"
    # (a function of test code that starts a process), "generated" (a test class whose tests
    # are made at run time: by its base or metaclass, from data files)
    opaque_tests: dict[str, str] = field(default_factory=dict)


_CACHE: dict[tuple[str, str], WalkFile] = {}
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


def walk_folder(store: Store) -> Path | None:
    """Where a store's walk-graph files go (`impact.walkfile`): beside an SQLite store's file,
    else under the data folder, by the store's address; None when they are not to be used
    (CARTOGRAPH_WALK_GRAPHS=memory: each process reads the edges into dictionaries)."""
    if os.environ.get("CARTOGRAPH_WALK_GRAPHS", "files") == "memory":
        return None
    if store.url.startswith("sqlite:///"):
        database = Path(store.url[len("sqlite:///") :])
        return database.with_name(f"{database.name}.walks")
    digest = hashlib.blake2b(store.url.encode(), digest_size=8).hexdigest()
    return default_data_dir() / "walks" / digest


def _mapped(store: Store, repo: str, state: str) -> WalkFile:
    """The repository's walk graph at this index state: its file mapped (written first when
    no process of this host has written it yet); its bytes held in memory when no file is to
    be used or can be written."""
    folder = walk_folder(store)
    if folder is None:
        return WalkFile(walkfile.encode(_load(store, repo, state)))
    path = folder / walkfile.file_name(repo, state)
    if not path.exists():
        try:
            _write_once(store, repo, state, path)
        except OSError:
            log.warning("could not write the walk graph %s", path, exc_info=True)
            return WalkFile(walkfile.encode(_load(store, repo, state)))
    try:
        return WalkFile(path)
    except (OSError, ValueError):  # damaged on disk: gone, and the edges read again
        log.warning("could not map the walk graph %s", path, exc_info=True)
        path.unlink(missing_ok=True)
        return WalkFile(walkfile.encode(_load(store, repo, state)))


def _write_once(store: Store, repo: str, state: str, path: Path) -> None:
    """Write the file under the folder's lock, so one process of the host builds it while the
    others wait for it, and sweep the folder: the repository's files of other states, files
    of repositories the store no longer holds, and what a writer killed mid-write left (no
    other writer runs while the lock is held)."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if path.exists():  # another process wrote it while this one waited
                return
            walkfile.write(_load(store, repo, state), path)
            own = walkfile.file_prefix(repo)
            known = tuple(walkfile.file_prefix(other.name) for other in store.repos.list_repos())
            for found in folder.iterdir():
                older = found.name.startswith(own) or not found.name.startswith(known)
                if found.name.endswith(".tmp") or (
                    found.suffix == ".walk" and found != path and older
                ):
                    found.unlink(missing_ok=True)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _load(store: Store, repo: str, state: str) -> RepoEdges:
    edges = RepoEdges(repo, state)
    intern = sys.intern
    records = store.graph.files(repo)
    module_of = {
        path: intern(f"{repo}:{path}#{record.module}")
        for path, record in records.items()
        if record.module
    }
    modules = edges.modules = set(module_of.values())
    surest: dict[str, dict[str, tuple[str, float]]] = {}  # dst → src → (via, weight)
    calling: set[str] = set()  # the sources of calls
    for src, dst, kind, via, confidence in store.graph.edge_list(repo, REACH_TYPES):
        if via == UNWALKED_VIA:
            continue
        src, dst = intern(src), intern(dst)
        if kind == "CALLS":
            calling.add(src)
        # how sure the step is: the edge's confidence, a reference counting half (a value
        # handed on is not always called) unless it is a call by name; one step per pair, the
        # surest
        called = kind != "REFERENCES" or via in CALLING_REFERENCE_VIAS
        if not called and src in modules:
            # a module holding a value does not run it when imported (what calls it through
            # the value is a call of its own, or an open end): no step to the module, whose
            # importers run only the module-level code it calls
            continue
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
    _class_definitions(store, repo, calling, edges)
    tests = [path for path, record in records.items() if record.is_test]
    edges.test_paths = set(tests)
    imports = store.graph.import_links(repo)
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
        layout = store.test_layouts().of(repo)
        _inherited_tests(layout, edges)
        _imported_test_classes(layout, edges, imports, module_of)
        _setup_callers(store, layout, edges)
    _module_reach(imports, records, module_of, edges)
    loaders: list[str] = []
    for end in store.graph.open_ends(repo):
        src, text, reason = end.src, end.name, end.reason
        if end.kind == "base":
            edges.external_based.setdefault(intern(src), []).append((text, end.external))
            continue
        if reason == "external":  # model.opens_the_repository
            if called_name(text) in ENTRY_POINT_LOADERS:
                loaders.append(intern(src))
            elif src in edges.test_functions:  # a test starting a process
                edges.opaque_tests[intern(src)] = SUBPROCESS_VIA
            continue
        lookup = computed_lookup(text) if reason == "computed-name" else None
        if lookup is not None and lookup[1]:
            edges.computed_calls.append((lookup[1], intern(src)))
            continue
        name = called_name(text)
        if name:
            edges.open_calls.setdefault(name, []).append((intern(src), reason))
    if loaders:
        _entry_point_reach(store, repo, module_of, edges, loaders)
    _subclass_hooks(store, repo, edges)
    if tests:
        _generated_test_classes(store, repo, tests, edges)
    return edges


def _class_definitions(store: Store, repo: str, calling: set[str], edges: RepoEdges) -> None:
    """A class whose body calls code (`indexing = c.Choice(...)`: MkDocs' config schemas,
    flask's config attributes) runs it where the class is defined: the module defining it
    (when imported) or the function defining it (a test's own `Schema` class) is its caller,
    via DEFINITION_VIA."""
    for found in store.graph.symbol_spans(repo, ("class",)).values():
        for _start, _end, cls in found:
            definer = cls.rpartition(".")[0]
            if cls in calling and "#" in definer:
                edges.callers.setdefault(cls, []).append((sys.intern(definer), DEFINITION_VIA, 1.0))


def _entry_point_reach(
    store: Store, repo: str, module_of: Mapping[str, str], edges: RepoEdges, loaders: list[str]
) -> None:
    """The code that loads entry points (`importlib.metadata.entry_points(group=…)`) imports
    the modules the repository's own plugin entry points name and runs what they name, a class
    constructed (MkDocs' built-in search plugin, Python-Markdown's extensions by their names
    `extensions=["toc"]`): callers of each, via
    ENTRY_POINT_VIA, as sure as ENTRY_POINT_CONFIDENCE (a loader reads one group)."""
    manifest = store.repos.manifests().get(repo)
    if manifest is None:
        return
    module_ids = {sid.partition("#")[2]: sid for sid in module_of.values()}
    for module, attribute in manifest.entry_point_targets(scripts=False):
        module_id = module_ids.get(module)
        if module_id is None:
            continue
        named = f"{module_id}.{attribute}"
        # the module (imported), what it names, and that class's __init__ (constructed)
        for target in (module_id, named, f"{named}.__init__") if attribute else (module_id,):
            into = edges.callers.setdefault(target, [])
            into += [(loader, ENTRY_POINT_VIA, ENTRY_POINT_CONFIDENCE) for loader in loaders]


def _subclass_hooks(store: Store, repo: str, edges: RepoEdges) -> None:
    """A class's `__init_subclass__` runs where each subclass is defined (the function, class
    body or module defining it): those are its callers (via SUBCLASS_VIA). flask's MethodView
    reads a view's methods so; a test defining a view runs it."""
    hooks = {
        row.id.rpartition(".")[0]
        for hook in SUBCLASS_HOOKS
        for row in store.graph.symbols_by("name", hook, repo, 10_000)
        if row.kind == "method"
    }
    if not hooks:
        return
    for cls in list(edges.bases):
        definer = cls.rpartition(".")[0]
        if "#" not in definer:
            continue
        for base in _bases_of(edges, cls):
            if base in hooks:
                for hook in SUBCLASS_HOOKS:
                    edges.callers.setdefault(f"{base}.{hook}", []).append(
                        (sys.intern(definer), SUBCLASS_VIA, 1.0)
                    )


def _inherited_tests(layout: TestLayout, edges: RepoEdges) -> None:
    """A test method a test class inherits without overriding it is collected again on that
    class (`tests/b.py::TestB::test_x` for `TestB(TestA)`: markdown runs its HTML block tests
    again with an extension on): each is a test of its own (in `test_functions`) that runs the
    inherited method (a caller of it, via INHERITED_VIA)."""
    methods = _test_methods(layout, edges)
    inherited: list[tuple[str, str]] = []
    for cls in edges.bases:
        if _path_of(cls) not in edges.test_paths:
            continue
        provided = set(methods.get(cls, ()))
        for base in _bases_of(edges, cls):  # nearest first: a nearer override hides a farther
            for name in methods.get(base, ()):
                if name not in provided:
                    provided.add(name)
                    inherited.append((sys.intern(f"{cls}.{name}"), f"{base}.{name}"))
    for test, runs in inherited:
        edges.test_functions.add(test)
        edges.callers.setdefault(runs, []).append((test, INHERITED_VIA, 1.0))


def _test_methods(layout: TestLayout, edges: RepoEdges) -> dict[str, list[str]]:
    """The names of the test methods of each class of test code, by the class's id."""
    methods: dict[str, list[str]] = {}
    for sid in edges.test_functions:
        owner, _, name = sid.rpartition(".")
        if owner not in edges.modules and "#" in owner and layout.is_test_name("python", name):
            methods.setdefault(owner, []).append(name)
    return methods


def _imported_test_classes(
    layout: TestLayout,
    edges: RepoEdges,
    imports: list[tuple[str, str, str, list[str]]],
    module_of: Mapping[str, str],
) -> None:
    """A test class imported into another test module is collected there again (pytest and
    unittest collect the test classes a module's namespace holds: markdown imports its HTML
    block tests into its md_in_html tests): each of its tests there is a test of its own that
    runs the class's (via IMPORTED_VIA)."""
    methods = _test_methods(layout, edges)
    for path, kind, target, names in imports:
        if kind != "file" or path == target or not {path, target} <= edges.test_paths:
            continue
        importer, source = module_of.get(path), module_of.get(target)
        if importer is None or source is None:
            continue
        for name in names:
            cls = f"{source}.{name}"
            if f"{importer}.{name}" in edges.bases or any(
                f"{importer}.{name}.{test}" in edges.test_functions for test in methods.get(cls, ())
            ):
                continue  # the module defines a class of that name itself
            for test in methods.get(cls, ()):
                again = sys.intern(f"{importer}.{name}.{test}")
                edges.test_functions.add(again)
                edges.callers.setdefault(f"{cls}.{test}", []).append((again, IMPORTED_VIA, 1.0))


def _setup_callers(store: Store, layout: TestLayout, edges: RepoEdges) -> None:
    """The set-up and tear-down the runners call around a test are the test's calls: its
    class's and its bases' `setUp`, `setUpClass`, `setup_method`, … (a base in library code
    too: a project's own TestCase), and its module's `setUpModule`, `setup_function`, …
    (callers via SETUP_VIA)."""
    tests_of: dict[str, list[str]] = {}  # the owner (class or module) → its tests
    for sid in edges.test_functions:
        owner, _, name = sid.rpartition(".")
        if owner not in edges.test_functions and layout.is_test_name("python", name):
            tests_of.setdefault(owner, []).append(sid)
    wanted: dict[str, list[str]] = {}  # a set-up's id → the owners whose tests it runs for
    for owner in tests_of:
        if owner in edges.modules:
            for name in MODULE_SETUPS:
                wanted.setdefault(f"{owner}.{name}", []).append(owner)
            continue
        for cls in (owner, *_bases_of(edges, owner)):
            for name in CLASS_SETUPS:
                wanted.setdefault(f"{cls}.{name}", []).append(owner)
    known = {sid for sid in wanted if sid in edges.test_functions}
    elsewhere = [  # a base outside test code (a project's own TestCase): read from the store
        sid for sid in wanted if sid not in known and _path_of(sid) not in edges.test_paths
    ]
    known |= set(store.graph.get_symbols(elsewhere))
    for setup in known:
        for owner in wanted[setup]:
            for test in tests_of[owner]:
                edges.callers.setdefault(setup, []).append((test, SETUP_VIA, 1.0))


def _path_of(symbol_id: str) -> str:
    return symbol_id[symbol_id.index(":") + 1 : symbol_id.index("#")]


def _bases_of(edges: RepoEdges, cls: str) -> list[str]:
    """A class's bases in its repository, transitively, nearest first."""
    return ancestors_of(cls, lambda each: edges.bases.get(each, ()))


def ancestors_of(cls: T, bases_of: Callable[[T], Iterable[T]]) -> list[T]:
    """Every base class above a class, breadth first (nearest first), given each class's
    direct bases (by id, or by a walk's node)."""
    found: list[T] = []
    frontier = [cls]
    while frontier:
        following = []
        for each in frontier:
            for base in bases_of(each):
                if base not in found and base != cls:
                    found.append(base)
                    following.append(base)
        frontier = following
    return found


def called_name(text: str) -> str:
    """The name an unresolved call, as written, calls (`self.handler.handle` → `handle`; ""
    when it ends in no name: a subscript, a call's result)."""
    found = _LAST_NAME.search(text)
    return found.group(1) if found else ""


def _generated_test_classes(store: Store, repo: str, tests: list[str], edges: RepoEdges) -> None:
    """The Python test classes (named as the runner collects them) with a base class and no
    test of their own in the source: their tests are made at run time (markdown's legacy
    tests: a metaclass makes a test per data file), so the graph cannot say what they run."""
    layout = store.test_layouts().of(repo)
    with_tests = {
        sid.rpartition(".")[0]
        for sid in edges.test_functions
        if layout.is_test_name("python", sid.rpartition(".")[2])
    }
    python = [path for path in tests if languages.language_of(path) == "python"]
    for found in store.graph.symbol_spans(repo, ("class",), python).values():
        for _start, _end, sid in found:
            name = sid.rpartition(".")[2]
            based = sid in edges.bases or sid in edges.external_based
            if based and sid not in with_tests and layout.is_test_class_name(name):
                edges.opaque_tests[sys.intern(sid)] = GENERATED_VIA


def _module_reach(
    imports: list[tuple[str, str, str, list[str]]],
    records: Mapping[str, FileRecord],
    module_of: Mapping[str, str],
    edges: RepoEdges,
) -> None:
    """Module-level code runs when its module is imported: a module's importers are its
    callers (via "importer"); a test file's tests depend on its module-level code (objects
    built in `parametrize`, in the module's fixtures), and a conftest.py's on the test files
    below it (via "module")."""
    callers = edges.callers
    for path, kind, target, _names in imports:
        if kind == "file" and path in module_of and target in module_of and path != target:
            callers.setdefault(module_of[target], []).append((module_of[path], IMPORT_VIA, 1.0))
    conftests = {
        path.rpartition("/")[0]: module_of[path]
        for path in module_of
        if path.rpartition("/")[2] == "conftest.py"
    }
    for sid in edges.test_functions:
        module = module_of.get(_path_of(sid))
        if module is not None:
            callers.setdefault(module, []).append((sid, MODULE_VIA, 1.0))
    for path, record in records.items():
        if not record.is_test or path not in module_of:
            continue
        folder = path.rpartition("/")[0]
        while True:
            conftest = conftests.get(folder)
            if conftest is not None and conftest != module_of[path]:
                callers.setdefault(conftest, []).append((module_of[path], MODULE_VIA, 1.0))
            if not folder:
                break
            folder = folder.rpartition("/")[0]


LOCAL_BITS = 32  # a walk's node: its repository's number, then its index in that repository


class ReverseGraph:
    """The repositories' edges a walk needs, loaded as it reaches them: a repository, and the
    repositories with edges into it (its consumers).

    A walk reads it by node: an integer for a symbol id (`node`, `sid`), its repository's
    number in the high bits and the id's index in the repository's walk graph in the low ones
    (an id the graph does not hold gets a number past them), so callers are listed without
    reading an id as text."""

    def __init__(self, store: Store, states: Mapping[str, Mapping[str, FileState]] | None = None):
        self.store = store
        self.layouts = store.test_layouts()  # which symbols are tests, by repository
        self.states = dict(states or {})  # by repository: its file states, when read already
        self.repos: dict[str, WalkGraph | None] = {}
        self._consumers_of: dict[str, list[str]] = {}
        self._called_from_outside: dict[int, frozenset[str] | None] = {}
        # the node space: by repository number, its name, graph, ids held, and the ids its
        # graph does not hold (numbered past them)
        self._numbers: dict[str, int] = {}
        self._names: list[str] = []
        self._graphs: list[WalkGraph | None] = []
        self._held: list[int] = []
        self._unheld: list[list[str]] = []
        self._unheld_nodes: dict[str, int] = {}
        self._ancestor_nodes: dict[int, list[int]] = {}
        self._last_parts: tuple[int, tuple[int | None, str, bool]] = (-1, (None, "", False))

    def edges(self, repo: str) -> WalkGraph | None:
        if repo not in self.repos:
            states = self.states.get(repo)
            if states is None:
                states = self.states[repo] = self.store.index.file_states(repo)
            if not states:
                self.repos[repo] = None
                return None
            state = index_state(states)
            key = (self.store.url, repo)
            with _LOCK:
                cached = _CACHE.get(key)
            if cached is None or cached.state != state:
                cached = _mapped(self.store, repo, state)
                with _LOCK:
                    _CACHE[key] = cached
            self.repos[repo] = cached.walk()  # read through a view of this walk's own
        return self.repos[repo]

    # ------------------------------------------------------------ nodes

    def _number(self, repo: str) -> int:
        number = self._numbers.get(repo)
        if number is None:
            number = self._numbers[repo] = len(self._names)
            graph = self.edges(repo)
            self._names.append(repo)
            self._graphs.append(graph)
            self._held.append(len(graph.file.ids) if graph is not None else 0)
            self._unheld.append([])
        return number

    def node(self, symbol_id: str) -> int:
        """The walk's node of a symbol id."""
        number = self._number(symbol_id[: symbol_id.index(":")])
        graph = self._graphs[number]
        if graph is not None:
            index = graph.index(symbol_id)
            if index is not None:
                return (number << LOCAL_BITS) | index
        found = self._unheld_nodes.get(symbol_id)
        if found is None:
            unheld = self._unheld[number]
            found = (number << LOCAL_BITS) | (self._held[number] + len(unheld))
            self._unheld_nodes[symbol_id] = found
            unheld.append(sys.intern(symbol_id))
        return found

    def sid(self, node: int) -> str:
        """The symbol id of a walk's node."""
        number, index = node >> LOCAL_BITS, node & ((1 << LOCAL_BITS) - 1)
        held = self._held[number]
        if index < held:
            return self._graphs[number].text(index)  # type: ignore[union-attr]
        return self._unheld[number][index - held]

    def _parts(self, node: int) -> tuple[int | None, str, bool]:
        """A node's owner (the node of its class or module: `walkfile.owner_of`), its last
        name, and whether its owner is a module of its repository."""
        if self._last_parts[0] == node:  # a walk asks twice in a row: dispatch, open ends
            return self._last_parts[1]
        number, index = node >> LOCAL_BITS, node & ((1 << LOCAL_BITS) - 1)
        graph = self._graphs[number]
        found: tuple[int | None, str, bool]
        if index < self._held[number]:
            assert graph is not None
            owner = graph.owners[index]
            if owner == walkfile.NO_OWNER:
                found = None, graph.member(index), False
            else:
                offset = number << LOCAL_BITS
                found = offset | owner, graph.member(index), graph.is_module(owner)
        else:
            symbol_id = self.sid(node)
            owner_id, name = walkfile.owner_of(symbol_id), symbol_id.rpartition(".")[2]
            if owner_id is None:
                found = None, name, False
            else:
                modular = graph is not None and owner_id in graph.modules
                found = self.node(owner_id), name, modular
        self._last_parts = (node, found)
        return found

    # ------------------------------------------------------------ steps, by node

    def callers_of(self, node: int) -> list[tuple[int, str, float]]:
        """Every edge into the node, from its own repository and from those binding into it:
        (source, via, how sure)."""
        number, index = node >> LOCAL_BITS, node & ((1 << LOCAL_BITS) - 1)
        return self._callers_at(number, index if index < self._held[number] else None, node)

    def _callers_at(
        self, number: int, index: int | None, symbol: int | str
    ) -> list[tuple[int, str, float]]:
        """The callers of a symbol of the repository numbered `number`: the edges at `index`
        in its graph (None: it holds none), and those into the symbol (a node, or an id its
        graph may not hold) in the repositories binding into it — whose edges come from their
        own symbols, so their sources are their own nodes."""
        graph = self._graphs[number]
        found = graph.caller_steps(index, number << LOCAL_BITS) if index is not None else []  # type: ignore[union-attr]
        consumers = self._consumers(self._names[number])
        if consumers:
            symbol_id = symbol if isinstance(symbol, str) else self.sid(symbol)
            for consumer in consumers:
                each = self._number(consumer)
                edges = self._graphs[each]
                at = edges.index(symbol_id) if edges is not None else None
                if at is not None:
                    found += edges.caller_steps(at, each << LOCAL_BITS)  # type: ignore[union-attr]
        return found

    def dispatched_of(
        self, node: int, met: set[tuple[int, str]] | None = None
    ) -> list[tuple[int, str, float]]:
        """The callers of the methods a method overrides (a call bound to a base class's
        method runs the override on a subclass's instance), less sure by DISPATCH_CONFIDENCE.
        `met`: the overridden methods whose callers were given already (a walk settling the
        surest first gains nothing from them again); those of this call are added to it."""
        owner, name, modular = self._parts(node)
        if owner is None or modular or name in NOT_DISPATCHED:
            return []
        found: list[tuple[int, str, float]] = []
        for base in self._ancestors_of(owner):
            if met is not None:
                if (base, name) in met:
                    continue
                met.add((base, name))
            # the base's method of that name: a symbol its graph may not hold
            number, index = base >> LOCAL_BITS, base & ((1 << LOCAL_BITS) - 1)
            graph = self._graphs[number]
            method = graph.child(index, name) if index < self._held[number] else None  # type: ignore[union-attr]
            overridden: int | str
            if method is not None:
                overridden = (number << LOCAL_BITS) | method
            elif self._consumers(self._names[number]):
                overridden = f"{self.sid(base)}.{name}"
            else:
                continue
            for src, via, weight in self._callers_at(number, method, overridden):
                found.append((src, via, weight * DISPATCH_CONFIDENCE))
        return found

    def open_of(
        self, node: int, met: set[tuple[int | str, ...]] | None = None
    ) -> list[tuple[int, str, str, float]]:
        """The open ends that may call the node, as (source, via, why, how sure): unresolved
        calls naming it in its repository and those binding into it, getattr calls whose
        literal prefix starts its name; for a dunder method, or a method of a class with a
        base from outside (whose code may call it), its class (reached where the class is).
        `met`: the calls by name given already, as (repository's number, name) for the
        unresolved calls naming a name and (repository's number, prefix, source's node) for a
        getattr call; they are not given again (each steps to its source, which a walk settling
        the surest first reached the first time), and those of this call are added to it."""
        number = node >> LOCAL_BITS
        owner, name, modular = self._parts(node)
        found: list[tuple[int, str, str, float]] = []
        if owner is not None and name != "__init__" and self._graphs[number] is not None:
            if modular:
                pass  # a function of a module: no class to reach
            elif name in SUBCLASS_HOOKS:
                pass  # run where a subclass is defined: edges of the graph (`_subclass_hooks`)
            elif name.startswith("__") and name.endswith("__"):
                found.append((owner, PROTOCOL_VIA, "protocol", PROTOCOL_CONFIDENCE))
            elif self._callable_from_outside(owner, name):
                found.append((owner, PROTOCOL_VIA, "external-base", PROTOCOL_CONFIDENCE))
        if name.startswith("__"):
            return found  # run by syntax, or by name on `super()` (the protocol step above)
        sure = BUILTIN_NAME_CONFIDENCE if name in PROTOCOL_METHOD_NAMES else NAME_CONFIDENCE
        index = node & ((1 << LOCAL_BITS) - 1)
        for repo in (self._names[number], *self._consumers(self._names[number])):
            each = self._number(repo)
            edges = self._graphs[each]
            if edges is None:
                continue
            offset = each << LOCAL_BITS
            if met is None or (each, name) not in met:
                held = each == number and index < self._held[number]
                named = (
                    edges.open_steps_at(edges.member_index(index))
                    if held
                    else edges.open_steps(name)
                )
                for src, reason in named:
                    found.append((offset + src, NAME_VIA, reason, sure))
                if met is not None:
                    met.add((each, name))
            for prefix, src_id in edges.computed_calls:
                if name.startswith(prefix):
                    src = self.node(src_id)
                    if met is not None:
                        if (each, prefix, src) in met:
                            continue
                        met.add((each, prefix, src))
                    found.append((src, NAME_VIA, "computed-name", NAME_CONFIDENCE))
        return found

    def _ancestors_of(self, node: int) -> list[int]:
        found = self._ancestor_nodes.get(node)
        if found is None:
            found = self._ancestor_nodes[node] = ancestors_of(node, self._bases_of)
        return found

    def _bases_of(self, node: int) -> list[int]:
        """A class's direct bases, in declared order: nodes of its repository, or of the
        repository a base from another comes from."""
        number, index = node >> LOCAL_BITS, node & ((1 << LOCAL_BITS) - 1)
        if index >= self._held[number]:
            return []
        graph = self._graphs[number]
        assert graph is not None
        offset = number << LOCAL_BITS
        return [
            self.node(graph.text(base)) if graph.is_foreign(base) else offset | base
            for base in graph.base_indexes(index)
        ]

    # ------------------------------------------------------------ steps, by symbol id

    def open_callers(self, symbol_id: str) -> list[tuple[str, str, str, float]]:
        """The open ends that may call the symbol (`open_of`), by id."""
        return [(self.sid(s), via, why, w) for s, via, why, w in self.open_of(self.node(symbol_id))]

    def opaque_tests(self, symbol_id: str) -> dict[str, str]:
        """The tests of the symbol's repository the graph cannot see into (`RepoEdges`), which
        may run the symbol: by id, why."""
        edges = self.edges(symbol_id[: symbol_id.index(":")])
        return edges.opaque_tests if edges is not None else {}

    def is_generated_test_class(self, symbol_id: str) -> bool:
        edges = self.edges(symbol_id.partition(":")[0])
        return edges is not None and edges.opaque_tests.get(symbol_id) == GENERATED_VIA

    def suite_size(self, repo: str) -> int:
        """How many tests the repository's runners collect, as impact counts them: test
        functions (Python, Go) and test files (the other languages, whose tests are
        anonymous)."""
        edges = self.edges(repo)
        if edges is None:
            return 0
        layout = self.layouts.of(repo)
        files: set[str] = set()
        count = 0
        for sid in edges.test_functions:
            path = sid[len(repo) + 1 : sid.index("#")]
            language = languages.language_of(path) or ""
            if language in TEST_NAME_PREFIXES:
                count += layout.is_test_name(language, sid.rpartition(".")[2])
            else:
                files.add(path)
        generated = sum(1 for why in edges.opaque_tests.values() if why == GENERATED_VIA)
        return count + len(files) + generated

    def _callable_from_outside(self, class_node: int, name: str) -> bool:
        """Whether code outside the indexed repositories may call the class's method `name`:
        the class or one of its ancestors has a base from outside, one that is not a class of
        Python's standard library whose members are known without `name` among them
        (`typing.Generic`, `collections.abc.MutableMapping` and `logging.Handler` call back only
        what they define: `emit`, `__getitem__`; a base from another package may call anything)."""
        if class_node not in self._called_from_outside:
            self._called_from_outside[class_node] = self._outside_calls(class_node)
        names = self._called_from_outside[class_node]
        return names is None or name in names

    def _outside_calls(self, class_node: int) -> frozenset[str] | None:
        """The names of the class's methods code outside may call (`_callable_from_outside`):
        None for any name (a base from outside that is not a known class of the standard
        library), else the members of its standard-library bases (none: no base from
        outside)."""
        names: set[str] = set()
        for each in (class_node, *self._ancestors_of(class_node)):
            number, index = each >> LOCAL_BITS, each & ((1 << LOCAL_BITS) - 1)
            edges = self._graphs[number]
            if index >= self._held[number] or not edges.has_external_base(index):  # type: ignore[union-attr]
                continue  # every class with a base from outside is held by its graph
            symbol_id = self.sid(each)
            python = languages.language_of(_path_of(symbol_id)) == "python"
            for written, top in edges.external_based.get(symbol_id, ()):  # type: ignore[union-attr]
                members = standard_class_members(top, written) if python and top else None
                if members is None:
                    return None
                names |= members
        return frozenset(names)

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
        """Every base class above a class, nearest first (the INHERITS of the repositories)."""
        return [self.sid(base) for base in self._ancestors_of(self.node(class_id))]

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
