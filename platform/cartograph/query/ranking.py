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

from cartograph.identifiers import split_words
from cartograph.model import SymbolRow
from cartograph.store.interfaces import BODY_FIELDS, GraphReader, Term, TextMatch

# English function words and the words bug reports and changelogs are written in: they name
# no code (a report's "Fixed" must not rank a `fixed_hook` first)
STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can cannot could did do does doing done down during each
    either else etc even ever every few for from further had has have having he her here hers him
    his how however if in instead into is it its itself just least less like made make makes many
    may me might more most much must my neither never no nor not now of off often on once only
    onto or other others otherwise our out over own per perhaps please rather really same shall
    she should since so some still such than that the their them then there these they this
    those though through thus to too under until up upon us very via was we were what whatever
    when whenever where whereas whether which while who whom whose why will with within without
    would yet you your
    bug bugs fix fixed fixes fixing issue issues problem problems report reported regression
    work works worked working correct correctly incorrect incorrectly properly wrong wrongly
    previously anymore able unable cause causes caused causing happen happens happened
    allow allows allowed support supports supported behavior behaviour expected unexpected
    case cases use used uses using eg ie
    """.split()  # noqa: SIM905 (a block of words reads better than a list)
)
COMMON_TERM = 4000  # a word matching more symbols than this is too common to rank by
COMMON_BODY = 5000  # a word in more symbol bodies than this tells nothing about any of them
MIN_PREFIX = 2  # letters a word needs before it is also matched as a prefix

# how many symbols each term matches, counted up to a cap (GraphReader.term_counts)
TermCounter = Callable[[Sequence[Term]], dict[Term, int]]


@dataclass(frozen=True, slots=True)
class SearchPlan:
    matches: tuple[TextMatch, ...]  # asked in order until enough symbols are found
    ranked: bool


def content_words(text: str) -> list[str]:
    """The words of `text` that can name code: split as identifiers, less stop words, numbers
    and single letters."""
    return [w for w in split_words(text) if w not in STOP_WORDS and not w.isdigit() and len(w) > 1]


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


def stem(word: str) -> str:
    """The word without a plural or verb ending (`handlers` → `handler`, `loading` → `load`,
    `matched` → `match`): matched as a prefix, it finds the other forms."""
    for ending, keep in (("ies", 3), ("sses", 4), ("ing", 5), ("ed", 4), ("es", 4), ("s", 3)):
        if word.endswith(ending) and len(word) - len(ending) >= keep:
            if ending == "ies":
                return word[:-3] + "y"
            if ending == "sses":
                return word[:-2]
            if ending == "es" and not word.endswith(("ses", "xes", "ches", "shes", "zes")):
                return word[:-1]
            if ending == "s" and word.endswith(("ss", "us", "is")):
                return word
            return word[: -len(ending)]
    return word


def word_term(word: str) -> Term:
    """The word itself, or its stem as a prefix when it has an ending (`stem`)."""
    root = stem(word)
    return Term(root, prefix=True) if root != word else Term(word)


def word_terms(words: Sequence[str]) -> tuple[Term, ...]:
    return tuple(dict.fromkeys(word_term(w) for w in words))


def body_counts(graph: GraphReader, words: Sequence[str]) -> dict[str, int]:
    """How many symbol bodies hold each word (its term), counted up to COMMON_BODY + 1."""
    unique = list(dict.fromkeys(words))
    counts = graph.term_counts([word_term(w) for w in unique], COMMON_BODY + 1, BODY_FIELDS)
    return {w: counts[word_term(w)] for w in unique}


def body_words(graph: GraphReader, words: Sequence[str]) -> list[str]:
    return rare_words(body_counts(graph, words))


def rare_words(counts: dict[str, int]) -> list[str]:
    """The words worth matching against bodies: those in at most COMMON_BODY symbols' bodies
    (`self`, `return` are in nearly every one), all of them when every one is that common."""
    return [w for w, n in counts.items() if n <= COMMON_BODY] or list(counts)


def match_bodies(
    graph: GraphReader,
    words: Sequence[str],
    repo: str | None,
    kinds: list[str] | None,
    limit: int,
) -> list[tuple[SymbolRow, float]]:
    """Symbols whose bodies hold any of `words`, by BM25 over the bodies alone."""
    if not words:
        return []
    match = TextMatch(word_terms(words), "any", BODY_FIELDS)
    return graph.match_symbols(match, repo, kinds, limit, True)
