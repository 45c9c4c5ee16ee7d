"""Resolution of files as a change would make them, written nowhere: the symbols and edges
the new (or old) versions of a few files have against the rest of the repository as stored
(`Versions`). `impact` asks it for both sides of a diff; a session's overlay
(`agents.overlay`) for what its edits would write."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol, TypeVar

from cartograph import languages
from cartograph.discover import SourceFile, WorkTreeFiles
from cartograph.errors import CartographError, ErrorKind
from cartograph.index.crossrepo import Providers, ProviderWatch
from cartograph.index.parse import Parsed
from cartograph.index.plan import stored_module_map
from cartograph.index.resolve import Resolver, prefetch
from cartograph.model import FileWrite, Manifest, SymbolRow
from cartograph.parsing import extract_facts
from cartograph.resolve.core import FileResolution
from cartograph.resolve.modules import ModuleName, compute_module_map, file_module, module_map
from cartograph.resolve.python import ModuleFacts
from cartograph.resolve.python import module_symbols as python_symbols
from cartograph.store.interfaces import FileState, Store

T = TypeVar("T")

# what a FileWrite's rows cost held in memory, about (measured on a layer of 4,668 generated
# functions: 9.7 MB held, 2,074 bytes a symbol with its edge and unresolved call)
SYMBOL_WEIGHT = 1536
ROW_WEIGHT = 256


class OverBudget(CartographError):
    """Resolving these versions would take longer, or hold more, than its budget allows."""

    kind = ErrorKind.TOO_LARGE


class Budget:
    """A time and memory allowance for resolving versions (`Versions`): checked before each
    file is parsed and after each is resolved (a file's own cost is bounded by the size of
    the files the index reads); `weight` counts what the writes made so far hold, about."""

    def __init__(self, seconds: float, weight: int) -> None:
        self.seconds = seconds
        self.limit = weight
        self.deadline = time.monotonic() + seconds
        self.weight = 0

    def check(self) -> None:
        if time.monotonic() >= self.deadline:
            raise OverBudget(f"took longer than {self.seconds:g} s to resolve")

    def charge(self, write: FileWrite) -> None:
        self.weight += weight_of(write)
        if self.weight > self.limit:
            raise OverBudget(f"would hold more than {self.limit:,} bytes once resolved")
        self.check()


def weight_of(write: FileWrite) -> int:
    """About how many bytes a file's write holds in memory."""
    rows = len(write.edges) + len(write.unresolved) + len(write.imports)
    text = sum(len(body) for body in write.bodies.values())
    return SYMBOL_WEIGHT * len(write.symbols) + ROW_WEIGHT * rows + text


class RepositoryFiles(Protocol):
    """The repository's files a what-if does not parse, as its resolver asks for them: the
    names of the files of no indexed language and their bytes (settings: tsconfig.json,
    package.json, go.mod)."""

    def other_paths(self) -> list[str]: ...

    def read(self, path: str) -> bytes | None: ...


class Versions:
    """Files as a change makes them (path → text, None: gone), parsed, with the module names
    the repository would give them. Two ways to bound the work: a `budget` (an agent session's
    overlay: time and memory) raises OverBudget when spent, the answer refused; `stop`
    (impact's deadline, asked before each file) leaves the files not parsed when it says so
    out (`unread`, in the order given), the others answered as if the change did not touch
    them. The files the change leaves alone and that are not parsed (settings) are read
    through `files`: by default the work tree the repository was indexed from, when it is
    on this host; a settings file the change touches is read as the change makes it."""

    def __init__(
        self,
        store: Store,
        repo: str,
        contents: Mapping[str, bytes | None],
        states: Mapping[str, FileState] | None = None,
        budget: Budget | None = None,
        stop: Callable[[], bool] | None = None,
        files: RepositoryFiles | None = None,
    ) -> None:
        self.store = store
        self.budget = budget
        self.repo = repo
        self.contents = contents
        self.files = files or WorkTreeFiles(_work_tree(store, repo))
        self._other_paths: list[str] | None = None
        self.states = store.index.file_states(repo) if states is None else states
        self.manifest = store.repos.manifests().get(repo) or Manifest(repo)
        self.gone = {path for path, data in contents.items() if data is None}
        self.fresh: dict[str, Parsed] = {}
        self.unread: list[str] = []
        for path, data in contents.items():
            language = languages.language_of(path) if data is not None else None
            if data is None or language is None:
                continue
            if budget is not None:
                budget.check()
            if stop is not None and stop():
                self.unread.append(path)
                continue
            facts = extract_facts(language, data)
            source = SourceFile(path, len(data), 0, language)
            sha = hashlib.sha256(data).hexdigest()
            self.fresh[path] = Parsed.of(source, sha, facts)
        kept = set(self.states) - self.gone
        self.names = _module_names(stored_module_map(self.states).by_path, kept, set(self.fresh))

    def symbols(self) -> dict[str, list[SymbolRow]]:
        """Each file's symbols: a Python file's from its own facts (no other file is read),
        the others' by resolving them."""
        found: dict[str, list[SymbolRow]] = {}
        others = set()
        for path, parsed in self.fresh.items():
            module = self.names.by_path.get(path)
            family = languages.family_of(path)
            if family is not None and family.dotted_modules and module is not None:
                is_test = self.manifest.tests.is_test_file(path)
                mod = ModuleFacts(
                    module.name, path, module.is_package, parsed.facts, self.repo, is_test
                )
                found[path] = python_symbols(self.repo, mod)
            else:
                others.add(path)
        if others:
            for path, resolution in self.resolve(others).items():
                found[path] = resolution.symbols
        return found

    def resolve(self, only: set[str] | None = None) -> dict[str, FileResolution]:
        """The files (`only` these) resolved as if the repository held these versions; files
        without a module name are left out."""

        def resolutions(resolver: Resolver) -> dict[str, FileResolution]:
            resolved = {}
            for path in self.fresh:
                if only is not None and path not in only:
                    continue
                resolution = resolver.resolution(path)
                if resolution is not None:
                    resolved[path] = resolution
            return resolved

        return _with_resolver(self, resolutions)

    def http_rows(self, only: set[str]) -> dict[str, list[list]]:
        """The HTTP rows of these files as `resolve` gives them (`FileResolution.http`),
        without resolving the rest of each file where the family can; files without a
        module name are left out."""

        def rows(resolver: Resolver) -> dict[str, list[list]]:
            found = {}
            for path in self.fresh:
                if path in only and (made := resolver.http_rows(path)) is not None:
                    found[path] = made
            return found

        return _with_resolver(self, rows)

    def writes(self) -> list[FileWrite]:
        """What an index run would write for each of these files (its record, symbols, edges,
        unresolved calls, imports and body words) against the rest of the repository as
        stored; nothing is written."""

        def writes(resolver: Resolver) -> list[FileWrite]:
            made = []
            for parsed in self.fresh.values():
                made.append(resolver.file_write(parsed))
                if self.budget is not None:
                    self.budget.charge(made[-1])
            return made

        return _with_resolver(self, writes)

    def read_file(self, path: str) -> bytes | None:
        """A file that is not parsed (a setting), as the change leaves it."""
        return self.contents[path] if path in self.contents else self.files.read(path)

    def other_paths(self) -> list[str]:
        """The files of no indexed language the repository holds with the change made."""
        if self._other_paths is None:
            added = {p for p, data in self.contents.items() if data is not None}
            listed = set(self.files.other_paths()) | added
            self._other_paths = sorted(p for p in listed - self.gone if p not in self.fresh)
        return self._other_paths


def _work_tree(store: Store, repo: str) -> Path | None:
    record = store.repos.get_repo(repo)
    root = Path(record.root) if record is not None and record.root else None
    return root if root is not None and root.is_dir() else None


def _with_resolver(versions: Versions, work: Callable[[Resolver], T]) -> T:
    """`work` done with a resolver over these versions and the rest of the repository."""
    store, repo, states = versions.store, versions.repo, versions.states
    names, fresh, gone = versions.names, versions.fresh, versions.gone
    # the files not parsed steer some families' imports only (TypeScript/JavaScript): they
    # are listed when a file of one of those is resolved
    steered = any(
        (family := languages.family_of(path)) is not None and family.reads_other_paths
        for path in fresh
    )
    watch = ProviderWatch(store, repo)
    manifest = watch.manifests.get(repo) or versions.manifest
    resolver = Resolver(
        store,
        repo,
        _work_tree(store, repo) or Path("/nonexistent"),
        {path: parsed.source for path, parsed in fresh.items()},
        names,
        fresh,
        {path: state for path, state in states.items() if path not in gone},
        versions.other_paths() if steered else [],
        prefetch(store, repo, names, fresh, set(), True),
        Providers(store, repo, manifest, watch),
        tests=manifest.tests,
        read_file=versions.read_file,
    )
    try:
        return work(resolver)
    finally:
        resolver.close()


def _module_names(stored: Mapping[str, ModuleName], kept: set[str], added: set[str]):
    """The stored module names of the files still there, and names for the files the change
    adds: Python files named as a stored sibling's package names them (else by Python's rules
    over the paths), other files by their path."""
    named = {path: name for path, name in stored.items() if path in kept}
    new = sorted(added - set(named))
    python = [p for p in new if (family := languages.family_of(p)) and family.dotted_modules]
    if python:
        computed = compute_module_map(python, set(named) | set(new), {}).by_path
        siblings: dict[str, ModuleName] = {}  # folder → the module of its first .py file
        for other, known in named.items():
            if other.endswith(".py"):
                siblings.setdefault(other.rpartition("/")[0], known)
        for path in python:
            module = _named_like_sibling(path, siblings) or computed.get(path)
            if module is not None:
                named[path] = module
                if path.endswith(".py"):
                    siblings.setdefault(path.rpartition("/")[0], module)
    for path in new:
        if path not in named:
            named[path] = ModuleName(file_module(path), False)
    return module_map(named)


def _named_like_sibling(path: str, siblings: Mapping[str, ModuleName]) -> ModuleName | None:
    """`pkg/new.py` beside a stored `pkg/old.py` named `a.pkg.old` is `a.pkg.new`
    (`siblings`: a named .py file's module, by its folder)."""
    folder, _, base = path.rpartition("/")
    stem = base.rpartition(".")[0]
    is_package = stem == "__init__"
    module = siblings.get(folder)
    if module is None:
        return None
    package = module.name if module.is_package else module.name.rpartition(".")[0]
    if is_package:
        return ModuleName(package, True) if package else None
    return ModuleName(f"{package}.{stem}" if package else stem, False)
