"""`index_repository`: discover, take the lock, then the stages — plan → parse → dependency
plan → resolve → write → flows — each a function returning a value (see the package's
docstring)."""

from __future__ import annotations

import gc
import hashlib
import logging
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from cartograph import languages
from cartograph.configfiles import unreadable_configs
from cartograph.discover import (
    DEFAULT_MAX_BYTES,
    Discovery,
    DiscoveryError,
    discover,
    discover_paths,
    read_inside,
    read_source,
)
from cartograph.errors import CartographError
from cartograph.index import write
from cartograph.index.crossrepo import (
    ProviderFiles,
    Providers,
    ProviderWatch,
    outgoing_names,
    provided_names,
)
from cartograph.index.dependents import (
    changed_names,
    name_changes,
    plan_dependents,
)
from cartograph.index.flows import FLOWS_PENDING, refresh_files, run_flows
from cartograph.index.format import INDEX_FORMAT
from cartograph.index.locks import acquire, lock_owner, release
from cartograph.index.parse import FactsSpill, parse_files, reuse_facts
from cartograph.index.plan import is_rebuild, plan_files, stored_module_map, to_read
from cartograph.index.resolve import Resolver, prefetch, resolve_and_write
from cartograph.index.results import IndexingError, IndexResult
from cartograph.index.services import rematch_others, run_services
from cartograph.manifests import CHOICES_FILE, choice_notes, read_manifest
from cartograph.model import Manifest, Skipped
from cartograph.names import name_for_folder
from cartograph.names import repo_name as valid_repo_name
from cartograph.resolve.core import PACKAGE_DEP
from cartograph.resolve.modules import (
    CONFIG_ALIAS,
    PACKAGING_FILES,
    PROJECT_FILES,
    ModuleMap,
    ModuleName,
    compute_module_map,
    declared_package_roots,
    file_module,
    module_map,
)
from cartograph.store.interfaces import Store, StoreError
from cartograph.testlayout import read_test_layout

log = logging.getLogger("cartograph.index")

# files whose content changes how a family's imports resolve (see module_names)
CONFIG_FILES = {
    family.name: languages.config_files(family.name)
    for family in languages.FAMILY_LIST
    if not family.dotted_modules
}
RECURSION_LIMIT = 20_000  # resolution follows chains (bases, re-exports) recursively


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
    owner = lock_owner()
    acquire(store, repo_name, owner, lock_timeout, progress)
    locked_at = time.monotonic()
    # the cycle collector is off while an index runs (it allocates millions of long-lived
    # rows, and nothing an index drops is held in a reference cycle: see Resolver.forget); it
    # is a switch of the whole process, so only an index on the main thread turns it off (the
    # CLI, a Celery worker): on another thread (the API's jobs without a broker) it would be
    # off for every request the server answers meanwhile
    collector_off = gc.isenabled() and threading.current_thread() is threading.main_thread()
    if collector_off:
        gc.disable()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    try:
        if discovery.partial and not _partial_is_enough(store, repo_name, discovery):
            discovery = discover(discovery.root, max_bytes=max_bytes)
        if multiprocessing.current_process().daemon:
            workers = 1  # a daemonic process (a Celery prefork child) cannot have children
        result = IndexResult(repo_name, str(discovery.root))
        result.seconds["discover"] = round(time.perf_counter() - started, 4)
        cores = workers or os.cpu_count() or 1
        consumers, stale = _run(
            _Run(store, discovery, repo_name, owner, locked_at, cores),
            result,
            progress or (lambda _msg: None),
            origin,
        )
        if stale:  # a provider completed a run while this one read it: its names again
            settled, routes_changed = _settle(store, repo_name, owner, locked_at, cores, None)
            result.reresolved += settled or 0
            result.routes_changed = result.routes_changed or routes_changed
        if history and discovery.git and discovery.head_sha:
            _mine(store, discovery, repo_name, result, progress, remine)
    except DiscoveryError as exc:
        raise IndexingError(str(exc)) from exc
    finally:
        if collector_off:
            gc.enable()
        release(store, repo_name, owner)
    # the consumers' edges into what changed, after this run's lock is released (a consumer's
    # own run never waits for this repository's lock: no two runs wait for each other)
    refresh_consumers(store, consumers, result, workers=workers, lock_timeout=lock_timeout)
    if result.routes_changed:  # other repositories' requests may reach other routes now
        rematch_others(store, repo_name, lock_timeout)
    return result


def forget_repository(store: Store, name: str) -> set[str]:
    """Delete a repository's graph (under its index lock, which the caller holds) after
    marking, in the repositories that bind into it, every import name it provided as
    pending; returns those consumers, for `refresh_consumers` once the lock is released."""
    manifest = store.repos.manifests().get(name)
    names = provided_names(manifest) if manifest is not None else set()
    consumers = set(store.index.dependents_across(names, name)) if names else set()
    for consumer in consumers:
        store.index.add_pending(consumer, names)
    store.repos.delete_repo(name)
    store.impact.forget_impact(name)
    return consumers


def refresh_consumers(
    store: Store,
    consumers: Iterable[str],
    result: IndexResult,
    *,
    workers: int | None = None,
    lock_timeout: float = 600.0,
) -> None:
    """Re-resolve, in each consumer, the files whose resolution consulted what a provider's
    run changed (its pending names, marked before that run wrote); a consumer whose lock
    stays held, or whose work tree is gone, keeps them pending for its next run."""
    started = time.perf_counter()
    names = sorted(consumers)
    processes = min(len(names), workers or os.cpu_count() or 1)
    if multiprocessing.current_process().daemon:
        processes = 1  # a daemonic process (a Celery prefork child) cannot have children
    if processes > 1:
        # one process per share of the consumers (independent repositories, locks and
        # writes), each with its own store connection; started by a fork server, never
        # forked from this process, whose other threads (a Celery worker's, a store
        # driver's) may hold locks a forked child would wait on forever
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["cartograph.index.pipeline"])
        shares = [names[i::processes] for i in range(processes)]
        with context.Pool(processes) as pool:
            outcomes = [
                outcome
                for done in pool.starmap(
                    _refresh_share, [(store.url, share, lock_timeout) for share in shares]
                )
                for outcome in done
            ]
    else:
        outcomes = _refresh_each(store, names, lock_timeout)
    for consumer, done, error in sorted(outcomes, key=lambda o: o[0]):
        if error:
            result.notes.append(f"{consumer}: not re-resolved now ({error}); its next run will")
        elif done is None:
            result.notes.append(f"{consumer}: its next index run re-resolves its files")
        else:
            result.consumers[consumer] = done
    if consumers:
        result.seconds["consumers"] = round(time.perf_counter() - started, 4)


def _refresh_each(
    store: Store, names: list[str], lock_timeout: float
) -> list[tuple[str, int | None, str]]:
    """(consumer, files re-resolved or None, error) of each; the providers' stored files are
    read once for all of them."""
    shared = ProviderFiles()
    outcomes: list[tuple[str, int | None, str]] = []
    for consumer in names:
        try:
            done = refresh_dependents(
                store, consumer, workers=1, lock_timeout=lock_timeout, provider_files=shared
            )
        except (IndexingError, StoreError) as exc:  # its marks stay: its next run does it
            outcomes.append((consumer, None, str(exc)))
            continue
        outcomes.append((consumer, done, ""))
    return outcomes


def _refresh_share(
    store_url: str, names: list[str], lock_timeout: float
) -> list[tuple[str, int | None, str]]:
    """A process's share of the consumers, through its own store connection."""
    from cartograph.store import open_store

    store = open_store(store_url)
    try:
        return _refresh_each(store, names, lock_timeout)
    finally:
        store.close()


def refresh_dependents(
    store: Store,
    repo: str,
    *,
    workers: int | None = None,
    lock_timeout: float = 600.0,
    provider_files: ProviderFiles | None = None,
) -> int | None:
    """Stages 3 to 6 for a repository nothing changed in but the names marked pending in it
    (another repository's run changed code it binds into): re-resolve the stored files that
    consulted them, from their stored facts, under the repository's index lock. The number of
    files re-resolved; None when this needs a full run (never indexed in this format, or its
    work tree, which its settings are read from, is gone)."""
    owner = lock_owner()
    acquire(store, repo, owner, lock_timeout, None)
    routes_changed = False
    try:
        done, routes_changed = _settle(
            store, repo, owner, time.monotonic(), workers or os.cpu_count() or 1, provider_files
        )
        return done
    finally:
        release(store, repo, owner)
        if routes_changed:  # after the lock: other repositories' requests may reach them
            rematch_others(store, repo, lock_timeout)


MAX_SETTLE_ROUNDS = 5


def _settle(
    store: Store,
    repo: str,
    owner: str,
    locked_at: float,
    workers: int,
    provider_files: ProviderFiles | None,
) -> tuple[int | None, bool]:
    """Re-resolve the names pending in a repository (whose index lock the caller holds), again
    while a provider completed a run during the last round (`ProviderWatch`); after
    MAX_SETTLE_ROUNDS the marks stay for the provider's own re-resolution of its consumers,
    which follows its run. (Files re-resolved or None: a full run is needed; routes changed.)"""
    total, routes_changed = 0, False
    for _round in range(MAX_SETTLE_ROUNDS):
        watch = ProviderWatch(store, repo)
        done = _resolve_pending(store, repo, owner, locked_at, workers, watch, provider_files)
        if done is None:
            return None, routes_changed
        total += done[0]
        routes_changed = routes_changed or done[1]
        stale = watch.changed_names(store)
        if not stale:
            break
        store.index.add_pending(repo, stale)
    return total, routes_changed


def _resolve_pending(
    store: Store,
    repo: str,
    owner: str,
    locked_at: float,
    workers: int,
    watch: ProviderWatch,
    provider_files: ProviderFiles | None,
) -> tuple[int, bool] | None:
    """One round of `_settle`: (files re-resolved, routes changed), or None."""
    record = store.repos.get_repo(repo)
    if record is None or record.index_format != INDEX_FORMAT:
        return None
    pending = store.index.pending(repo)
    if not pending:
        return 0, False
    root = Path(record.root) if record.root else None
    if root is None or not root.is_dir():
        return None
    states = store.index.file_states(repo)
    names = stored_module_map(states)
    dependencies = plan_dependents(store, repo, states, set(), {}, set(states))
    # the files not indexed (tsconfig.json, package.json) steer some families' imports only
    # (TypeScript/JavaScript): the tree is listed when one of those is re-resolved
    steered = any(
        (family := languages.family_of(p)) is not None and family.reads_other_paths
        for p in dependencies.dependents
    )
    other_paths = discover(root).other_paths if steered else []
    manifest = watch.manifests.get(repo) or Manifest(repo)
    spill = FactsSpill()
    resolver = Resolver(
        store,
        repo,
        root,
        {},  # stored facts are of this format (a rebuild is a full run): no source reads
        names,
        {},
        states,
        other_paths,
        prefetch(store, repo, names, {}, dependencies.dependents, True, spill),
        Providers(store, repo, manifest, watch, provider_files),
        tests=manifest.tests,
    )
    tasks = [(path, "edges") for path in sorted(dependencies.dependents)]
    try:
        write.begin(store, repo, {FLOWS_PENDING} if tasks else set(), [])
        writer = write.Writer(store, repo, owner, replace=True)
        writer.lock_refreshed = locked_at
        written = resolve_and_write(resolver, writer, tasks, workers, store.url)
    finally:
        resolver.close()
        spill.close()
    written_paths = [path for path, _kind in tasks]
    if FLOWS_PENDING in dependencies.pending or written.flows:
        run_flows(store, repo, written_paths)
    else:
        rewritten = [p for p in written_paths if states[p].derived]
        if rewritten:
            refresh_files(store, repo, rewritten)
    routes_changed = False
    if written.http or FLOWS_PENDING in dependencies.pending:
        routes_changed = run_services(store, repo, manifest).routes_changed
    store.index.finish_run(repo)
    store.index.clear_pending(repo)
    return len(tasks), routes_changed


class _Run:
    """What every stage of one run is given."""

    __slots__ = ("discovery", "locked_at", "owner", "repo", "store", "workers")

    def __init__(
        self,
        store: Store,
        discovery: Discovery,
        repo: str,
        owner: str,
        locked_at: float,
        workers: int,
    ) -> None:
        self.store = store
        self.discovery = discovery
        self.repo = repo
        self.owner = owner  # of the index lock, taken at `locked_at` (time.monotonic)
        self.locked_at = locked_at
        self.workers = workers


def _run(
    run: _Run,
    result: IndexResult,
    progress: Callable[[str], None],
    origin: tuple[str, str] | None,
) -> tuple[set[str], bool]:
    """The run's stages; the other repositories to re-resolve after it (its consumers), and
    whether a provider completed a run while this one read it (its names are then pending
    here: see ProviderWatch)."""
    store, discovery, repo = run.store, run.discovery, run.repo
    timer = _Timer(result)
    watch = ProviderWatch(store, repo)  # before anything of another repository is read
    previous = store.repos.get_repo(repo)
    rebuild = is_rebuild(previous.index_format if previous else None, INDEX_FORMAT)
    states = {} if rebuild else store.index.file_states(repo)
    if rebuild:
        # from scratch: whatever is stored goes first, record or not (a first index killed
        # before its record was written leaves files and edges that would be written twice);
        # the index lock held by this run is not part of it
        store.repos.delete_repo(repo)
    timer.lap("discover")

    # 1. plan: which files to parse (reading those whose size or mtime changed)
    old_names = stored_module_map(states)
    if discovery.partial:  # named files only, none of which changes the layout
        names = old_names
        skipped = store.index.skipped(repo)
    else:
        names = module_names(discovery)
        skipped = list(discovery.skipped)
    # which files are test code, as the runners' settings say: a file whose answer changes is
    # rewritten (its record), like one whose module name changes
    before = None if rebuild else watch.manifests.get(repo)
    tests = (
        (before or Manifest(repo)).tests
        if discovery.partial
        else read_test_layout(
            discovery.all_paths,
            lambda path: read_inside(discovery.root, path),
            _library_dirs(names),
        )
    )
    digests: dict[str, str] = {}
    unreadable: dict[str, str] = {}
    for source in to_read(states, discovery.files):
        data, reason, sha = read_source(discovery.root, source)
        if data is None:
            unreadable[source.path] = reason
        else:
            digests[source.path] = sha  # the bytes go: the parse workers read them again
    plan = plan_files(
        states,
        discovery.files,
        names,
        digests,
        unreadable,
        skipped=skipped,
        partial=discovery.partial,
        is_test=tests.is_test_file,
    )
    result.unchanged = plan.unchanged
    result.files = len(plan.present)
    result.deleted = len(plan.deleted)
    timer.lap("hash")

    # 2. parse: changed files on the pool; renamed files from their stored facts
    if plan.parse:
        progress(f"parsing {len(plan.parse)} files")
    spill = FactsSpill()
    fresh = parse_files(discovery.root, plan.parse, run.workers, spill)
    plan.skipped += [
        Skipped(source.path, "unreadable", source.size)
        for source, _sha in plan.parse
        if source.path not in fresh
    ]
    result.parsed = len(fresh)
    result.syntax_errors = sorted(p for p, f in fresh.items() if f.errors)
    for source, sha in plan.renamed:
        parsed = reuse_facts(store, repo, discovery.root, source, sha)
        if parsed is None:
            plan.skipped.append(Skipped(source.path, "unreadable", source.size))
        else:
            fresh[source.path] = parsed
    result.skipped = len(plan.skipped)
    timer.lap("parse")

    # 3. dependency plan: the stored files that consulted a changed name — here, and in the
    # other repositories that bind into this one (marked pending in them before any write)
    manifests = watch.manifests
    manifest = (
        before or Manifest(repo)
        if discovery.partial
        else read_manifest(
            repo,
            discovery.all_paths,
            lambda path: read_inside(discovery.root, path),
            _provided_packages(names),
            discovery.all_paths,
        )
    )
    manifest.tests = tests
    result.notes += manifest.notes + choice_notes(manifest, manifests)
    if not discovery.partial:
        result.notes += unreadable_configs(
            discovery.all_paths, lambda path: read_inside(discovery.root, path)
        )
    # a module whose edit changed only some of its top-level names re-resolves only the files
    # that can name them, unless another repository binds into what changed (its files are
    # not read, and one could lead back here)
    narrowed = name_changes(store, repo, states, fresh, old_names, names)
    choices = _changed_choices(before, manifest)
    local = changed_names(old_names, names, states, fresh, plan.deleted, narrowed.modules)
    changed = local | choices | set().union(*narrowed.modules.values())
    outgoing = outgoing_names(repo, changed, before, manifest)
    consumers = set(store.index.dependents_across(outgoing, repo)) if outgoing else set()
    if consumers:
        dependencies = plan_dependents(store, repo, states, changed, fresh, plan.present)
    else:
        dependencies = plan_dependents(
            store,
            repo,
            states,
            local | choices,
            fresh,
            plan.present,
            narrowed,
            (discovery.root, names),
        )
    result.reresolved = len(dependencies.dependents)
    for consumer in consumers:
        store.index.add_pending(consumer, outgoing)
    providers = Providers(store, repo, manifest, watch)

    # 4. resolve, and 5. write: each file in one transaction
    resolver = Resolver(
        store,
        repo,
        discovery.root,
        {f.path: f for f in discovery.files},
        names,
        fresh,
        states,
        discovery.other_paths,
        prefetch(store, repo, names, fresh, dependencies.dependents, bool(states), spill),
        providers,
        tests=tests,
    )
    tasks = [(path, "file") for path in sorted(fresh)]
    tasks += [(path, "edges") for path in sorted(dependencies.dependents)]
    # the flow stage runs after the writes when one of them touches a file with flow rows
    # or derived edges; the mark makes the next run do it if this one stops before
    pending = set(dependencies.pending)
    if tasks or plan.deleted:
        pending.add(FLOWS_PENDING)
    written_paths = [path for path, _kind in tasks]
    flows_needed = (
        not states
        or FLOWS_PENDING in dependencies.pending
        or any(states[p].flows for p in plan.deleted if p in states)
    )
    try:
        write.begin(store, repo, pending, plan.deleted)
        writer = write.Writer(store, repo, run.owner, replace=bool(states))
        writer.lock_refreshed = run.locked_at
        written = resolve_and_write(resolver, writer, tasks, run.workers, store.url)
    finally:
        resolver.close()
    result.symbols_written += written.symbols
    result.edges_written += written.edges
    result.reresolved_unchanged += written.reresolved_unchanged
    if written.over_budget:
        result.notes.append(over_budget_note(written.over_budget))
    timer.lap("resolve+write")
    fresh.clear()  # every file is written: its facts go before the flow stage reads its rows
    spill.close()

    # 6. flows: the calls through values no single file decides (cartograph.index.flows)
    if flows_needed or written.flows:
        result.derived_edges = run_flows(store, repo, written_paths)
        timer.lap("flows")
    else:
        rewritten = [p for p in written_paths if p in states and states[p].derived]
        if rewritten:
            refresh_files(store, repo, rewritten)
            timer.lap("flows")

    # 7. services: HTTP routes and the requests that reach them (cartograph.index.services)
    services_needed = (
        not states
        or written.http
        or FLOWS_PENDING in dependencies.pending
        or any(states[p].http for p in plan.deleted if p in states)
    )
    if services_needed:
        services = run_services(store, repo, manifest)
        result.routes, result.http_calls = services.routes, services.calls
        result.routes_changed = services.routes_changed
        timer.lap("services")

    dirty = discovery.dirty  # a look at named files asks git about the whole tree too
    write.finish(
        store,
        repo,
        discovery,
        index_format=INDEX_FORMAT,
        previous=previous,
        pending=bool(pending),
        touched=plan.touched,
        skipped=plan.skipped,
        packages=_provided_packages(names),
        dirty=dirty,
        origin=origin,
    )
    store.repos.set_manifest(manifest)
    if outgoing:
        # now that the record and the manifest say what this run made: every consumer that
        # recorded a lookup of what changed, including one whose run read this one half done
        # and wrote since the marks made before the writes (see ProviderWatch)
        found = set(store.index.dependents_across(outgoing, repo))
        for consumer in found:
            store.index.add_pending(consumer, outgoing)
        consumers |= found
    stale = watch.changed_names(store)
    if stale:
        store.index.add_pending(repo, stale)
    for name, offered in sorted(providers.ambiguous().items()):
        result.notes.append(
            f"{name} is provided by {', '.join(offered)}: nothing bound to it; choose one in "
            f"{CHOICES_FILE} [providers]"
        )
    result.indexed_sha = discovery.head_sha
    result.dirty = dirty
    timer.lap("finish")
    return consumers, bool(stale)


def over_budget_note(files: dict[str, int]) -> str:
    """What a run says of the references it left unresolved at a budget (resolve.core)."""
    worst = sorted(files.items(), key=lambda item: (-item[1], item[0]))
    shown = ", ".join(f"{path} ({count})" for path, count in worst[:5])
    more = f" and {len(worst) - 5} more files" if len(worst) > 5 else ""
    return (
        f"{sum(files.values())} references left unresolved: resolving them went past the "
        f"work budget of a reference or a file ({shown}{more})"
    )


def _changed_choices(before: Manifest | None, after: Manifest) -> set[str]:
    """The import names whose chosen provider changed (`.cartograph.toml` [providers])."""
    old = before.choices if before is not None else {}
    return {
        PACKAGE_DEP + name
        for name in set(old) | set(after.choices)
        if old.get(name) != after.choices.get(name)
    }


def module_names(discovery: Discovery) -> ModuleMap:
    """Every indexed file's module name: Python files by Python's rules, other files by
    their path; a digest of the configuration that steers their imports rides along as an
    alias, so a changed tsconfig.json or go.mod resolves those files again."""
    family = {f.path: languages.family(f.language) for f in discovery.files}
    dotted = [path for path, name in family.items() if languages.FAMILY[name].dotted_modules]
    declared = declared_package_roots(_packaging_files(discovery)) if dotted else {}
    named = dict(compute_module_map(dotted, discovery.all_paths, declared).by_path)
    digests = {
        kind: _config_digest(discovery.root, discovery.all_paths, names)
        for kind, names in CONFIG_FILES.items()
    }
    for source in discovery.files:
        if source.path not in named:
            digest = digests.get(family[source.path], "")
            alias = (digest,) if digest else ()
            named[source.path] = ModuleName(file_module(source.path), False, alias)
    return module_map(named)


def _packaging_files(discovery: Discovery) -> dict[str, bytes]:
    """The packaging settings of the repository's Python projects (pyproject.toml, setup.cfg),
    read from the work tree; vendored copies under node_modules are not the repository's."""
    found: dict[str, bytes] = {}
    for path in sorted(discovery.all_paths):
        if path.rpartition("/")[2] in PACKAGING_FILES and "node_modules/" not in path:
            data = read_inside(discovery.root, path)
            if data is not None:
                found[path] = data
    return found


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


NOT_PROVIDED = ("tests", "test", "docs", "doc", "examples", "example", "benchmarks")


def _library_dirs(names: ModuleMap) -> list[str]:
    """The folders of the packages the repository ships (a runner collecting tests there runs
    doctests of the library: its files are not test code)."""
    found = []
    for top in _provided_packages(names):
        path = names.by_name.get(top)
        if path is not None:
            found.append(path.rpartition("/")[0] if names.by_path[path].is_package else path)
    return found


def _provided_packages(names: ModuleMap) -> list[str]:
    """Top-level importable names the repository provides (its Package nodes): not those of
    its tests, documentation or examples."""
    tops = set()
    for path, module in names.by_path.items():
        if module.name.startswith("//") or path.split("/")[0] in NOT_PROVIDED:
            continue  # not a Python module, or not part of what the repository ships
        top = module.name.split(".")[0]
        if module.is_package or "." in module.name:
            tops.add(top)
    return sorted(t for t in tops if t not in NOT_PROVIDED)


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
