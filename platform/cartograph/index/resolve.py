"""Stage 4, resolve: facts → `FileResolution`s, in batches for the write stage.

A file's facts are loaded into the symbol tables when a resolution first consults them: from
this run's parse (its spill file), else from the store (read ahead in a few large reads when
many will be). Between two files, once more than MODULE_LIMIT files are loaded, the tables
forget them all and what was computed from them (`Resolver.forget`): a run holds a bounded
number of files' facts whatever the repository's size. On several cores, forked workers each
resolve their share with their own tables: each gets the job (resolver, writer, store URL) as
an argument of its function, reads and writes through its own store connection — or, for a
store whose concurrent writers would contend on the same nodes (Neo4j), sends each batch back
as it is done, through a bounded queue, for the parent to write one transaction at a time.
"""

from __future__ import annotations

import hashlib
import marshal
import pickle
import queue
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from multiprocessing import get_context
from multiprocessing.queues import Queue
from pathlib import Path

from cartograph import languages
from cartograph.discover import SourceFile, read_inside, read_source
from cartograph.identifiers import line_words
from cartograph.index.crossrepo import Providers, recorded_deps
from cartograph.index.dependents import folder_name
from cartograph.index.flows import shape_digest
from cartograph.index.parse import PARALLEL_MIN_FILES, FactsSpill, Parsed, SpillSlot
from cartograph.index.results import IndexingError
from cartograph.index.write import Batch, Writer, Written
from cartograph.model import EdgeWrite, FileRecord, FileWrite, ImportLink, SymbolRow
from cartograph.parsing import decode_facts, extract_facts, facts_version
from cartograph.resolve.core import FileResolution
from cartograph.resolve.family import FamilyResolver, Sources, family_resolver
from cartograph.resolve.modules import ModuleMap
from cartograph.resolve.python import absolute_module
from cartograph.store.interfaces import FileState, Store
from cartograph.testlayout import DEFAULT_LAYOUT, TestLayout

PREFETCH_ALL_ABOVE = 100  # dependents to re-resolve above which every stored fact is read ahead
PREFETCH_CHUNK = 500
WRITE_BATCH = 256
MODULE_LIMIT = 1000  # files' facts a resolver holds before it forgets them (Resolver.forget)

Task = tuple[str, str]  # (path, "file": parsed in this run, rewritten | "edges": re-resolved)


def prefetch(
    store: Store,
    repo: str,
    names: ModuleMap,
    fresh: Mapping[str, Parsed],
    dependents: set[str],
    stored: bool,
    spill: FactsSpill | None = None,
) -> dict[str, bytes | SpillSlot]:
    """Stored facts the resolution will read, fetched in a few large reads rather than one
    round trip per module (it matters for a server store): the dependents' own — and, when
    they are many, so they consult most of the repository, every indexed file's — and, when
    files are stored (not a first index, which parses every module), those of the Python
    modules the parsed files import directly (and the packages above them). Modules reached
    further (through re-exports) still load lazily. With a `spill`, the facts read go to it
    rather than stay in memory."""
    wanted = set(dependents)
    if len(dependents) > PREFETCH_ALL_ABOVE:
        wanted |= set(names.by_path)
    if stored:
        wanted |= _imported(names, fresh)
    unread = sorted(wanted - set(fresh))
    facts: dict[str, bytes | SpillSlot] = {}
    for start in range(0, len(unread), PREFETCH_CHUNK):
        read = store.index.load_facts(repo, unread[start : start + PREFETCH_CHUNK])
        for path, blob in read.items():
            facts[path] = spill.add(blob) if spill is not None else blob
    return facts


def _imported(names: ModuleMap, fresh: Mapping[str, Parsed]) -> set[str]:
    by_name = names.by_name
    wanted: set[str] = set()
    for path, parsed in fresh.items():
        module = names.by_path.get(path)
        family = languages.family_of(path)
        if module is None or family is None or not family.dotted_modules:
            continue
        for _scope, _line, level, target, imported, *_rest in parsed.facts.get("imports", ()):
            full = absolute_module(module.name, module.is_package, level, target)
            if not full:
                continue
            for name in [full, *(f"{full}.{name}" for name in imported)]:
                while name:
                    if name in by_name:
                        wanted.add(by_name[name])
                    name = name.rpartition(".")[0]
    return wanted


class Resolver:
    """The symbol tables of one run — a resolver per family of languages
    (`resolve.family.FamilyResolver`), made when the run first resolves a file of it — and
    what resolves a file with its family's resolver."""

    def __init__(
        self,
        reads: Store,
        repo: str,
        root: Path,
        sources: Mapping[str, SourceFile],
        names: ModuleMap,
        fresh: Mapping[str, Parsed],
        states: Mapping[str, FileState],
        other_paths: Iterable[str],
        prefetched: dict[str, bytes | SpillSlot],
        providers: Providers | None = None,
        module_limit: int | None = None,
        tests: TestLayout = DEFAULT_LAYOUT,
        read_file: Callable[[str], bytes | None] | None = None,
    ) -> None:
        self.providers = providers
        # how a file of the repository that is not parsed is read (settings: tsconfig.json,
        # package.json, go.mod); by default from `root`, the work tree
        self.read_file = read_file or partial(read_inside, root)
        self.tests = tests  # which files are test code (the runners' settings)
        self.reads = reads  # where facts are loaded from (a forked worker's own connection)
        self.repo = repo
        self.root = root
        self.sources = sources
        self.names = names
        self.fresh = fresh
        self.states = states
        self.prefetched = prefetched
        self.module_limit = module_limit or MODULE_LIMIT
        self._resolved_since_forget = 0
        # the facts of the file being written, decoded once for its record, its resolution
        # and its search bodies (a parsed file's facts are kept encoded: `Parsed.facts`)
        self._writing: tuple[str, dict] | None = None
        # the top-level names of this repository's modules (a dependency on another name is
        # one on a package from elsewhere: `crossrepo.recorded_deps`)
        self._local_tops = {name.split(".")[0] for name in names.by_name}
        self._inputs = Sources(
            repo,
            names,
            self._facts_of,
            self._read_text,
            set(names.by_path) | set(other_paths),
            providers,
            tests,
        )
        # each family's resolver, made when a file of it is first resolved; at most about
        # `module_limit` files' facts are held by them together (`forget`)
        self._resolvers: dict[str, FamilyResolver] = {}

    @property
    def reads(self) -> Store:
        return self._reads

    @reads.setter
    def reads(self, store: Store) -> None:
        self._reads = store
        if self.providers is not None:
            self.providers.store = store

    def close(self) -> None:
        """Break the cycles through the symbol tables' loaders (which refer back to this
        object), so their memory goes now, not in a later garbage collection that would stall
        the next call."""
        self._resolvers = {}
        self.fresh = {}
        self.prefetched = {}

    def loaded(self) -> int:
        """Files whose facts the symbol tables hold now."""
        return sum(resolver.loaded() for resolver in self._resolvers.values())

    def forget(self) -> None:
        """Drop every loaded file's facts and everything computed from them; what a later
        resolution consults is loaded and computed again, to the same answers (a symbol
        table's answers never depend on the questions asked before)."""
        for resolver in self._resolvers.values():
            resolver.forget()
        self._resolved_since_forget = 0
        # an index runs with the cycle collector off (index_repository): what was just dropped
        # must hold no reference cycle, or it is never freed and a worker grows by the facts of
        # every file it resolves (tests/test_bounded_memory.py)

    def _keep_bounded(self) -> None:
        """Between two files: forget what is loaded once it is more than `module_limit` files,
        so a run's memory stays flat in the repository's size. A file that consults more than
        half the limit on its own raises the limit to twice that (forgetting after every such
        file would load its modules again for each)."""
        self._resolved_since_forget += 1
        loaded = self.loaded()
        if self._resolved_since_forget == 1 and 2 * loaded > self.module_limit:
            self.module_limit = 2 * loaded
        if loaded > self.module_limit:
            self.forget()

    def batches(self, tasks: list[Task]) -> Iterator[Batch]:
        """Resolve files, WRITE_BATCH at a time."""
        batch = Batch()
        for path, kind in tasks:
            if kind == "file":
                batch.files.append(self.file_write(self.fresh[path], batch))
            else:
                self._edges_write(path, batch)
            self._keep_bounded()
            if len(batch.files) + len(batch.edges) >= WRITE_BATCH:
                yield batch
                batch = Batch()
        if batch.files or batch.edges or batch.unchanged or batch.flows_changed:
            yield batch

    def _edges_write(self, path: str, batch: Batch) -> None:
        """A stored file re-resolved: its edges into the batch, unless they are the same."""
        resolution = self.resolution(path)
        if resolution is None:
            return
        if resolution.over_budget:
            batch.over_budget[path] = resolution.over_budget
        digest = resolution_digest(resolution)
        state = self.states.get(path)
        if state is not None and state.resolution == digest:
            batch.unchanged += 1
            return  # resolved the same as before: nothing to write
        batch.edges.append(
            EdgeWrite(
                path,
                resolution.edges,
                resolution.unresolved,
                import_links(resolution),
                sorted(resolution.deps),
                digest,
                *self.flows_of(path, resolution, batch),
                http=self.http_of(path, resolution, batch),
            )
        )

    def resolution(self, path: str) -> FileResolution | None:
        """Resolve one file with its family's resolver; dependencies as module names (a file
        parsed in this run is read from its parse: `_facts_of`)."""
        family = languages.family_of(path)
        if family is None:
            return None
        resolution = self._family_resolver(family).resolve_file(path)
        if resolution is None:
            return None
        if family.folder_scoped:  # a file depends on which files its folder, and theirs, hold
            consulted = resolution.deps | {path}
            resolution.deps |= {folder_name(p) for p in consulted if not p.startswith(("/", "~"))}
        resolution.deps = recorded_deps(resolution.deps, family, self.providers, self._local_tops)
        return resolution

    def http_rows(self, path: str) -> list[list] | None:
        """A file's HTTP rows, as its resolution has them; a family that finds them alone
        (`resolve.family`) does not resolve the rest of the file."""
        family = languages.family_of(path)
        if family is None:
            return None
        resolver = self._family_resolver(family)
        alone = getattr(resolver, "http_rows", None)
        if alone is not None:
            return alone(path)
        resolution = resolver.resolve_file(path)
        return resolution.http if resolution is not None else None

    def _family_resolver(self, family: languages.Family) -> FamilyResolver:
        resolver = self._resolvers.get(family.name)
        if resolver is None:
            resolver = self._resolvers[family.name] = family_resolver(family, self._inputs)
        return resolver

    def flows_of(
        self, path: str, resolution: FileResolution, batch: Batch | None
    ) -> tuple[bytes | None, str]:
        """A file's flow rows as stored and their digest; marks the batch when they differ
        from what the file had (the flow stage must then run)."""
        encoded = marshal.dumps(resolution.flows) if resolution.flows else None
        digest = shape_digest(resolution.flows)
        state = self.states.get(path)
        if batch is not None and digest != (state.flows if state is not None else ""):
            batch.flows_changed = True
        return encoded, digest

    def http_of(self, path: str, resolution: FileResolution, batch: Batch | None) -> bytes | None:
        """A file's HTTP rows as stored; marks the batch when the file has some or had some
        (the services stage must then run)."""
        state = self.states.get(path)
        if batch is not None and (resolution.http or (state is not None and state.http)):
            batch.http_touched = True
        return encoded_http(resolution)

    def file_write(self, parsed: Parsed, batch: Batch | None = None) -> FileWrite:
        source = parsed.source
        module = self.names.by_path.get(source.path)
        facts = parsed.facts
        self._writing = (source.path, facts)
        record = FileRecord(
            self.repo,
            source.path,
            source.language,
            parsed.sha256,
            source.size,
            source.mtime_ns,
            facts.get("lines", 0),
            self.tests.is_test_file(source.path),
            module.name if module else "",
            facts.get("errors", 0),
            parsed.interface,
            " ".join(module.aliases) if module else "",
        )
        try:
            resolution = self.resolution(source.path)
        finally:
            self._writing = None
        if resolution is None:
            return FileWrite(record, parsed.blob, [], [], [], [], [])
        if resolution.over_budget and batch is not None:
            batch.over_budget[source.path] = resolution.over_budget
        record.resolution = resolution_digest(resolution)
        return FileWrite(
            record,
            parsed.blob,
            resolution.symbols,
            resolution.edges,
            resolution.unresolved,
            import_links(resolution),
            sorted(resolution.deps),
            *self.flows_of(source.path, resolution, batch),
            bodies=symbol_bodies(resolution.symbols, facts.get("words", "")),
            http=self.http_of(source.path, resolution, batch),
        )

    def _facts_of(self, path: str) -> dict | None:
        """A file's facts: parsed in this run, else stored, else read and parsed again (stored
        facts written by an older parser)."""
        if self._writing is not None and self._writing[0] == path:
            return self._writing[1]
        parsed = self.fresh.get(path)
        if parsed is not None:
            return parsed.facts
        if path.startswith("/"):
            return self.providers.facts(path) if self.providers is not None else None
        language = languages.language_of(path)
        if language is None:
            return None
        encoded = self.prefetched.get(path)  # kept: a module forgotten may be loaded again
        blob = encoded.read() if isinstance(encoded, SpillSlot) else encoded
        if blob is None:
            blob = self.reads.index.load_facts(self.repo, [path]).get(path)
        facts = decode_facts(blob) if blob else None
        if facts is None or facts.get("v") != facts_version(language):
            source = self.sources.get(path)
            data = read_source(self.root, source)[0] if source else None
            if data is None:
                return None
            facts = extract_facts(language, data)
        return facts

    def _read_text(self, path: str) -> str | None:
        if path.startswith("/"):
            return None  # a provider's settings come from its manifest (cartograph.manifests)
        data = self.read_file(path)
        return None if data is None else data.decode("utf-8", "replace")


def resolve_and_write(
    resolver: Resolver, writer: Writer, tasks: list[Task], workers: int, store_url: str
) -> Written:
    """Resolve and write every task; on several cores, in forked workers (see the module's
    docstring)."""
    if workers <= 1 or len(tasks) < PARALLEL_MIN_FILES:
        return _resolve_and_write(resolver, writer, tasks)
    # contiguous shares keep a package's files together (they consult the same modules)
    size = -(-len(tasks) // (workers * 4))
    chunks = [tasks[i : i + size] for i in range(0, len(tasks), size)]
    job = _Job(resolver, writer, store_url, writer.store.concurrent_writers)
    written = Written()
    for done in _in_workers(job, chunks, workers):
        written.add(done if isinstance(done, Written) else writer.write(done))
    return written


def _resolve_and_write(resolver: Resolver, writer: Writer, tasks: list[Task]) -> Written:
    written = Written()
    for batch in resolver.batches(tasks):
        written.add(writer.write(batch))
    return written


BODY_TEXT_CAP = 20_000  # characters of one symbol's body text kept for search


def symbol_bodies(symbols: list[SymbolRow], words: str) -> dict[str, str]:
    """Each symbol's body text for search: the words of its decorators (a route's path, an
    option's flag, the messages a checker's method emits), then the words (`facts["words"]`)
    of the lines of its range less the lines of its members — a class keeps its own lines, its
    methods theirs; the module keeps what no top-level definition holds. Capped at
    BODY_TEXT_CAP characters."""
    if not words or not symbols:
        return {}
    lines = words.split("\n")
    ids = {symbol.id for symbol in symbols}
    module = next((symbol.id for symbol in symbols if symbol.kind == "module"), None)
    held: dict[str, set[int]] = {symbol.id: set() for symbol in symbols}  # members' lines
    for symbol in symbols:
        parent = symbol.parent if symbol.parent in ids else module
        if parent is not None and parent != symbol.id:
            held[parent].update(range(symbol.start_line, symbol.end_line + 1))
    bodies: dict[str, str] = {}
    for symbol in symbols:
        members = held[symbol.id]
        last = min(symbol.end_line, len(lines))
        decorated = [line_words(d.encode()) for d in symbol.decorators]
        text = " ".join(
            [d for d in decorated if d]
            + [
                lines[number - 1]
                for number in range(max(symbol.start_line, 1), last + 1)
                if number not in members and lines[number - 1]
            ]
        )
        if text:
            bodies[symbol.id] = text[:BODY_TEXT_CAP]
    return bodies


@dataclass(slots=True)
class _Job:
    """What a forked resolve worker needs: an argument of the worker's function, inherited
    through the fork (never pickled: the symbol tables are large)."""

    resolver: Resolver
    writer: Writer
    store_url: str
    write_here: bool  # the store takes concurrent writers: the worker writes its batches


def _in_workers(job: _Job, chunks: list[list[Task]], workers: int) -> Iterator[Written | Batch]:
    """What the chunks give — each chunk's Written when the workers write, else each of its
    batches as it is resolved — from `workers` forked processes that take the chunks from a
    queue (a fast worker takes more). Results come back through a bounded queue: a worker
    ahead of the parent's writes waits rather than piles batches up in memory. A worker's
    error is raised here; a worker that dies (killed, out of memory) is an IndexingError, not
    a wait forever."""
    context = get_context("fork")
    todo = context.Queue()
    results = context.Queue(maxsize=2 * workers)
    for item in enumerate(chunks):
        todo.put(item)
    for _ in range(workers):
        todo.put(None)
    processes = [
        context.Process(target=_resolve_worker, args=(job, todo, results), daemon=True)
        for _ in range(min(workers, len(chunks)))
    ]
    for process in processes:
        process.start()
    try:
        finished = 0
        while finished < len(chunks):
            try:
                kind, done = results.get(timeout=1.0)
            except queue.Empty:
                dead = [p.exitcode for p in processes if p.exitcode not in (None, 0)]
                if dead:
                    raise IndexingError(f"a resolve worker stopped (exit code {dead[0]})") from None
                continue
            if kind == "error":
                raise done
            if kind == "done":
                finished += 1
            if done is not None:
                yield done
        for process in processes:
            process.join()
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()
                process.join()
        todo.close()
        results.close()


def _resolve_worker(job: _Job, todo: Queue, results: Queue) -> None:
    """A forked worker: resolves chunks until it is told to stop. Its store connection is its
    own (one inherited over fork is the parent's): it reads lazily loaded facts through it and,
    when the store takes concurrent writers, writes its batches; otherwise it hands each batch
    back for the parent to write."""
    from cartograph.store import open_store

    store = open_store(job.store_url)
    job.resolver.reads = store
    if job.write_here:
        job.writer.store = store
    try:
        while (item := todo.get()) is not None:
            _number, tasks = item
            try:
                if job.write_here:
                    results.put(("done", _resolve_and_write(job.resolver, job.writer, tasks)))
                else:
                    for batch in job.resolver.batches(tasks):
                        results.put(("batch", batch))
                    results.put(("done", None))
            except Exception as exc:  # raised again in the parent, with this worker's trace
                results.put(("error", _picklable(exc)))
                return
    finally:
        results.close()
        results.join_thread()  # everything put is delivered before the process ends
        store.close()


def _picklable(exc: Exception) -> Exception:
    """The error as the parent can receive it: itself when it pickles, else a RuntimeError
    with its text and trace."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        trace = "".join(traceback.format_exception(exc))
        return RuntimeError(f"{type(exc).__name__}: {exc}\n{trace}")
    return exc


def resolution_digest(resolution: FileResolution) -> str:
    """What a file's resolution writes (edges, unresolved calls, imports, dependencies), as a
    digest: a re-resolution with the same digest writes nothing."""
    content = (
        sorted(
            (e.type, e.src, e.dst, tuple(e.lines), e.count, e.via, e.confidence, e.order)
            for e in resolution.edges
        ),
        sorted(
            (u.src, u.name, u.line, u.external, u.kind, u.reason) for u in resolution.unresolved
        ),
        sorted((kind, target, tuple(names)) for kind, target, names in resolution.imports),
        sorted(resolution.deps),
        resolution.flows,
        resolution.http,
    )
    # marshal version 2 writes no back-references, so equal content gives equal bytes
    return hashlib.blake2b(marshal.dumps(content, 2), digest_size=12).hexdigest()


def encoded_http(resolution: FileResolution) -> bytes | None:
    """A file's HTTP rows as stored (None: it has none)."""
    return marshal.dumps(resolution.http) if resolution.http else None


def import_links(resolution: FileResolution) -> list[ImportLink]:
    return [ImportLink(kind, target, names) for kind, target, names in resolution.imports]
