"""The index pipeline: discover → hash → parse changed files → resolve → write (incremental).

A file is written in one transaction with everything it contributes (its symbols, its
outgoing edges, its unresolved calls, its imports), so an interrupted run leaves every file
either fully old or fully new. After the changed files, every file whose resolution consulted
a changed module (recorded as `deps` when it was resolved) is re-resolved, so no edge goes stale.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import multiprocessing
import os
import socket
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from multiprocessing import get_context
from pathlib import Path

from cartograph import languages
from cartograph.discover import (
    DEFAULT_MAX_BYTES,
    Discovery,
    DiscoveryError,
    SourceFile,
    discover,
    discover_paths,
    is_test_path,
    read_inside,
    read_source,
)
from cartograph.errors import CartographError, ErrorKind
from cartograph.history.mine import MineResult
from cartograph.model import (
    EdgeWrite,
    FileRecord,
    FileWrite,
    ImportLink,
    Repo,
    Skipped,
)
from cartograph.names import name_for_folder
from cartograph.names import repo_name as valid_repo_name
from cartograph.parsing import (
    decode_facts,
    encode_facts,
    extract_facts,
    facts_version,
    interface_hash,
)
from cartograph.resolve.core import FileResolution
from cartograph.resolve.ecma import EcmaProgram
from cartograph.resolve.modules import (
    CONFIG_ALIAS,
    PROJECT_FILES,
    ModuleMap,
    ModuleName,
    compute_module_map,
    file_module,
    module_map,
)
from cartograph.resolve.python import ModuleFacts, Program, absolute_module
from cartograph.store.interfaces import Store, StoreError

log = logging.getLogger("cartograph.index")


def _index_format() -> str:
    """Changes whenever the parser, its queries or the resolver change: a repository indexed by
    another version is rebuilt once, so no answer mixes two versions' rules."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent  # `cartograph` is a namespace package
    for part in INDEX_FORMAT_SOURCES:
        source = package / part
        digest.update(source.read_bytes() if source.is_file() else part.encode())
    return f"1-{digest.hexdigest()[:16]}"


INDEX_FORMAT_SOURCES = (
    "languages.py",
    "parsing/facts.py",
    "parsing/python.py",
    "parsing/queries/python.scm",
    "parsing/ecma.py",
    "parsing/queries/ecma.scm",
    "parsing/queries/ecma-typescript.scm",
    "parsing/queries/ecma-javascript.scm",
    "parsing/queries/ecma-jsx.scm",
    "parsing/tags.py",
    *(f"parsing/queries/tags/{name}.scm" for name in languages.names("generic")),
    "resolve/core.py",
    "resolve/mro.py",
    "resolve/python.py",
    "resolve/modules.py",
    "resolve/ecma.py",
    "resolve/generic.py",
    *sorted({f"resolve/{languages.BY_NAME[name].rules}.py" for name in languages.names("generic")}),
)
# files whose content changes how a family's imports resolve (see _module_map)
CONFIG_FILES = {
    kind: languages.config_files(kind) for kind in languages.FAMILIES if kind != "python"
}
INDEX_FORMAT = _index_format()
PARALLEL_MIN_FILES = 64
PREFETCH_ALL_ABOVE = 100  # dependents to re-resolve above which every stored fact is read ahead
PREFETCH_CHUNK = 500
RECURSION_LIMIT = 20_000  # resolution follows chains (bases, re-exports) recursively
PARSE_CHUNK = 48
WRITE_BATCH = 256
LOCK_TTL = 120.0  # a crashed run's lock lapses after this
LOCK_REFRESH_AFTER = LOCK_TTL / 6  # a write batch refreshes the lock when it is this old


class IndexingError(CartographError):
    """An index run could not be done (bad path, lock held too long, store failure)."""


@dataclass(slots=True)
class IndexResult:
    repo: str
    root: str
    files: int = 0
    parsed: int = 0
    unchanged: int = 0
    deleted: int = 0
    reresolved: int = 0
    reresolved_unchanged: int = 0  # of those, resolved the same as before (nothing written)
    skipped: int = 0
    symbols_written: int = 0
    edges_written: int = 0
    syntax_errors: list[str] = field(default_factory=list)
    indexed_sha: str = ""
    dirty: bool = False
    seconds: dict[str, float] = field(default_factory=dict)
    history: MineResult | None = None  # the commits mined after indexing (git work trees)
    notes: list[str] = field(default_factory=list)

    @property
    def total_seconds(self) -> float:
        return sum(self.seconds.values())


@dataclass(slots=True)
class _Parsed:
    source: SourceFile
    sha256: str
    facts: dict
    blob: bytes
    interface: str


def _parse_chunk(items: list[tuple[str, str, bytes]]) -> list[tuple[str, bytes, str]]:
    """Worker: source bytes → encoded facts (small to send back; decoded by the parent) and
    the digest of the file's interface."""
    gc.disable()
    out = []
    for path, language, data in items:
        facts = extract_facts(language, data)
        out.append((path, encode_facts(facts), interface_hash(language, facts)))
    return out


def _parse_all(items: list[tuple[str, str, bytes]], workers: int) -> list[tuple[str, bytes, str]]:
    if workers <= 1 or len(items) < PARALLEL_MIN_FILES:
        return _parse_chunk(items)
    # biggest files first, dealt round-robin, so chunks are even and the last one is not slow
    items = sorted(items, key=lambda item: -len(item[2]))
    count = max(workers, len(items) // PARSE_CHUNK)
    chunks = [items[i::count] for i in range(count)]
    results: list[tuple[str, bytes, str]] = []
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
        for chunk_result in pool.map(_parse_chunk, chunks):
            results.extend(chunk_result)
    return results


# The run a forked resolve worker serves (set by the parent just before it forks).
_FORKED_RUN: _IndexRun | None = None


def _resolve_chunk(tasks: list[tuple[str, str]]) -> tuple[int, int] | list[tuple[list, list]]:
    """Worker: resolve a share of the files; write them through its own store connection when
    the store takes concurrent writers, else hand the batches back to the parent to write."""
    from cartograph.store import open_store

    run = _FORKED_RUN
    assert run is not None
    # a connection inherited over fork is the parent's: this process reads (lazily loaded
    # facts) and writes through its own
    store = open_store(run.store.url)
    run.reads = store
    try:
        if not run.store.concurrent_writers:
            return list(run.resolve_batches(tasks))
        return run.resolve_and_write(store, tasks)
    finally:
        store.close()


class _Timer:
    def __init__(self, result: IndexResult) -> None:
        self.result = result
        self.started = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.result.seconds[name] = round(
            self.result.seconds.get(name, 0.0) + now - self.started, 4
        )
        self.started = now


def default_repo_name(root: Path) -> str:
    return name_for_folder(root.resolve().name)


def index_repository(
    store: Store,
    path: str | os.PathLike[str],
    name: str | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    workers: int | None = None,
    lock_timeout: float = 600.0,
    progress: Callable[[str], None] | None = None,
    files: Iterable[str] | None = None,
    history: bool = True,
    remine: bool = False,
    origin: tuple[str, str] | None = None,
) -> IndexResult:
    """Index (or re-index, incrementally) the repository at `path` into `store`.

    `files` (paths relative to `path`) limits the look to those files — what an agent or a
    push just changed — instead of listing the whole tree. When they add, delete or rename
    modules, or the repository was never indexed, the whole tree is listed anyway.
    In a git work tree, the commits not mined yet are then added to the graph (`history`;
    `remine`: forget the mined history and mine all of it again). `origin` (url, branch)
    is recorded on the repository (a tracked repository's remote).
    """
    started = time.perf_counter()
    try:
        if files is not None:
            discovery = discover_paths(path, list(files), max_bytes=max_bytes)
        else:
            discovery = discover(path, max_bytes=max_bytes)
    except DiscoveryError as exc:
        raise IndexingError(str(exc)) from exc
    try:
        repo_name = valid_repo_name(name) if name else default_repo_name(discovery.root)
    except CartographError as exc:
        raise IndexingError(str(exc)) from None
    owner = _lock_owner()
    _acquire(store, repo_name, owner, lock_timeout, progress)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    try:
        if discovery.partial and not _partial_is_enough(store, repo_name, discovery):
            discovery = discover(discovery.root, max_bytes=max_bytes)
        if multiprocessing.current_process().daemon:
            workers = 1  # a daemonic process (a Celery prefork child) cannot have children
        run = _IndexRun(
            store, discovery, repo_name, owner, workers or os.cpu_count() or 1, progress
        )
        run.origin = origin
        run.result.seconds["discover"] = round(time.perf_counter() - started, 4)
        try:
            result = run.run()
        finally:
            # the symbol table's loader refers back to the run: break the cycle so its memory
            # goes now, not in a later garbage collection that would stall the next call
            run.program = None
            run.fresh = {}
        if history and discovery.git and discovery.head_sha:
            _mine(store, discovery, repo_name, result, progress, remine)
        return result
    except DiscoveryError as exc:
        raise IndexingError(str(exc)) from exc
    finally:
        if gc_was_enabled:
            gc.enable()
        _release(store, repo_name, owner)


def _lock_owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@contextmanager
def repository_lock(store: Store, repo: str, timeout: float = 600.0) -> Iterator[None]:
    """Hold a repository's index lock (what an index run holds) for other writes that must not
    interleave with one, such as deleting the repository."""
    owner = _lock_owner()
    _acquire(store, repo, owner, timeout, None)
    try:
        yield
    finally:
        _release(store, repo, owner)


def _mine(
    store: Store,
    discovery: Discovery,
    repo: str,
    result: IndexResult,
    progress: Callable[[str], None] | None,
    rebuild: bool,
) -> None:
    from cartograph.history.mine import HistoryError, mine_history

    started = time.perf_counter()
    try:
        # up to the commit the index reflects, so both halves of the graph agree
        result.history = mine_history(
            store,
            discovery.root,
            repo,
            progress=progress,
            rebuild=rebuild,
            head_sha=discovery.head_sha,
        )
    except (HistoryError, RuntimeError) as exc:  # git log failing is a RuntimeError
        result.notes.append(f"history not mined: {exc}")
    result.seconds["history"] = round(time.perf_counter() - started, 4)


def _release(store: Store, repo: str, owner: str) -> None:
    """Release the index lock; when the store is gone (the error that stopped the run is the
    one to report), the lock expires by itself."""
    propagating = sys.exc_info()[0] is not None
    try:
        store.index.release_index_lock(repo, owner)
    except StoreError:
        if not propagating:
            raise


def _partial_is_enough(store: Store, repo: str, discovery: Discovery) -> bool:
    """Looking at named files only is right when they are indexed modules that still exist
    and are still indexable: then no module appears, disappears or changes its name."""
    previous = store.repos.get_repo(repo)
    if previous is None or previous.index_format != INDEX_FORMAT:
        return False
    if discovery.missing or discovery.skipped:
        return False
    indexed = store.graph.files(repo, [f.path for f in discovery.files])
    for source in discovery.files:
        name = source.path.rpartition("/")[2]
        if source.path not in indexed or name.startswith("__init__.") or name in PROJECT_FILES:
            return False
    return True


def _acquire(
    store: Store, repo: str, owner: str, timeout: float, progress: Callable[[str], None] | None
) -> None:
    deadline = time.monotonic() + timeout
    told = False
    while not store.index.acquire_index_lock(repo, owner, LOCK_TTL, _dead_holder(store, repo)):
        if time.monotonic() > deadline:
            raise IndexingError(
                f"another index run of {repo!r} holds its lock; gave up after "
                f"{timeout:.0f} s (a lock expires {LOCK_TTL:.0f} s after its "
                f"holder stops)",
                ErrorKind.CONFLICT,
            )
        if not told and progress:
            progress(f"waiting for another index run of {repo!r} to finish")
            told = True
        time.sleep(0.1)


def _dead_holder(store: Store, repo: str) -> str | None:
    """The lock's holder when it is a process of this machine that no longer runs (killed):
    its lock need not be waited out."""
    holder = store.index.index_lock_holder(repo)
    if not holder:
        return None
    host, _, rest = holder.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return None
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return holder
    except PermissionError:
        return None  # alive, another user's
    return None


class _IndexRun:
    def __init__(
        self,
        store: Store,
        discovery: Discovery,
        repo: str,
        owner: str,
        workers: int,
        progress: Callable[[str], None] | None,
    ) -> None:
        self.store = store
        self.reads = store  # where facts are loaded from (a forked worker's own connection)
        self.discovery = discovery
        self.repo = repo
        self.owner = owner
        self.workers = workers
        self.progress = progress or (lambda _msg: None)
        self.result = IndexResult(repo, str(discovery.root))
        self.sources = {f.path: f for f in discovery.files}
        self.origin: tuple[str, str] | None = None
        self.prefetched: dict[str, bytes] = {}  # stored facts read ahead (see _prefetch_facts)
        self.timer = _Timer(self.result)
        self.lock_refreshed = time.monotonic()  # the lock was taken just before the run

    def run(self) -> IndexResult:
        store, discovery, result = self.store, self.discovery, self.result
        previous = store.repos.get_repo(self.repo)
        rebuild = previous is None or previous.index_format != INDEX_FORMAT
        states = {} if rebuild else store.index.file_states(self.repo)
        self.states = states
        if rebuild and previous is not None:
            store.repos.delete_repo(self.repo)
        self.timer.lap("discover")

        old_map = module_map(
            {
                path: ModuleName(
                    state.module,
                    path.endswith(("__init__.py", "__init__.pyi")),
                    tuple(state.aliases.split()),
                )
                for path, state in states.items()
                if state.module
            }
        )
        if discovery.partial:  # named files only, none of which changes the layout
            self.module_map = old_map
            skipped = store.index.skipped(self.repo)
        else:
            self.module_map = self._module_map()
            skipped = list(discovery.skipped)

        renamed: list[tuple[SourceFile, str]] = []  # same content, new module name
        touched: list[SourceFile] = []  # same content, new mtime
        to_parse: list[tuple[str, str, bytes]] = []
        parsed_source: dict[str, tuple[SourceFile, str]] = {}
        for source in discovery.files:
            state = states.get(source.path)
            module = self.module_map.by_path.get(source.path)
            # the names a file is known by (module and aliases): when they change, the file is
            # rewritten (its symbol ids, and the aliases later runs compare against)
            names = (module.name, " ".join(module.aliases)) if module else ("", "")
            same_names = state is not None and (state.module, state.aliases) == names
            if state is not None and (state.size, state.mtime_ns) == (source.size, source.mtime_ns):
                if same_names:
                    result.unchanged += 1
                else:
                    renamed.append((source, state.sha256))
                continue
            data, reason, sha = read_source(discovery.root, source)
            if data is None:
                skipped.append(Skipped(source.path, reason, source.size))
                continue
            if state is not None and state.sha256 == sha:
                if same_names:
                    result.unchanged += 1
                    touched.append(source)
                else:
                    renamed.append((source, sha))
                continue
            parsed_source[source.path] = (source, sha)
            to_parse.append((source.path, source.language, data))
        if discovery.partial:
            result.unchanged += len(states) - len(discovery.files)
        listed = set(states) if discovery.partial else {f.path for f in discovery.files}
        present = listed - {s.path for s in skipped}
        deleted = sorted(set(states) - present)
        result.files = len(present)
        result.deleted = len(deleted)
        self.timer.lap("hash")

        if to_parse:
            self.progress(f"parsing {len(to_parse)} files")
        self.fresh: dict[str, _Parsed] = {}
        for path, blob, interface in _parse_all(to_parse, self.workers):
            source, sha = parsed_source[path]
            self.fresh[path] = _Parsed(source, sha, decode_facts(blob) or {}, blob, interface)
        result.parsed = len(self.fresh)
        result.syntax_errors = sorted(p for p, f in self.fresh.items() if f.facts.get("errors"))
        for source, sha in renamed:
            parsed = self._reuse_facts(source, sha)
            if parsed is None:
                skipped.append(Skipped(source.path, "unreadable", source.size))
            else:
                self.fresh[source.path] = parsed
        result.skipped = len(skipped)
        self.timer.lap("parse")

        # files whose interface is unchanged (an edit inside a function body) do not change
        # what their dependents resolve to
        interface_changed = [
            path
            for path, parsed in self.fresh.items()
            if path not in states or states[path].interface != parsed.interface
        ]
        changed_names = _changed_module_names(
            old_map, self.module_map, [*interface_changed, *deleted]
        )
        # a file appearing in or leaving a folder changes what same-package names mean there
        changed_names |= {
            _folder_name(path)
            for path in [*interface_changed, *deleted]
            if family_of_path(path) == "generic"
        }
        dependents: set[str] = set()
        pending = False  # names this run or an interrupted one marked pending
        if states:
            # names an interrupted run left pending are re-resolved too; record ours before
            # the first write so a run killed midway is completed by the next one
            changed_names |= store.index.pending(self.repo)
            if changed_names:
                pending = True
                store.index.add_pending(self.repo, changed_names)
                dependents = store.index.dependents(self.repo, changed_names) - set(self.fresh)
                dependents &= present
        result.reresolved = len(dependents)
        self._prefetch_facts(dependents)
        if states:  # a full index parses every module: nothing stored to read ahead
            self._prefetch_imported(self.fresh)
        self.program = self._program()
        self.replace = bool(states)
        if deleted:
            store.index.delete_files(self.repo, deleted)
        tasks = [(path, "file") for path in sorted(self.fresh)]
        tasks += [(path, "edges") for path in sorted(dependents)]
        self._resolve_and_write_all(tasks)
        self.timer.lap("resolve+write")

        store.index.finish_run(self.repo)
        if pending:
            store.index.clear_pending(self.repo)
        store.index.update_file_stats(self.repo, [(s.path, s.size, s.mtime_ns) for s in touched])
        if not discovery.partial:
            store.index.set_skipped(self.repo, skipped)
            store.index.set_packages(self.repo, _provided_packages(self.module_map), "pypi")
        now = datetime.now(UTC).isoformat(timespec="seconds")
        store.repos.upsert_repo(
            Repo(
                name=self.repo,
                root=str(discovery.root),
                url=self.origin[0] if self.origin else (previous.url if previous else ""),
                default_branch=(
                    self.origin[1]
                    if self.origin
                    else discovery.branch or (previous.default_branch if previous else "")
                ),
                head_sha=discovery.head_sha,
                indexed_sha=discovery.head_sha,
                indexed_at=now,
                dirty=self._dirty(previous),
                index_format=INDEX_FORMAT,
            )
        )
        result.indexed_sha = discovery.head_sha
        result.dirty = self._dirty(previous)
        self.timer.lap("finish")
        return result

    def _module_map(self) -> ModuleMap:
        """Every indexed file's module name: Python files by Python's rules, other files by
        their path; a digest of the configuration that steers their imports rides along as an
        alias, so a changed tsconfig.json or go.mod resolves those files again."""
        discovery = self.discovery
        python = [f.path for f in discovery.files if languages.family(f.language) == "python"]
        named = dict(compute_module_map(python, discovery.all_paths).by_path)
        digests = {
            kind: _config_digest(discovery.root, discovery.all_paths, names)
            for kind, names in CONFIG_FILES.items()
        }
        for source in discovery.files:
            kind = languages.family(source.language)
            if kind != "python":
                alias = (digests[kind],) if digests[kind] else ()
                named[source.path] = ModuleName(file_module(source.path), False, alias)
        return module_map(named)

    def _dirty(self, previous: Repo | None) -> bool:
        """Uncommitted changes in the work tree; a look at named files cannot tell about the
        others, so it keeps what the last full look saw (and counts its own changes)."""
        if not self.discovery.partial:
            return self.discovery.dirty
        return bool(previous and previous.dirty) or bool(self.fresh)

    def _reuse_facts(self, source: SourceFile, sha: str) -> _Parsed | None:
        """A file whose content is unchanged but whose module name changed: reuse its facts."""
        blob = self.store.index.load_facts(self.repo, [source.path]).get(source.path)
        facts = decode_facts(blob) if blob else None
        if facts is None or facts.get("v") != facts_version(source.language):
            data, _reason, sha = read_source(self.discovery.root, source)
            if data is None:
                return None
            facts = extract_facts(source.language, data)
            blob = encode_facts(facts)
        return _Parsed(source, sha, facts, blob, interface_hash(source.language, facts))

    def _resolve_and_write_all(self, tasks: list[tuple[str, str]]) -> None:
        """Resolve and write every task. On several cores, forked workers share the symbol
        table; each writes its own transactions (SQLite serializes them), or — for a store
        whose concurrent writers would contend on the same nodes (Neo4j) — sends its batches
        back for this process to write, one transaction at a time."""
        global _FORKED_RUN
        if self.workers <= 1 or len(tasks) < PARALLEL_MIN_FILES:
            symbols, edges = self.resolve_and_write(self.store, tasks)
        else:
            # contiguous shares keep a package's files together (they consult the same modules)
            size = -(-len(tasks) // (self.workers * 4))
            chunks = [tasks[i : i + size] for i in range(0, len(tasks), size)]
            symbols = edges = 0
            _FORKED_RUN = self
            try:
                with ProcessPoolExecutor(
                    max_workers=self.workers, mp_context=get_context("fork")
                ) as pool:
                    for done in pool.map(_resolve_chunk, chunks):
                        if isinstance(done, tuple):
                            symbols, edges = symbols + done[0], edges + done[1]
                            continue
                        for file_writes, edge_writes in done:
                            counts = self._write_batch(self.store, file_writes, edge_writes)
                            symbols, edges = symbols + counts[0], edges + counts[1]
            finally:
                _FORKED_RUN = None
        self.result.symbols_written += symbols
        self.result.edges_written += edges

    def resolve_and_write(self, store: Store, tasks: list[tuple[str, str]]) -> tuple[int, int]:
        """Resolve files and write them in batches; each file in one transaction."""
        symbols = edges = 0
        for file_writes, edge_writes in self.resolve_batches(tasks):
            counts = self._write_batch(store, file_writes, edge_writes)
            symbols, edges = symbols + counts[0], edges + counts[1]
        return symbols, edges

    def _write_batch(
        self, store: Store, file_writes: list[FileWrite], edge_writes: list[EdgeWrite]
    ) -> tuple[int, int]:
        if file_writes:
            store.index.write_files(self.repo, file_writes, replace=self.replace)
        if edge_writes:
            store.index.write_edges(self.repo, edge_writes)
        if time.monotonic() - self.lock_refreshed > LOCK_REFRESH_AFTER:
            store.index.refresh_index_lock(self.repo, self.owner, LOCK_TTL)
            self.lock_refreshed = time.monotonic()
        return (
            sum(len(w.symbols) for w in file_writes),
            sum(len(w.edges) for w in file_writes) + sum(len(w.edges) for w in edge_writes),
        )

    def resolve_batches(
        self, tasks: list[tuple[str, str]]
    ) -> Iterator[tuple[list[FileWrite], list[EdgeWrite]]]:
        """Resolve files, WRITE_BATCH at a time: (rewritten files, re-resolved files)."""
        file_writes: list[FileWrite] = []
        edge_writes: list[EdgeWrite] = []
        for path, kind in tasks:
            if kind == "file":
                file_writes.append(self._file_write(self.fresh[path]))
            else:
                resolution = self._resolution(path, None)
                if resolution is None:
                    continue
                digest = resolution_digest(resolution)
                state = self.states.get(path)
                if state is not None and state.resolution == digest:
                    self.result.reresolved_unchanged += 1
                    continue  # resolved the same as before: nothing to write
                edge_writes.append(
                    EdgeWrite(
                        path,
                        resolution.edges,
                        resolution.unresolved,
                        _import_links(resolution),
                        sorted(resolution.deps),
                        digest,
                    )
                )
            if len(file_writes) + len(edge_writes) >= WRITE_BATCH:
                yield file_writes, edge_writes
                file_writes, edge_writes = [], []
        if file_writes or edge_writes:
            yield file_writes, edge_writes

    def _program(self) -> Program:
        """The symbol tables: fresh facts in memory, every other file's facts loaded from the
        store when a resolution first consults it. One per family of languages."""
        module_map = self.module_map
        by_path: dict[str, ModuleFacts] = {}

        def load_module(name: str) -> ModuleFacts | None:
            path = module_map.by_name.get(name)
            if path is None or family_of_path(path) != "python":
                return None
            if path not in by_path:
                facts = self._facts_of(path)
                if facts is None:
                    return None
                module = module_map.by_path[path]
                by_path[path] = ModuleFacts(module.name, path, module.is_package, facts, self.repo)
            return by_path[path]

        python_modules = {
            name: load_module(name)
            for name, path in module_map.by_name.items()
            if path in self.fresh and family_of_path(path) == "python"
        }
        by_family: dict[str, list[str]] = {"ecma": [], "generic": []}
        for path in module_map.by_path:
            kind = family_of_path(path)
            if kind in by_family:
                by_family[kind].append(path)
        all_paths = set(module_map.by_path) | set(self.discovery.other_paths)
        self.ecma = EcmaProgram(
            self.repo, by_family["ecma"], self._facts_of, self._read_text, all_paths
        )
        self.generic = None
        if by_family["generic"]:
            from cartograph.resolve.generic import GenericProgram

            self.generic = GenericProgram(
                self.repo, by_family["generic"], self._facts_of, self._read_text
            )
        return Program(self.repo, python_modules, load_module)

    def _facts_of(self, path: str) -> dict | None:
        """A file's facts: parsed in this run, else stored, else read and parsed again (stored
        facts written by an older parser)."""
        parsed = self.fresh.get(path)
        if parsed is not None:
            return parsed.facts
        language = languages.language_of(path)
        if language is None:
            return None
        blob = self.prefetched.pop(path, None)
        if blob is None:
            blob = self.reads.index.load_facts(self.repo, [path]).get(path)
        facts = decode_facts(blob) if blob else None
        if facts is None or facts.get("v") != facts_version(language):
            source = self.sources.get(path)
            data = read_source(self.discovery.root, source)[0] if source else None
            if data is None:
                return None
            facts = extract_facts(language, data)
        return facts

    def _prefetch_facts(self, dependents: set[str]) -> None:
        """Stored facts that re-resolving the dependents will read, fetched in a few large
        reads rather than one round trip per module (it matters for a server store): the
        dependents' own, and — when they are many, so they consult most of the repository —
        every indexed file's."""
        if not dependents:
            return
        wanted = set(dependents)
        if len(dependents) > PREFETCH_ALL_ABOVE:
            wanted |= set(self.module_map.by_path)
        self._read_ahead(wanted)

    def _prefetch_imported(self, paths: Iterable[str]) -> None:
        """Stored facts of the Python modules that `paths` import directly (and the packages
        above them), in one read: resolving a single edited file would otherwise load them one
        round trip at a time. Modules reached further (through re-exports) still load lazily."""
        by_name = self.module_map.by_name
        wanted: set[str] = set()
        for path in paths:
            module = self.module_map.by_path.get(path)
            parsed = self.fresh.get(path)
            if module is None or parsed is None or family_of_path(path) != "python":
                continue
            for _scope, _line, level, target, names, *_rest in parsed.facts.get("imports", ()):
                full = absolute_module(module.name, module.is_package, level, target)
                if not full:
                    continue
                for name in [full, *(f"{full}.{name}" for name in names)]:
                    while name:
                        if name in by_name:
                            wanted.add(by_name[name])
                        name = name.rpartition(".")[0]
        self._read_ahead(wanted)

    def _read_ahead(self, paths: set[str]) -> None:
        """Stored facts of `paths` (less those parsed in this run or already read ahead), a few
        large reads for the resolver to take from instead of one round trip per module."""
        unread = sorted(paths - set(self.fresh) - set(self.prefetched))
        for start in range(0, len(unread), PREFETCH_CHUNK):
            chunk = unread[start : start + PREFETCH_CHUNK]
            self.prefetched.update(self.store.index.load_facts(self.repo, chunk))

    def _read_text(self, path: str) -> str | None:
        data = read_inside(self.discovery.root, path)
        return None if data is None else data.decode("utf-8", "replace")

    def _resolution(self, path: str, parsed: _Parsed | None) -> FileResolution | None:
        """Resolve one file with its family's resolver; dependencies as module names."""
        kind = family_of_path(path)
        if kind == "python":
            module = self.module_map.by_path.get(path)
            if module is None:
                return None
            mod = self.program.module(module.name)
            if mod is None or mod.path != path:
                if parsed is None:
                    return None
                mod = ModuleFacts(module.name, path, module.is_package, parsed.facts, self.repo)
            return self.program.resolve_file(mod)
        if kind == "ecma":
            resolution = self.ecma.resolve_file(path)
            resolution.deps = {file_module(p) for p in resolution.deps}
        elif self.generic is not None:
            resolution = self.generic.resolve_file(path)
            consulted = resolution.deps | {path}
            resolution.deps = {file_module(p) for p in resolution.deps}
            resolution.deps |= {_folder_name(p) for p in consulted}
        else:
            return None
        return resolution

    def _file_write(self, parsed: _Parsed) -> FileWrite:
        source = parsed.source
        module = self.module_map.by_path.get(source.path)
        facts = parsed.facts
        record = FileRecord(
            self.repo,
            source.path,
            source.language,
            parsed.sha256,
            source.size,
            source.mtime_ns,
            facts.get("lines", 0),
            is_test_path(source.path),
            module.name if module else "",
            facts.get("errors", 0),
            parsed.interface,
            " ".join(module.aliases) if module else "",
        )
        resolution = self._resolution(source.path, parsed)
        if resolution is None:
            return FileWrite(record, parsed.blob, [], [], [], [], [])
        record.resolution = resolution_digest(resolution)
        return FileWrite(
            record,
            parsed.blob,
            resolution.symbols,
            resolution.edges,
            resolution.unresolved,
            _import_links(resolution),
            sorted(resolution.deps),
        )


def family_of_path(path: str) -> str | None:
    language = languages.language_of(path)
    return languages.family(language) if language else None


def _folder_name(path: str) -> str:
    """A pseudo module name for a folder: files of a generic-tier language depend on the set
    of files in their package's folder."""
    return f"~dir:{path.rpartition('/')[0]}"


def _config_digest(root: Path, all_paths: set[str], names: tuple[str, ...]) -> str:
    """CONFIG_ALIAS + a digest of every configuration file with one of these names."""
    digest = hashlib.blake2b(digest_size=8)
    found = False
    for path in sorted(all_paths):
        if path.rpartition("/")[2] in names and "node_modules/" not in path:
            found = True
            digest.update(path.encode() + b"\0")
            data = read_inside(root, path)
            digest.update(b"<unreadable>" if data is None else data)
    return CONFIG_ALIAS + digest.hexdigest() if found else ""


def resolution_digest(resolution: FileResolution) -> str:
    """What a file's resolution writes (edges, unresolved calls, imports, dependencies), as a
    digest: a re-resolution with the same digest writes nothing."""
    content = (
        sorted(
            (e.type, e.src, e.dst, tuple(e.lines), e.count, e.via, e.confidence, e.order)
            for e in resolution.edges
        ),
        sorted((u.src, u.name, u.line, u.external, u.kind) for u in resolution.unresolved),
        sorted((kind, target, tuple(names)) for kind, target, names in resolution.imports),
        sorted(resolution.deps),
    )
    return hashlib.blake2b(repr(content).encode(), digest_size=12).hexdigest()


def _import_links(resolution: FileResolution) -> list[ImportLink]:
    return [ImportLink(kind, target, names) for kind, target, names in resolution.imports]


def _changed_module_names(old: ModuleMap, new: ModuleMap, paths: list[str]) -> set[str]:
    """Module names whose meaning changed: names of changed files, and names that moved."""
    names: set[str] = set()
    for path in paths:
        for mapping in (old, new):
            module = mapping.by_path.get(path)
            if module is not None:
                names.add(module.name)
                names.update(module.aliases)
    for name in set(old.by_name) | set(new.by_name):
        if old.by_name.get(name) != new.by_name.get(name):
            names.add(name)
    return names


def _provided_packages(names: ModuleMap) -> list[str]:
    """Top-level importable names the repository provides (its Package nodes)."""
    tops = set()
    for module in names.by_path.values():
        if module.name.startswith("//"):
            continue  # not a Python module
        top = module.name.split(".")[0]
        if module.is_package or "." in module.name:
            tops.add(top)
    return sorted(t for t in tops if t not in ("tests", "test", "docs", "examples"))
