"""Which text matches a search asks the store for, and in what order: the one place that decides
(every store answers the same plan; it only translates each `TextMatch` — FTS5, Lucene).

The plan for the words of a query (`identifiers.split_words`):

1. A word that matches more than COMMON_TERM symbols (`test` in a test-heavy repository) is
   too common to rank by: it is dropped while rarer words remain.
2. The last word kept is matched as a prefix too (`pay` finds `payment`), when it has at least
   two letters and the prefix is not itself too common — a one-letter prefix, or one that
   matches tens of thousands of symbols, would cost more than it tells.
3. First all of the kept words; when that finds too few, any of them (AND, then OR).
4. Results are ranked by BM25 unless every word is common, where ranking thousands of rows
   tells nothing: then the shortest names come first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cartograph.model import SymbolRow
from cartograph.store.interfaces import GraphReader, Term, TextMatch

COMMON_TERM = 4000  # a word matching more symbols than this is too common to rank by
MIN_PREFIX = 2  # letters a word needs before it is also matched as a prefix

# how many symbols each term matches, counted up to a cap (GraphReader.term_counts)
TermCounter = Callable[[Sequence[Term]], dict[Term, int]]


@dataclass(frozen=True, slots=True)
class SearchPlan:
    matches: tuple[TextMatch, ...]  # asked in order until enough symbols are found
    ranked: bool


def plan_search(words: Sequence[str], count: TermCounter) -> SearchPlan:
    """The text matches for `words`, from how common each word is. `count` is asked once for
    every word and for the last word as a prefix, and a second time only when the last word
    was dropped as common and the new last word's prefix has not been counted."""
    if not words:
        return SearchPlan((), False)
    asked = [Term(word) for word in dict.fromkeys(words)]
    if len(words[-1]) >= MIN_PREFIX:
        asked.append(Term(words[-1], prefix=True))
    counts = dict(count(asked))

    def common(term: Term) -> bool:
        return counts[term] > COMMON_TERM

    kept = [word for word in words if not common(Term(word))] or list(words)
    last = kept[-1]
    prefix = False
    if len(last) >= MIN_PREFIX:
        as_prefix = Term(last, prefix=True)
        if as_prefix not in counts:
            counts.update(count([as_prefix]))
        prefix = not common(as_prefix)
    all_of = TextMatch((*(Term(word) for word in kept[:-1]), Term(last, prefix)), "all")
    matches = [all_of]
    if len(kept) > 1:
        matches.append(TextMatch(tuple(Term(word) for word in kept), "any"))
    ranked = len(kept) != len(words) or not any(common(Term(word)) for word in kept)
    return SearchPlan(tuple(matches), ranked)


def match_words(
    graph: GraphReader,
    words: Sequence[str],
    repo: str | None,
    kinds: list[str] | None,
    limit: int,
    offset: int = 0,
) -> list[tuple[SymbolRow, float]]:
    """Symbols matching `words` by the plan, best first (BM25: higher is better), one page:
    the all-of match, then the any-of match for what it did not find."""
    plan = plan_search(words, lambda terms: graph.term_counts(terms, COMMON_TERM + 1))
    wanted = limit + offset
    results: list[tuple[SymbolRow, float]] = []
    seen: set[str] = set()
    for match in plan.matches:
        for row, score in graph.match_symbols(match, repo, kinds, wanted + len(seen), plan.ranked):
            if row.id not in seen:
                seen.add(row.id)
                results.append((row, score))
        if len(results) >= wanted:
            break
    return results[offset : offset + limit]
