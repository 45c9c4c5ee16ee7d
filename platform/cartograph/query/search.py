"""search: symbols by name or concept, ranked (exact names first, then BM25)."""

from __future__ import annotations

from dataclasses import dataclass, field

from cartograph.identifiers import split_words
from cartograph.model import SYMBOL_KINDS, SymbolRow
from cartograph.query.answers import cacheable
from cartograph.query.common import (
    Envelope,
    Freshness,
    QueryError,
    check_repo,
    clamp,
    symbols_named,
)
from cartograph.query.ranking import STOP_WORDS, body_words, match_bodies, match_words
from cartograph.store.interfaces import Store

# BM25 is multiplied by these: definitions before variables
KIND_WEIGHT = {"module": 0.9, "variable": 0.7, "type": 0.8}
BODY_WEIGHT = 0.3  # a body's BM25 counts this much beside the names'
OUTSIDE_LIBRARY = ("examples/", "example/", "docs/", "doc/")  # after library code, as tests


@dataclass(slots=True)
class SearchHit:
    symbol: SymbolRow
    score: float
    stale: bool


@dataclass(slots=True)
class SearchResult:
    query: str
    hits: list[SearchHit]
    offset: int
    next_offset: int | None
    envelope: Envelope = field(default_factory=Envelope)


@cacheable
def search(
    store: Store,
    text: str,
    repo: str | None = None,
    kinds: list[str] | None = None,
    limit: int | None = 20,
    offset: int = 0,
) -> SearchResult:
    """Symbols whose name, qualified name, path, docstring or body match `text`.

    Words are matched the way identifiers are split (`useBaseCart` ~ `base cart`), less stop
    words; a symbol whose name is exactly the query ranks first, then BM25 with name > qualname
    > path/doc, plus a share of the BM25 over bodies (identifiers, strings, comments); tests,
    examples and docs after library code unless the query asks for tests (which words are
    matched how: `query/ranking.py`).
    """
    limit = clamp(limit)
    offset = max(0, int(offset))
    check_repo(store, repo)
    if kinds:
        unknown = [k for k in kinds if k not in SYMBOL_KINDS]
        if unknown:
            raise QueryError(f"unknown kind {unknown[0]!r}; kinds are {', '.join(SYMBOL_KINDS)}")
    words = split_words(text)
    if not words:
        raise QueryError("search needs at least one word or identifier")
    wanted = offset + limit + 1
    # exact names first: as typed, and as an identifier ("get queryset" → get_queryset);
    # library code before tests, then the most used
    exact: dict[str, SymbolRow] = {}
    for name in dict.fromkeys((text.strip(), "_".join(words))):
        for symbol in symbols_named(store.graph, name, repo, 50):
            if not kinds or symbol.kind in kinds:
                exact.setdefault(symbol.id, symbol)
    usage = store.graph.edge_counts(list(exact), "in", ["CALLS", "REFERENCES"])
    layouts = store.test_layouts()
    ordered = sorted(
        exact.values(),
        key=lambda s: (
            layouts.is_test_file(s.repo, s.path),
            KIND_WEIGHT.get(s.kind, 1.0) < 1.0,
            -usage[s.id],
        ),
    )
    ranked: list[tuple[SymbolRow, float]] = [(s, 1000.0) for s in ordered]
    # the words that can name code (stop words go while others remain); names first, then
    # bodies (identifiers, strings, comments) beside them
    content = [w for w in words if w not in STOP_WORDS] or words
    pool = min(wanted * 3, 600)
    scored: dict[str, tuple[SymbolRow, float]] = {}
    for row, score in match_words(store.graph, content, repo, kinds, pool):
        scored[row.id] = (row, score)
    for row, score in match_bodies(store.graph, body_words(store.graph, content), repo, kinds,
                                   pool):  # fmt: skip
        known = scored.get(row.id)
        scored[row.id] = (row, (known[1] if known else 0.0) + BODY_WEIGHT * score)
    # library code first, then tests, examples and docs — unless the query asks for tests
    asks_for_tests = bool({"test", "tests"} & set(words))
    matches = []
    for sid, (row, score) in scored.items():
        if sid not in exact:
            outside = layouts.is_test_file(row.repo, row.path) or row.path.startswith(
                OUTSIDE_LIBRARY
            )
            matches.append((row, score * KIND_WEIGHT.get(row.kind, 1.0), outside))
    matches.sort(key=lambda m: (m[2] and not asks_for_tests, -m[1], m[0].qualname))
    ranked.extend((row, score) for row, score, _outside in matches)
    page = ranked[offset : offset + limit]
    freshness = Freshness(store)
    envelope = freshness.envelope([row for row, _ in page], [repo] if repo else None)
    stale = set(envelope.stale)
    hits = [
        SearchHit(row, round(score, 3), f"{row.repo}:{row.path}" in stale) for row, score in page
    ]
    next_offset = offset + limit if len(ranked) > offset + limit else None
    return SearchResult(text, hits, offset, next_offset, envelope)
