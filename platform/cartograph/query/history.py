"""Questions about history: what changed a file or symbol, what changes with it, who knows it,
and `explain` — a symbol's context with its provenance in one answer."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from cartograph.history.cochange import cochange_score
from cartograph.history.codeowners import owners_of
from cartograph.model import CoChange, SymbolRow, Touch
from cartograph.query.answers import cacheable
from cartograph.query.common import (
    Envelope,
    Freshness,
    QueryError,
    check_repo,
    clamp,
    find_symbol,
)
from cartograph.query.graph import Context, context
from cartograph.store.interfaces import Store

HALF_LIFE_DAYS = 180.0  # a change this old counts half as much as one made today
MIN_COCHANGE = 2
COCHANGE_CANDIDATES = 500  # partners read by weight, then ranked by score


@dataclass(slots=True)
class Target:
    kind: str  # "file", "folder" or "symbol"
    repo: str
    path: str  # the file, the folder, or the symbol's file
    symbol: SymbolRow | None = None

    @property
    def label(self) -> str:
        return self.symbol.qualname if self.symbol else self.path


@dataclass(slots=True)
class HistoryPage:
    target: Target
    entries: list[Touch]
    offset: int
    next_offset: int | None
    envelope: Envelope = field(default_factory=Envelope)


@dataclass(slots=True)
class Partner:
    """Something that usually changes together with the target."""

    name: str  # a path, or a symbol's qualname
    count: int  # commits that changed both
    weight: float  # count / min(changes of either)
    symbol: SymbolRow | None = None
    score: float = 0.0  # the weight trusted as far as the count allows (the ranking)


@dataclass(slots=True)
class CoChanges:
    target: Target
    partners: list[Partner]
    min_count: int
    envelope: Envelope = field(default_factory=Envelope)


@dataclass(slots=True)
class Owner:
    email: str
    name: str
    bot: bool
    score: float  # changed lines, halved every HALF_LIFE_DAYS of age
    share: float  # of the target's total score
    commits: int
    lines: int
    last: str  # date of the latest change


@dataclass(slots=True)
class Owners:
    target: Target
    owners: list[Owner]
    codeowners: list[str]  # what CODEOWNERS says for the target's path
    half_life_days: float
    envelope: Envelope = field(default_factory=Envelope)


@dataclass(slots=True)
class Explanation:
    context: Context
    history: list[Touch]
    owners: Owners
    partners: list[Partner]  # symbols that change with it
    file_partners: list[Partner]  # files that change with its file
    envelope: Envelope = field(default_factory=Envelope)


def resolve_target(store: Store, text: str, repo: str | None = None) -> Target:
    """A file path, a folder (for owners), or a symbol (any name `context` accepts)."""
    text = text.strip()
    if not text:
        raise QueryError("give a file path, a folder, or a symbol")
    check_repo(store, repo)
    if "#" in text:  # a symbol id (repo:path#qualname): no path has one
        symbol = find_symbol(store, text, repo)
        return Target("symbol", symbol.repo, symbol.path, symbol)
    repos = [repo] if repo else [r.name for r in store.repos.list_repos()]
    path = text.strip("/") if not text.startswith("./") else text[2:]
    files = [r for r in repos if path in store.graph.files(r, [path])]
    if len(files) == 1:
        return Target("file", files[0], path)
    if len(files) > 1:
        raise QueryError(f"{path} is in several repositories ({', '.join(files)}): add --repo")
    folders = [r for r in repos if store.graph.files(r, under=path)]
    if len(folders) == 1:
        return Target("folder", folders[0], path)
    symbol = find_symbol(store, text, repo)
    return Target("symbol", symbol.repo, symbol.path, symbol)


@cacheable
def history(
    store: Store, text: str, repo: str | None = None, limit: int | None = 20, offset: int = 0
) -> HistoryPage:
    """The latest commits that changed a file or a symbol (newest first), with their authors."""
    target = resolve_target(store, text, repo)
    if target.kind == "folder":
        raise QueryError(f"{target.path} is a folder: ask for a file or a symbol")
    limit = clamp(limit)
    offset = max(0, int(offset))
    if target.symbol is not None:
        entries = store.history.symbol_history(target.symbol.id, limit + 1, offset)
    else:
        entries = store.history.file_history(target.repo, target.path, limit + 1, offset)
    next_offset = offset + limit if len(entries) > limit else None
    return HistoryPage(target, entries[:limit], offset, next_offset, _envelope(store, target))


@cacheable
def co_changes(
    store: Store,
    text: str,
    repo: str | None = None,
    limit: int | None = 20,
    min_count: int = MIN_COCHANGE,
) -> CoChanges:
    """Files (for a file) or symbols (for a symbol) that usually change in the same commits."""
    target = resolve_target(store, text, repo)
    if target.kind == "folder":
        raise QueryError(f"{target.path} is a folder: ask for a file or a symbol")
    limit = clamp(limit)
    min_count = max(1, int(min_count))
    read = max(limit, COCHANGE_CANDIDATES)
    if target.symbol is not None:
        symbol_id = target.symbol.id
        partners = _symbol_partners(
            store, store.history.symbol_cochanges([symbol_id], min_count, read)[symbol_id]
        )
    else:
        path = target.path
        partners = [
            Partner(c.other, c.count, c.weight, None, cochange_score(c.count, c.weight))
            for c in store.history.cochanges(target.repo, [path], min_count, read)[path]
        ]
    return CoChanges(target, _ranked(partners)[:limit], min_count, _envelope(store, target))


def _ranked(partners: list[Partner]) -> list[Partner]:
    """Most trusted first: a partner seen forty times above a pair seen twice."""
    return sorted(partners, key=lambda p: (-p.score, -p.count, p.name))


@cacheable
def owners(
    store: Store,
    text: str,
    repo: str | None = None,
    limit: int | None = 10,
    half_life_days: float = HALF_LIFE_DAYS,
) -> Owners:
    """Who changed a file, a folder or a symbol most, recent work weighing more; and what
    CODEOWNERS says."""
    target = resolve_target(store, text, repo)
    answer = target_owners(store, target, limit, half_life_days)
    answer.envelope = _envelope(store, target)
    return answer


def target_owners(store: Store, target: Target, limit: int | None, half_life_days: float) -> Owners:
    """Who knows a resolved target (its envelope left empty)."""
    if target.kind == "file":
        return files_owners(store, target.repo, [target.path], limit, half_life_days)[0]
    if target.symbol is not None:
        touches = store.history.symbol_history(target.symbol.id, 100_000)
    else:
        touches = store.history.touches_under(target.repo, target.path)
    return _owners(store, target, touches, limit, half_life_days)


def files_owners(
    store: Store, repo: str, paths: list[str], limit: int | None, half_life_days: float
) -> list[Owners]:
    """Who knows each of a repository's files (`target_owners`), their history read at once."""
    touches = store.history.file_touches(repo, paths)
    return [
        _owners(store, Target("file", repo, path), touches[path], limit, half_life_days)
        for path in paths
    ]


def _owners(
    store: Store, target: Target, touches: list[Touch], limit: int | None, half_life_days: float
) -> Owners:
    ranked = rank_owners(touches, half_life_days)[: clamp(limit, 10)]
    repo_row = store.repos.get_repo(target.repo)
    # a folder is asked as "folder/": the rules for it, not for a file of the same name
    asked = target.path + "/" if target.kind == "folder" else target.path
    codeowners = list(owners_of(repo_row.codeowners, asked)) if repo_row else []
    return Owners(target, ranked, codeowners, half_life_days)


@cacheable
def explain(store: Store, name: str, repo: str | None = None) -> Explanation:
    """A symbol's context plus its provenance: last commits, owners, co-change partners."""
    ctx = context(store, name, repo)
    symbol = ctx.symbol
    recent = store.history.symbol_history(symbol.id, 5)
    if not recent:  # a symbol too small to be charged a hunk: its file's history
        recent = store.history.file_history(symbol.repo, symbol.path, 5)
    who = target_owners(
        store, Target("symbol", symbol.repo, symbol.path, symbol), 10, HALF_LIFE_DAYS
    )
    who.envelope = ctx.envelope
    partners = _symbol_partners(
        store,
        store.history.symbol_cochanges([symbol.id], MIN_COCHANGE, COCHANGE_CANDIDATES)[symbol.id],
    )
    file_partners = [
        Partner(c.other, c.count, c.weight, None, cochange_score(c.count, c.weight))
        for c in store.history.cochanges(
            symbol.repo, [symbol.path], MIN_COCHANGE, COCHANGE_CANDIDATES
        )[symbol.path]
    ]
    partners, file_partners = _ranked(partners)[:8], _ranked(file_partners)[:8]
    return Explanation(ctx, recent, who, partners, file_partners, ctx.envelope)


def _symbol_partners(store: Store, found: list[CoChange]) -> list[Partner]:
    """Partners still in the index (one gone since the last mining is no partner)."""
    symbols = store.graph.get_symbols(c.other for c in found)
    return [
        Partner(
            symbols[c.other].qualname,
            c.count,
            c.weight,
            symbols[c.other],
            cochange_score(c.count, c.weight),
        )
        for c in found
        if c.other in symbols
    ]


def rank_owners(touches: list[Touch], half_life_days: float) -> list[Owner]:
    if not touches:
        return []
    newest = max(_day(t.at) for t in touches)
    score: dict[str, float] = defaultdict(float)
    commits: dict[str, set[str]] = defaultdict(set)
    lines: dict[str, int] = defaultdict(int)
    last: dict[str, str] = {}
    names: dict[str, tuple[str, bool]] = {}
    for t in touches:
        changed = t.added + t.deleted
        age = max(0.0, newest - _day(t.at))
        score[t.author] += max(changed, 1) * 0.5 ** (age / half_life_days)
        commits[t.author].add(t.sha)
        lines[t.author] += changed
        last[t.author] = max(last.get(t.author, ""), t.at)
        names[t.author] = (t.name, t.bot)
    total = sum(score.values()) or 1.0
    ranked = [
        Owner(email, names[email][0], names[email][1], round(value, 2),
              round(value / total, 4), len(commits[email]), lines[email], last[email])
        for email, value in score.items()
    ]  # fmt: skip
    # people before bots, then by score
    ranked.sort(key=lambda o: (o.bot, -o.score, o.email))
    return ranked


def _day(stamp: str) -> float:
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() / 86400
    except ValueError:
        return 0.0


def _envelope(store: Store, target: Target) -> Envelope:
    freshness = Freshness(store)
    if target.symbol is not None:
        return freshness.envelope([target.symbol])
    envelope = freshness.envelope([], [target.repo])
    if target.kind == "file" and freshness.stale_paths(target.repo, {target.path}):
        envelope.stale.append(f"{target.repo}:{target.path}")
    return envelope
