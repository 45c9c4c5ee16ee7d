"""overview (packages, their dependencies, most-called symbols) and stats (counts and health)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from cartograph.manifests import choice_notes, declared, offers, unbound, version_mismatch
from cartograph.model import Manifest, Provided, SymbolRow
from cartograph.query.answers import cacheable
from cartograph.query.common import Envelope, Freshness, QueryError, check_repo, clamp
from cartograph.store.interfaces import Store, Tallies

MAX_PACKAGES = 40
# a constructor call writes two edges, to the class and to the initializer it runs: its site
# counts once, on the class's edge
INITIALIZER = "__init__"


@dataclass(slots=True)
class PackageInfo:
    name: str
    files: int
    lines: int
    test_files: int
    imports: list[tuple[str, int]]  # other in-repo packages, with the number of file imports
    external: list[tuple[str, int]]  # outside packages imported, with counts
    # where its files are: the folder holding them, or the file itself for a one-module
    # package (`src/werkzeug/utils.py` is the package `werkzeug.utils`); a path is in the
    # package whose folder is the longest one holding it
    folder: str = ""


@dataclass(slots=True)
class RepoLink:
    """Another repository this one binds into (a provider) or that binds into it (a
    consumer): the edges between them and what the consumer declares of the provider."""

    repo: str
    edges: int  # calls, references and inheritance from the consumer into the provider
    packages: list[str]  # the provider's packages the consumer imports or declares
    mismatches: list[str]  # where the consumer's pinned or required version is not the provider's


@dataclass(slots=True)
class Overview:
    repo: str
    files: int
    lines: int
    packages: list[PackageInfo]
    most_called: list[tuple[SymbolRow, int]]
    external_packages: list[tuple[str, int]]
    envelope: Envelope = field(default_factory=Envelope)
    provides: list[Provided] = field(default_factory=list)  # its package identity
    providers: list[RepoLink] = field(default_factory=list)
    consumers: list[RepoLink] = field(default_factory=list)
    # import names several repositories provide with none chosen: nothing bound to them
    ambiguous: dict[str, list[str]] = field(default_factory=dict)
    # manifests and `.cartograph.toml` entries that could not be read or followed, and why
    manifest_notes: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Stats:
    repo: str
    files: int
    symbols: dict[str, int]
    languages: dict[str, dict[str, int]]
    edges: dict[str, int]
    resolved_call_sites: int
    unresolved_call_sites: int
    unresolved_external: int
    unresolved_rate: float
    files_with_syntax_errors: int
    unresolved_reasons: dict[str, int]  # why calls are unknown (model.UNKNOWN_REASONS) → calls
    skipped: dict[str, list[str]]  # reason → paths (first few)
    skipped_total: int
    stale_files: list[str]
    envelope: Envelope = field(default_factory=Envelope)


def _package_key(path: str, module: str, depth: int) -> tuple[str, str]:
    """(dotted name, folder) of the group a file falls in at `depth` package levels."""
    if not module:
        return path, path
    parts = path.split("/")
    names = module.split(".")
    is_init = parts[-1].startswith("__init__.")
    root = len(parts) - len(names) - (1 if is_init else 0)
    take = min(depth, len(names))
    folder = "/".join(parts[: root + take]) if take < len(names) or is_init else path
    return ".".join(names[:take]), folder


def _group_depths(files: dict) -> Callable[[str], int]:
    """How many package levels to show, per top-level group: split the biggest groups into
    their subpackages while the overview stays within MAX_PACKAGES lines."""
    lines: Counter = Counter()
    for record in files.values():
        parts = record.module.split(".") if record.module else [record.path]
        for depth in range(1, min(len(parts), 4) + 1):
            lines[".".join(parts[:depth])] += record.lines
    depth_for: dict[str, int] = {}  # group prefix → depth to show below it
    below: dict[str, list[str]] = {}  # group → its subpackages, in the order first seen
    for key in lines:
        if "." in key:
            below.setdefault(key.rpartition(".")[0], []).append(key)

    def children(prefix: str) -> list[str]:
        return below.get(prefix, [])

    groups = [k for k in lines if "." not in k]
    while True:
        candidates = sorted((g for g in groups if children(g)), key=lambda g: -lines[g])
        for group in candidates:
            parts = children(group)
            if len(groups) - 1 + len(parts) + 1 <= MAX_PACKAGES:
                groups = [g for g in groups if g != group] + parts + [group]
                depth_for[group] = group.count(".") + 2
                break
        else:
            break
        if len(groups) >= MAX_PACKAGES:
            break

    def depth_of(module: str) -> int:
        parts = module.split(".") if module else []
        depth = 1
        while ".".join(parts[:depth]) in depth_for and depth < len(parts):
            depth = depth_for[".".join(parts[:depth])]
        return depth

    return depth_of


def _group_names(keys: set[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Dotted names, with the folder added only where two groups share a name."""
    count: Counter = Counter(dotted for dotted, _ in keys)
    return {key: key[0] if count[key[0]] == 1 else f"{key[0]} ({key[1]})" for key in keys}


@cacheable
def overview(store: Store, repo: str, top: int | None = 15) -> Overview:
    """The shape of a repository: packages, who imports whom, what is called most."""
    if check_repo(store, repo) is None:
        raise QueryError("overview needs a repository name")
    top = clamp(top, 15)
    files = store.graph.files(repo)
    depth_of = _group_depths(files)
    keys = {path: _package_key(path, r.module, depth_of(r.module)) for path, r in files.items()}
    names = _group_names(set(keys.values()))
    package_of = {path: names[key] for path, key in keys.items()}
    folder_of = {name: key[1] for key, name in names.items()}
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for path, record in files.items():
        entry = counts[package_of[path]]
        entry[0] += 1
        entry[1] += record.lines
        entry[2] += int(record.is_test)
    internal: dict[str, Counter] = defaultdict(Counter)
    external: dict[str, Counter] = defaultdict(Counter)
    external_total: Counter = Counter()
    for path, kind, target, _names in store.graph.import_links(repo):
        source = package_of.get(path)
        if source is None:
            continue
        if kind == "file":
            other = package_of.get(target)
            if other is not None and other != source:
                internal[source][other] += 1
        else:
            external[source][target] += 1
            external_total[target] += 1
    ordered = sorted(counts, key=lambda name: (-counts[name][1], name))[:MAX_PACKAGES]
    packages = [
        PackageInfo(
            name,
            counts[name][0],
            counts[name][1],
            counts[name][2],
            internal[name].most_common(8),
            external[name].most_common(8),
            folder_of[name],
        )
        for name in ordered
    ]
    most_called = store.graph.most_called(repo, top)
    envelope = Freshness(store).envelope([s for s, _ in most_called], [repo], users_of=[repo])
    relations = repository_relations(store, repo, set(external_total))
    return Overview(
        repo,
        len(files),
        sum(r.lines for r in files.values()),
        packages,
        most_called,
        external_total.most_common(top),
        envelope,
        relations.provides,
        relations.providers,
        relations.consumers,
        relations.ambiguous,
        relations.notes,
    )


@dataclass(slots=True)
class Relations:
    """A repository among the others: its package identity, the repositories it binds into
    and those binding into it, and the imports several repositories provide (none bound)."""

    provides: list[Provided]
    providers: list[RepoLink]
    consumers: list[RepoLink]
    ambiguous: dict[str, list[str]]
    notes: list[str]  # its manifests' problems (`Manifest.notes`, `manifests.choice_notes`)


@cacheable
def repository_relations(store: Store, repo: str, imported: set[str] | None = None) -> Relations:
    """`imported`: the package names `repo` imports from outside (read when not given)."""
    if imported is None:
        imported = {t for _p, kind, t, _n in store.graph.import_links(repo) if kind == "package"}
    manifests = store.repos.manifests()
    own = manifests.get(repo) or Manifest(repo)
    providers, consumers = repository_links(store, repo, manifests, imported)
    ambiguous = {
        name: repos
        for (_eco, name), offered in offers(manifests, repo).items()
        if name in imported and (repos := unbound(own, offered, name))
    }
    notes = own.notes + choice_notes(own, manifests)
    return Relations(own.provides, providers, consumers, ambiguous, notes)


def repository_links(
    store: Store, repo: str, manifests: dict[str, Manifest], imported: set[str]
) -> tuple[list[RepoLink], list[RepoLink]]:
    """The repositories `repo` binds into and those binding into it: by the edges between
    them, and by what a consumer's manifest declares or its files import (`imported`: the
    package names `repo` imports from outside) of a provider."""
    outgoing, incoming = store.graph.repo_links(repo)
    own = manifests.get(repo) or Manifest(repo)

    def link(consumer: Manifest, provider: str, edges: int, imports: set[str]) -> RepoLink | None:
        offered = manifests.get(provider) or Manifest(provider)
        packages: set[str] = {n for n in offered.import_names() if n in imports}
        mismatches: list[str] = []
        for provided in offered.provides:
            dependency = declared(consumer, provided)
            if dependency is not None:
                packages.add(dependency.name)
                why = version_mismatch(dependency, provided)
                if why:
                    mismatches.append(f"{dependency.name} ({dependency.manifest}): {why}")
        if not edges and not packages:
            return None
        return RepoLink(provider, edges, sorted(packages), sorted(set(mismatches)))

    providers: list[RepoLink] = []
    consumers: list[RepoLink] = []
    for other in sorted(set(manifests) | set(outgoing) | set(incoming)):
        if other == repo:
            continue
        found = link(own, other, outgoing.get(other, 0), imported)
        if found is not None:
            providers.append(found)
        theirs = (  # what it imports, read only of a repository that binds into this one
            {t for _p, kind, t, _n in store.graph.import_links(other) if kind == "package"}
            if other in incoming
            else set()
        )
        found = link(manifests.get(other) or Manifest(other), repo, incoming.get(other, 0), theirs)
        if found is not None:
            found.repo = other
            consumers.append(found)
    return providers, consumers


@cacheable
def stats(store: Store, repo: str) -> Stats:
    """Counts by kind and language, skipped files with reasons, unresolved-call rate,
    the indexed commit and the files changed on disk since."""
    if check_repo(store, repo) is None:
        raise QueryError("stats needs a repository name")
    raw = store.graph.tallies(repo, INITIALIZER)
    files = store.graph.files(repo)
    skipped: dict[str, list[str]] = defaultdict(list)
    skipped_list = store.index.skipped(repo)
    for item in skipped_list:
        skipped[item.reason].append(item.path)
    resolved = resolved_call_sites(raw)
    unresolved = raw.unresolved_calls
    rate = unresolved / (resolved + unresolved) if resolved + unresolved else 0.0
    freshness = Freshness(store)
    stale = sorted(freshness.stale_paths(repo, set(files)))
    envelope = freshness.envelope([], [repo])
    return Stats(
        repo=repo,
        files=len(files),
        symbols=dict(sorted(raw.symbols.items())),
        languages={
            language: {"files": n, "lines": lines}
            for language, (n, lines) in sorted(raw.languages.items())
        },
        edges=edge_counts(raw),
        resolved_call_sites=resolved,
        unresolved_call_sites=unresolved,
        unresolved_external=raw.unresolved_external,
        unresolved_rate=round(rate, 4),
        unresolved_reasons=dict(sorted(raw.unresolved_reasons.items(), key=lambda i: -i[1])),
        files_with_syntax_errors=raw.files_with_parse_errors,
        skipped=dict(skipped),
        skipped_total=len(skipped_list),
        stale_files=stale,
        envelope=envelope,
    )


def edge_counts(raw: Tallies) -> dict[str, int]:
    """Edges by `type/via`, in that order."""
    counts: Counter = Counter()
    for tally in raw.edges:
        counts[f"{tally.type}/{tally.via}"] += tally.edges
    return {key: counts[key] for key in sorted(counts)}


def resolved_call_sites(raw: Tallies) -> int:
    """Call sites the resolver bound: the `count`s of CALLS edges, a constructor call's site
    once (its edge to the initializer is not counted again)."""
    return sum(
        tally.sites
        for tally in raw.edges
        if tally.type == "CALLS" and not (tally.via == "constructor" and tally.to_named)
    )
