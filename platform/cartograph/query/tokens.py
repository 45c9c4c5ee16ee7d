"""design tokens: a design system's shared definitions (CSS custom properties, SCSS and Less
variables) across repositories — where each is defined and with which value, which
repositories use it, where another repository overrides it, and which values are defined
under several names or one name defined twice.

The definitions are `variable` symbols of stylesheets; a use is a REFERENCES edge from the
using stylesheet (cartograph.resolve.styles).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from cartograph import languages
from cartograph.model import SymbolRow
from cartograph.query.answers import cacheable
from cartograph.query.common import Envelope, Freshness, QueryError, check_repo, clamp
from cartograph.store.interfaces import Store

SIGILS = ("--", "$", "@")
MAX_DEFINITIONS = 2000


@dataclass(slots=True)
class TokenDefinition:
    symbol: SymbolRow  # name, file, line; the signature is `name: value`
    value: str
    selector: str  # the rule it is defined under ("" at the top level)
    used_by: dict[str, int]  # repository → use sites


@dataclass(slots=True)
class TokenOverride:
    """A name one repository defines and others define again (a consumer's override of a
    provider's token, or a fork's copy)."""

    name: str
    defined_in: list[str]  # the repositories defining it, the most used first
    values: dict[str, list[str]]  # repository → its values


@dataclass(slots=True)
class TokenReport:
    name: str  # the token asked about ("" for a repository's tokens)
    repo: str  # the repository asked about ("" for every repository)
    definitions: list[TokenDefinition]
    consumers: dict[str, int]  # other repository → its use sites of these definitions
    overrides: list[TokenOverride]
    defined_twice: dict[str, list[str]]  # name → "repo:path:line" where it is defined again
    same_value: dict[str, list[str]]  # value → the names defining it (within one repository)
    truncated: bool
    envelope: Envelope = field(default_factory=Envelope)


@cacheable
def design_tokens(
    store: Store, name: str = "", repo: str | None = None, limit: int | None = 100
) -> TokenReport:
    """One token (`name`: `--color-primary`, `$brand`, `@brand`, or `color-primary` for any of
    them) in every repository, or every token `repo` defines; with uses, overrides and
    duplicates."""
    repo = repo or ""
    if not name and not repo:
        raise QueryError("design tokens need a token name (color-primary, $brand) or a repository")
    if repo:
        check_repo(store, repo)
    limit = clamp(limit, 100)
    if name:
        # written without its sigil, a name means the custom property and both variables
        names = [name] if name.startswith(SIGILS) else [f"{sigil}{name}" for sigil in SIGILS]
        found = [
            s
            for token in names
            for s in store.graph.symbols_by("name", token, None, MAX_DEFINITIONS)
            if s.kind == "variable" and _is_stylesheet(s.path)
        ]
    else:
        styles = [p for p, r in store.graph.files(repo).items() if _is_stylesheet(r.path)]
        found = [
            s
            for symbols in store.graph.symbols_in_files(repo, sorted(styles)).values()
            for s in symbols
            if s.kind == "variable"
        ]
    truncated = len(found) > limit
    shown = found[:limit]
    uses: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    sites: dict[str, set[tuple[str, int]]] = defaultdict(set)  # other repository → use sites
    owner = {s.id: s.repo for s in found}
    for row in store.graph.edges_of(list(owner), "in", ["REFERENCES"]):
        user = row.edge.src.partition(":")[0]
        uses[row.edge.dst][user] += max(row.edge.count, 1)
        if user != owner.get(row.edge.dst):
            sites[user].update((row.edge.src, line) for line in row.edge.lines)
    definitions = [
        TokenDefinition(s, _value(s), s.doc, dict(sorted(uses[s.id].items()))) for s in shown
    ]
    consumers = {user: len(found_sites) for user, found_sites in sorted(sites.items())}
    envelope = Freshness(store).envelope(shown, [*([repo] if repo else []), *consumers])
    return TokenReport(
        name,
        repo,
        definitions,
        consumers,
        _overrides(store, found, {s.name for s in shown}, uses, name),
        _defined_twice(found),
        _same_value(found),
        truncated,
        envelope,
    )


def _is_stylesheet(path: str) -> bool:
    family = languages.family_of(path)
    return family is not None and family.design_tokens


def _value(symbol: SymbolRow) -> str:
    return symbol.signature.partition(": ")[2]


def _overrides(
    store: Store,
    found: list[SymbolRow],
    shown: set[str],
    uses: dict[str, dict[str, int]],
    name: str,
) -> list[TokenOverride]:
    """Names defined in more than one repository. For a repository's report, the names on
    the page are looked up everywhere (an override elsewhere of what it defines)."""
    by_name: dict[str, list[SymbolRow]] = defaultdict(list)
    for s in found:
        by_name[s.name].append(s)
    if not name:  # a repository's tokens: their namesakes in other repositories
        for token in sorted(shown):
            for s in store.graph.symbols_by("name", token, None, MAX_DEFINITIONS):
                if s.kind == "variable" and _is_stylesheet(s.path) and s not in by_name[token]:
                    by_name[token].append(s)
    overrides = []
    for token, rows in sorted(by_name.items()):
        repos = {s.repo for s in rows}
        if len(repos) < 2:
            continue
        used = {r: sum(sum(uses[s.id].values()) for s in rows if s.repo == r) for r in repos}
        values: dict[str, list[str]] = defaultdict(list)
        for s in rows:
            values[s.repo].append(_value(s))
        overrides.append(
            TokenOverride(
                token,
                sorted(repos, key=lambda r: (-used[r], r)),
                {r: values[r] for r in sorted(values)},
            )
        )
    return overrides


def _defined_twice(found: list[SymbolRow]) -> dict[str, list[str]]:
    """Names defined more than once in one repository, with every place."""
    places: dict[tuple[str, str], list[str]] = defaultdict(list)
    for s in found:
        places[(s.repo, s.name)].append(f"{s.repo}:{s.path}:{s.start_line}")
    return {
        f"{name} ({repo})": where
        for (repo, name), where in sorted(places.items())
        if len(where) > 1
    }


def _same_value(found: list[SymbolRow]) -> dict[str, list[str]]:
    """Values one repository defines under several names (candidates to share one token)."""
    names: dict[tuple[str, str], set[str]] = defaultdict(set)
    for s in found:
        value = _value(s)
        if value and not value.startswith(("var(", "$", "@")):
            names[(s.repo, value)].add(s.name)
    return {
        f"{value} ({repo})": sorted(n) for (repo, value), n in sorted(names.items()) if len(n) > 1
    }
