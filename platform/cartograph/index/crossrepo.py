"""One graph across repositories: which indexed repository provides an import name, the
provider's stored files as a consumer's resolution reads them, and the names that keep
consumers fresh.

A consumer's resolution binds an import its own repository does not satisfy into the one
other repository that provides it (`Manifest.provides[].imports`): a Python top-level package,
an npm package name, a Go module path. Two repositories providing the same name is an
ambiguity: the consumer's `.cartograph.toml` `[providers]` chooses, else nothing is bound and
the ambiguity is reported. Only repositories indexed in this INDEX_FORMAT take part (their
symbol ids are the ones this resolver makes).

What the resolution looked up elsewhere is recorded among the file's dependencies, so a
provider's run finds its consumers with the same query a repository uses for its own files:
- `~in:<provider>:<module name>` — a module (Python name, or `//path` for the others) read
  from that repository;
- `~pkg:<import name>` — a package name looked up outside the repository, found or not.
A provider's run turns its changed module names and the import names whose provision changed
into those names (`outgoing_names`) and re-resolves the consumers' files that recorded one.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from cartograph import languages
from cartograph.index.dependents import folder_name
from cartograph.index.format import INDEX_FORMAT
from cartograph.index.plan import stored_module_map
from cartograph.manifests import (
    JAVA_SOURCE_ROOTS,
    RESOLVING_ECOSYSTEMS,
    depends_on,
    offers,
    provider_for,
    unbound,
)
from cartograph.model import Manifest, Provided, foreign_path, located
from cartograph.parsing import decode_facts, facts_version
from cartograph.resolve.core import PACKAGE_DEP
from cartograph.resolve.modules import ModuleMap, file_module
from cartograph.resolve.python import STDLIB
from cartograph.resolve.styles import definition_qualnames
from cartograph.store.interfaces import FileState, Store

FOREIGN_DEP = "~in:"


def foreign_dep(repo: str, name: str) -> str:
    return f"{FOREIGN_DEP}{repo}:{name}"


def outgoing_names(
    repo: str, changed: Iterable[str], before: Manifest | None, after: Manifest
) -> set[str]:
    """What a provider's run changed, as its consumers' dependencies name it: its changed
    module names, and the import names it started or stopped providing or provides
    differently (another package name, entry point, module root or version)."""
    names = {foreign_dep(repo, name) for name in changed}
    old = _provisions(before) if before is not None else {}
    new = _provisions(after)
    for name in set(old) | set(new):
        if old.get(name) != new.get(name):
            names.add(PACKAGE_DEP + name)
    return names


def _provisions(manifest: Manifest) -> dict[str, tuple]:
    return {
        name: (p.ecosystem, p.name, p.folder, repr(sorted(p.entry.items())), p.version)
        for p in manifest.provides
        if p.ecosystem in RESOLVING_ECOSYSTEMS
        for name in p.imports
    }


def provided_names(manifest: Manifest) -> set[str]:
    """Every import name a repository provides, as its consumers' dependencies name it (a
    repository that goes away changes all of them)."""
    return {PACKAGE_DEP + name for name in _provisions(manifest)}


class ProviderWatch:
    """The other repositories as a run found them before it read any of them, to tell
    afterwards whether one changed underneath it.

    Runs of different repositories go on at once (two workers, two CLI runs). A consumer's
    run may read a provider before the provider's run completes — its record not written
    yet (nothing binds), or half its files rewritten. Two checks together make any
    interleaving end in the graph a sequential order gives:
    - a provider's run, once its record and manifest are written, marks the names it
      changed pending in every consumer whose stored dependencies name them, and re-resolves
      them after its lock is released (`index.pipeline`);
    - a consumer's run, once its own files, record and pending marks are written and cleared,
      compares every other repository's `Repo.indexed_run` and manifest with what it saw at
      its start (`changed_names`): a provider that completed a run meanwhile may have been
      read half done, so the names it provides are marked pending here and re-resolved.
    Whatever the order of the two, one of them sees the other: the provider's check reads
    the consumer's dependencies after its own record and manifest are written; the
    consumer's check reads them after its dependencies are written (and after it cleared its
    pending names, so a mark it cleared was made by a provider whose change it sees)."""

    def __init__(self, store: Store, repo: str) -> None:
        self.repo = repo
        records = store.repos.list_repos()
        # every repository's last completed run, this one's too (ProviderFiles.valid_for)
        self.runs = {r.name: r.indexed_run for r in records}
        # the repositories indexed in this format (their symbol ids are the ones made here)
        self.current = {r.name for r in records if r.index_format == INDEX_FORMAT}
        self.manifests = store.repos.manifests()

    def changed_names(self, store: Store) -> set[str]:
        """The names, as this repository's dependencies record them, of what the repositories
        that completed a run, changed their manifest or went away since the watch began
        provide or provided; empty when none did (or this repository never looked them up)."""
        now = {r.name: r.indexed_run for r in store.repos.list_repos()}
        manifests = store.repos.manifests()
        changed = {
            name
            for name in set(now) | set(self.runs) | set(manifests) | set(self.manifests)
            if name != self.repo
            and (
                now.get(name) != self.runs.get(name)
                or _manifest_text(manifests.get(name)) != _manifest_text(self.manifests.get(name))
            )
        }
        names: set[str] = set()
        for name in changed:
            for manifest in (self.manifests.get(name), manifests.get(name)):
                if manifest is not None:
                    names |= provided_names(manifest)
        return names if names and store.index.dependents(self.repo, names) else set()


def _manifest_text(manifest: Manifest | None) -> str | None:
    return manifest.to_json() if manifest is not None else None


class ProviderFiles:
    """What is read of the providers' stored files (their states, module names, facts), kept
    for every consumer one process re-resolves after a provider's run: they all read the
    same provider, as long as no repository completed a run since (`runs`)."""

    def __init__(self) -> None:
        self.runs: dict[str, str] | None = None
        self._forget()

    def _forget(self) -> None:
        self.states: dict[str, dict[str, FileState]] = {}
        self.maps: dict[str, ModuleMap] = {}
        self.facts: dict[tuple[str, str], dict | None] = {}
        self.dirs: dict[str, dict[str, list[str]]] = {}
        self.styles: dict[str, dict[str, list[tuple[str, str]]]] = {}

    def valid_for(self, runs: dict[str, str]) -> None:
        """Forget what was read when a repository completed a run since it was read."""
        if self.runs != runs:
            self._forget()
            self.runs = dict(runs)


class Providers:
    """The other repositories one repository's resolution may bind into (implements
    `resolve.core.ForeignCode`), and the Python modules it bound (for the run to record)."""

    def __init__(
        self,
        store: Store,
        repo: str,
        manifest: Manifest,
        watch: ProviderWatch,
        files: ProviderFiles | None = None,
    ) -> None:
        self.store = store  # a forked worker sets its own connection
        self.repo = repo
        self.manifest = manifest
        self.choices = dict(manifest.choices)
        manifests = watch.manifests
        self._manifests = manifests
        self._current = watch.current
        self._offers = offers(manifests, repo, self._current)
        self._style_providers: list[str] | None = None
        self._declared: dict[str, list[str]] = {}
        self.files = files if files is not None else ProviderFiles()
        self.files.valid_for(watch.runs)
        # Python module name → the repository it was read from, or looked up in and missing
        self.bound: dict[str, str] = {}

    def ambiguous(self) -> dict[str, list[str]]:
        """The import names this repository looks up that several other repositories provide
        with nothing telling them apart (manifests.provider_for), or that a choice names a
        repository not providing: nothing is bound to them. Name → the repositories offering
        it."""
        found: dict[str, list[str]] = {}
        for (_ecosystem, name), offered in self._offers.items():
            repos = unbound(self.manifest, offered, name)
            if repos and self.store.index.dependents(self.repo, {PACKAGE_DEP + name}):
                found[name] = repos
        return found

    def offer(self, ecosystem: str, name: str) -> tuple[str, Provided] | None:
        """The repository that provides an import name (manifests.provider_for)."""
        offers = self._offers.get((ecosystem, name))
        return provider_for(self.manifest, offers, name) if offers else None

    # ---------------------------------------------------------------- a provider's files
    def states(self, repo: str) -> dict[str, FileState]:
        if repo not in self.files.states:
            self.files.states[repo] = self.store.index.file_states(repo)
        return self.files.states[repo]

    def module_map(self, repo: str) -> ModuleMap:
        if repo not in self.files.maps:
            self.files.maps[repo] = stored_module_map(self.states(repo))
        return self.files.maps[repo]

    def facts(self, path: str) -> dict | None:
        """A foreign file's stored facts (None when the provider stored them with another
        parser: its next index rewrites them, and re-resolves this consumer)."""
        repo, inner = located(self.repo, path)
        if (repo, inner) not in self.files.facts:
            language = languages.language_of(inner)
            blob = self.store.index.load_facts(repo, [inner]).get(inner) if language else None
            facts = decode_facts(blob) if blob else None
            if facts is not None and facts.get("v") != facts_version(language or ""):
                facts = None
            self.files.facts[(repo, inner)] = facts
        return self.files.facts[(repo, inner)]

    def _dir_index(self, repo: str) -> dict[str, list[str]]:
        if repo not in self.files.dirs:
            index: dict[str, list[str]] = {}
            for path in sorted(self.states(repo)):
                index.setdefault(posixpath.dirname(path), []).append(foreign_path(repo, path))
            self.files.dirs[repo] = index
        return self.files.dirs[repo]

    # ---------------------------------------------------------------- ForeignCode
    def python_module(self, name: str) -> tuple[str, str, bool] | None:
        top = name.split(".")[0]
        if top in STDLIB:
            return None
        found = self.offer("pypi", top)
        if found is None:
            return None
        repo = found[0]
        # recorded found or not: a module the provider lacks now is a lookup that fails, and
        # the provider's run that adds it must re-resolve this file
        self.bound[name] = repo
        path = self.module_map(repo).by_name.get(name)
        if path is None:
            return None
        return foreign_path(repo, path), repo, path.endswith(("__init__.py", "__init__.pyi"))

    def npm_package(self, name: str) -> tuple[str, dict] | None:
        found = self.offer("npm", name)
        if found is None:
            return None
        repo, provided = found
        return foreign_path(repo, provided.folder).rstrip("/"), provided.entry

    def go_module(self, import_path: str) -> tuple[str, str] | None:
        if import_path.startswith("/"):  # a foreign folder: the module it belongs to
            repo, inner = located(self.repo, import_path)
            for (ecosystem, _), offers in self._offers.items():
                for offered_repo, provided in offers:
                    folder = provided.folder
                    if (
                        ecosystem == "go"
                        and offered_repo == repo
                        and (not folder or inner == folder or inner.startswith(folder + "/"))
                    ):
                        return foreign_path(repo, folder).rstrip("/"), provided.name
            return None
        segments = import_path.split("/")
        for k in range(len(segments), 0, -1):
            found = self.offer("go", "/".join(segments[:k]))
            if found is not None:
                repo, provided = found
                return foreign_path(repo, provided.folder).rstrip("/"), provided.name
        return None

    def jvm_package(self, package: str) -> list[str]:
        parts = package.split(".")
        for k in range(len(parts), 1, -1):  # the longest source package that holds it
            found = self.offer("maven", ".".join(parts[:k]))
            if found is None:
                continue
            repo, provided = found
            inner = package.replace(".", "/")
            return [
                path
                for root in JAVA_SOURCE_ROOTS
                for path in self.files_in(
                    foreign_path(repo, posixpath.join(provided.folder, root, inner))
                )
            ]
        return []

    def files_in(self, directory: str) -> list[str]:
        repo, inner = located(self.repo, directory.rstrip("/") + "/")
        return self._dir_index(repo).get(inner.rstrip("/"), [])

    def has(self, path: str) -> bool:
        repo, inner = located(self.repo, path)
        return inner in self.states(repo)

    def declared_packages(self, ecosystem: str) -> list[str]:
        if ecosystem not in self._declared:
            self._declared[ecosystem] = sorted(
                {d.name for d in self.manifest.depends if d.ecosystem == ecosystem}
            )
        return self._declared[ecosystem]

    def style_providers(self) -> list[str]:
        if self._style_providers is None:
            found = set()
            for name, other in self._manifests.items():
                if name == self.repo or name not in self._current:
                    continue
                if any(depends_on(d, p) for d in self.manifest.depends for p in other.provides):
                    found.add(name)
            self._style_providers = sorted(found)
        return self._style_providers

    def style_definitions(self, name: str) -> list[tuple[str, str]]:
        return [hit for repo in self.style_providers() for hit in self._styles(repo).get(name, ())]

    def _styles(self, repo: str) -> dict[str, list[tuple[str, str]]]:
        """A provider's custom property definitions by name: (foreign path, qualname)."""
        if repo not in self.files.styles:
            index: dict[str, list[tuple[str, str]]] = {}
            paths = sorted(
                p
                for p in self.states(repo)
                if (family := languages.family_of(p)) is not None and family.design_tokens
            )
            for start in range(0, len(paths), 500):
                blobs = self.store.index.load_facts(repo, paths[start : start + 500])
                for path in paths[start : start + 500]:
                    facts = decode_facts(blobs[path]) if path in blobs else None
                    if not facts or facts.get("v") != facts_version(
                        languages.language_of(path) or ""
                    ):
                        continue
                    for (defined, *_rest), qual in zip(
                        facts["defs"], definition_qualnames(facts), strict=True
                    ):
                        if defined.startswith("--"):
                            index.setdefault(defined, []).append((foreign_path(repo, path), qual))
            self.files.styles[repo] = index
        return self.files.styles[repo]


def recorded_deps(
    deps: Iterable[str],
    family: languages.Family,
    providers: Providers | None,
    local_tops: set[str],
) -> set[str]:
    """A file's dependencies as stored: module names, with what was read from another
    repository named as `foreign_dep` and the package names looked up outside the repository
    as `PACKAGE_DEP` (a family of dotted modules, Python: every non-standard top-level name not
    the repository's own)."""
    out: set[str] = set()
    for dep in deps:
        if family.dotted_modules:
            out.add(dep)
            bound = providers.bound.get(dep) if providers is not None else None
            if bound is not None:
                out.add(foreign_dep(bound, dep))
            top = dep.split(".")[0]
            if top and top not in local_tops and top not in STDLIB:
                out.add(PACKAGE_DEP + top)
        elif dep.startswith("~"):
            out.add(dep)
        elif dep.startswith("/"):
            repo, inner = located("", dep)
            out.add(foreign_dep(repo, inner if inner.startswith("~") else file_module(inner)))
            if family.folder_scoped:
                out.add(foreign_dep(repo, folder_name(inner)))
        else:
            out.add(file_module(dep))
    return out
