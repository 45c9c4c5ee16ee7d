"""What every query shares: finding the symbol a user means, freshness, the answer envelope."""

from __future__ import annotations

import difflib
import functools
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from cartograph.errors import Ambiguous, Invalid, NotFound
from cartograph.identifiers import split_words
from cartograph.manifests import RESOLVING_ECOSYSTEMS, declared, offers, unbound, version_mismatch
from cartograph.model import Manifest, Repo, SymbolRow
from cartograph.query.answers import cacheable, judged
from cartograph.query.ranking import match_words
from cartograph.resolve.core import PACKAGE_DEP
from cartograph.store.interfaces import GraphReader, Store

MAX_LIMIT = 500
NAME_CANDIDATES = 1000  # symbols of one name read to find a dotted suffix among them


class QueryError(Invalid):
    """A question that cannot be answered as asked; the message says what to do instead."""


class SymbolNotFound(QueryError, NotFound):
    kind = NotFound.kind

    def __init__(self, text: str, suggestions: list[SymbolRow]) -> None:
        self.text = text
        self.suggestions = suggestions
        hint = ""
        if suggestions:
            hint = " Close matches: " + ", ".join(s.qualname for s in suggestions[:8]) + "."
        super().__init__(f"no symbol named {text!r} in the index.{hint}")


class AmbiguousSymbol(QueryError, Ambiguous):
    kind = Ambiguous.kind

    def __init__(self, text: str, candidates: list[SymbolRow]) -> None:
        self.text = text
        self.candidates = candidates
        listed = "; ".join(
            f"{c.qualname} ({c.repo}:{c.path}:{c.start_line})" for c in candidates[:10]
        )
        more = f" and {len(candidates) - 10} more" if len(candidates) > 10 else ""
        super().__init__(
            f"{text!r} names {len(candidates)} symbols: {listed}{more}. "
            "Use the qualified name (or the id repo:path#qualname)."
        )


class RepoNotFound(QueryError, NotFound):
    kind = NotFound.kind

    def __init__(self, name: str, known: list[str]) -> None:
        known_text = ", ".join(known) if known else "none yet: run `cartograph index PATH`"
        super().__init__(f"no repository named {name!r} in the index (indexed: {known_text})")


@dataclass(slots=True)
class RepoState:
    """Which commit an answer reflects."""

    name: str
    indexed_sha: str
    indexed_at: str
    dirty: bool


@dataclass(slots=True)
class Crossing:
    """An answer that reaches from one repository into code another one provides: the
    provider's version and indexed commit (what the answer reflects), and the version the
    consumer requires or pins, with why they differ ("" when they agree or nothing says)."""

    consumer: str
    provider: str
    package: str  # as the consumer depends on it
    provider_version: str
    provider_commit: str
    required: str
    locked: str
    mismatch: str


@dataclass(slots=True)
class Unbound:
    """A repository that imports a package another one in the answer provides, and binds
    nothing of it: several repositories provide it and nothing tells them apart (or its
    `.cartograph.toml` chooses one that does not provide it). Its uses are not in the graph,
    so an answer about the provider's code cannot count them."""

    consumer: str
    package: str  # the import name
    providers: list[str]  # the repositories offering it


@dataclass(slots=True)
class Envelope:
    """Carried by every answer: the indexed commit(s) and the files changed since; for an
    answer across repositories, what each consumer declares of each provider; for an answer
    about who uses a repository's code, the consumers that import it but bind none of it."""

    repos: list[RepoState] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # "repo:path" changed on disk since indexed
    crossings: list[Crossing] = field(default_factory=list)
    unbound: list[Unbound] = field(default_factory=list)


def clamp(limit: int | None, default: int = 20) -> int:
    if limit is None:
        return default
    return max(1, min(int(limit), MAX_LIMIT))


def check_repo(store: Store, repo: str | None) -> Repo | None:
    if repo is None:
        return None
    found = store.repos.get_repo(repo)
    if found is None:
        raise RepoNotFound(repo, [r.name for r in store.repos.list_repos()])
    return found


def pick_repo(store: Store, name: str | None, cwd: str | None = None) -> str:
    """The repository a question is about: the one named, else the indexed repository that
    holds `cwd`, else the only one in the store."""
    if name:
        check_repo(store, name)
        return name
    repos = store.repos.list_repos()
    if cwd:
        here = Path(cwd).resolve()
        holding = [
            r for r in repos if r.root and (here == Path(r.root) or Path(r.root) in here.parents)
        ]
        if holding:
            return max(holding, key=lambda r: len(r.root)).name
    if len(repos) == 1:
        return repos[0].name
    if not repos:
        raise QueryError("nothing is indexed yet: run `cartograph index PATH`")
    raise QueryError(
        "several repositories are indexed; name one with --repo: "
        + ", ".join(r.name for r in repos)
    )


@cacheable
def find_symbol(store: Store, text: str, repo: str | None = None) -> SymbolRow:
    """The one symbol `text` names (id, qualname, dotted suffix, or unique name)."""
    text = text.strip()
    if not text:
        raise QueryError("give a symbol name, a qualified name, or an id repo:path#qualname")
    check_repo(store, repo)
    matches = symbols_named(store.graph, text, repo, 50)
    if len(matches) == 1:
        return matches[0]
    if matches:
        exact = [m for m in matches if m.qualname == text or m.id == text]
        if len(exact) == 1:
            return exact[0]
        # a module and its package __init__ share nothing; a class and its module can share a
        # name: prefer definitions over modules, then the shortest qualname if still unique
        non_modules = [m for m in matches if m.kind != "module"]
        if len(non_modules) == 1:
            return non_modules[0]
        raise AmbiguousSymbol(text, matches)
    raise SymbolNotFound(text, suggest(store, text, repo))


def symbols_named(graph: GraphReader, text: str, repo: str | None, limit: int) -> list[SymbolRow]:
    """The symbols `text` names exactly: the id (`repo:path#qualname`), else the qualified
    name, else the name — and when `text` is dotted (`Cart.total`), only the symbols whose
    qualified name ends with it. One store read per step, the first step that finds answers."""
    if "#" in text:
        found = graph.symbols_by("id", text, repo, limit)
        if found:
            return found
    found = graph.symbols_by("qualname", text, repo, limit)
    if found:
        return found
    rows = graph.symbols_by("name", text.rpartition(".")[2], repo, NAME_CANDIDATES)
    if "." in text:
        suffix = "." + text
        rows = [row for row in rows if row.qualname.endswith(suffix)]
    return rows[:limit]


def suggest(store: Store, text: str, repo: str | None, limit: int = 8) -> list[SymbolRow]:
    """Close matches for a name that is not in the index: symbols the search plan finds for
    its words and for each word's first three letters, ranked by how close their names are."""
    words = split_words(text)
    if not words:
        return []
    pool: dict[str, SymbolRow] = {}
    for row, _score in match_words(store.graph, words, repo, None, 200):
        pool.setdefault(row.qualname, row)
    for word in words:
        if len(word) >= 3:
            for row, _score in match_words(store.graph, [word[:3]], repo, None, 200):
                pool.setdefault(row.qualname, row)
    target = text.rpartition(".")[2].lower()
    by_name: dict[str, list[SymbolRow]] = {}
    for row in pool.values():
        by_name.setdefault(row.name.lower(), []).append(row)
    close = difflib.get_close_matches(target, list(by_name), n=limit, cutoff=0.6)
    ranked = [row for name in close for row in sorted(by_name[name], key=lambda r: r.qualname)]
    return ranked[:limit]


class Freshness:
    """Marks files changed on disk since they were indexed (size/mtime first, then the hash)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._repos: dict[str, Repo | None] = {}
        self._verdicts: dict[tuple[str, str], bool] = {}
        self._manifests: dict[str, Manifest] | None = None

    def repo(self, name: str) -> Repo | None:
        if name not in self._repos:
            self._repos[name] = self.store.repos.get_repo(name)
        return self._repos[name]

    def stale_paths(self, repo: str, paths: set[str]) -> set[str]:
        unjudged = [p for p in paths if (repo, p) not in self._verdicts]
        if unjudged:
            repo_row = self.repo(repo)
            records = self.store.graph.files(repo, unjudged)
            root = Path(repo_row.root) if repo_row and repo_row.root else None
            for path in unjudged:
                record = records.get(path)
                verdict = self._verdicts[(repo, path)] = _is_stale(root, path, record)
                if root is not None and record is not None:  # the answer depends on the disk
                    judged(functools.partial(_is_stale, root, path, record), verdict)
        return {p for p in paths if self._verdicts[(repo, p)]}

    def envelope(
        self,
        symbols: list[SymbolRow],
        extra_repos: list[str] | None = None,
        users_of: list[str] | None = None,
    ) -> Envelope:
        """`users_of`: the answer tells who uses these repositories' code; it then names the
        consumers that import it but bind none of it (`Unbound`)."""
        by_repo: dict[str, set[str]] = {}
        for symbol in symbols:
            by_repo.setdefault(symbol.repo, set()).add(symbol.path)
        for name in extra_repos or []:
            by_repo.setdefault(name, set())
        envelope = Envelope()
        for name in sorted(by_repo):
            repo_row = self.repo(name)
            if repo_row is None:
                continue
            envelope.repos.append(
                RepoState(name, repo_row.indexed_sha, repo_row.indexed_at, repo_row.dirty)
            )
            for path in sorted(self.stale_paths(name, by_repo[name])):
                envelope.stale.append(f"{name}:{path}")
        if len(envelope.repos) > 1:
            envelope.crossings = self.crossings([r.name for r in envelope.repos])
        if users_of:
            envelope.unbound = self.unbound(users_of)
        return envelope

    def manifests(self) -> dict[str, Manifest]:
        if self._manifests is None:
            self._manifests = self.store.repos.manifests()
        return self._manifests

    def unbound(self, providers: list[str]) -> list[Unbound]:
        """The repositories importing a package one of `providers` provides that bind none of
        it (`Unbound`): offered by several repositories, or chosen elsewhere, and looked up
        by the consumer's files."""
        manifests = self.manifests()
        everyone = offers(manifests, "")
        chosen = {name for m in manifests.values() for name in m.choices}
        found: list[Unbound] = []
        for provider in sorted(set(providers)):
            own = manifests.get(provider)
            for provided in own.provides if own is not None else []:
                if provided.ecosystem not in RESOLVING_ECOSYSTEMS:
                    continue
                for name in provided.imports:
                    offered = everyone.get((provided.ecosystem, name), [])
                    if len({r for r, _ in offered}) < 2 and name not in chosen:
                        continue  # one provider, chosen by nobody: it binds wherever imported
                    importers = self.store.index.dependents_across({PACKAGE_DEP + name}, provider)
                    for consumer in sorted(importers):
                        manifest = manifests.get(consumer) or Manifest(consumer)
                        theirs = [o for o in offered if o[0] != consumer]
                        repos = unbound(manifest, theirs, name)
                        if repos:
                            found.append(Unbound(consumer, name, repos))
        unique = {(u.consumer, u.package): u for u in found}
        return [unique[k] for k in sorted(unique)]

    def crossings(self, repos: list[str]) -> list[Crossing]:
        """What each of these repositories declares of the others it depends on."""
        manifests = self.manifests()
        found: list[Crossing] = []
        for consumer in repos:
            manifest = manifests.get(consumer)
            for provider in repos:
                offered = manifests.get(provider)
                if manifest is None or offered is None or provider == consumer:
                    continue
                record = self.repo(provider)
                for provided in offered.provides:
                    dependency = declared(manifest, provided)
                    if dependency is not None:
                        found.append(
                            Crossing(
                                consumer,
                                provider,
                                dependency.name,
                                provided.version,
                                record.indexed_sha if record else "",
                                dependency.required,
                                dependency.locked,
                                version_mismatch(dependency, provided),
                            )
                        )
        unique = {(c.consumer, c.provider, c.package): c for c in found}
        return [unique[k] for k in sorted(unique)]


def _is_stale(root: Path | None, path: str, record) -> bool:
    if root is None or record is None:
        return False
    full = root / path
    try:
        info = full.stat()
    except OSError:
        return True  # deleted since
    if info.st_size == record.size and info.st_mtime_ns == record.mtime_ns:
        return False
    try:
        data = full.read_bytes()
    except OSError:
        return True
    return hashlib.sha256(data).hexdigest() != record.sha256
