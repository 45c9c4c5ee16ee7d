"""The score of a ranked text match (`GraphReader.match_symbols`): BM25 as SQLite's FTS5
computes it (`bm25()`), so that every store ranks a match the same way.

The SQLite store asks FTS5 itself. A store whose full-text engine scores otherwise (Lucene in
Neo4j scores each field on its own with its boost, and a prefix query with a constant) takes its
engine's best candidates and scores them here, from their search texts and the table's figures.

FTS5's BM25 of a row for a query of phrases q1..qn, over a table of N rows and T tokens:

    sum over i of idf(qi) * f(qi) * (k1 + 1) / (f(qi) + k1 * (1 - b + b * D / (T / N)))

- f(qi): the phrase's hits in the row's columns, each counted with its column's weight;
- D: the row's tokens in all its columns (whichever the query asks);
- idf(q) = log((N - n + 0.5) / (n + 0.5)), n the rows the phrase matches; 1e-6 when not positive;
- k1 = 1.2, b = 0.75; a phrase asked twice counts twice.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat

from cartograph.store.interfaces import Term

K1 = 1.2
B = 0.75
# each search field's weight: a hit in a symbol's name counts ten times one in its context
FIELD_WEIGHTS = {"name": 10.0, "qualname": 5.0, "context": 1.0, "body": 1.0}


@dataclass(frozen=True, slots=True)
class TableSize:
    """How many rows a full-text table holds, and how many tokens in all their columns."""

    rows: int
    tokens: int

    def __add__(self, other: TableSize) -> TableSize:
        return TableSize(self.rows + other.rows, self.tokens + other.tokens)


def idf(table: TableSize, matching: int) -> float:
    value = math.log((table.rows - matching + 0.5) / (matching + 0.5))
    return value if value > 0 else 1e-6


def hits(term: Term, tokens: Sequence[str]) -> int:
    """How often `term` stands in `tokens`: a word, a word's start (`prefix`), or a phrase
    (its words one after the other)."""
    words = term.word.split(" ")
    if len(words) == 1:
        if term.prefix:
            return sum(1 for token in tokens if token.startswith(term.word))
        return sum(1 for token in tokens if token == term.word)
    width = len(words)
    return sum(1 for at in range(len(tokens) - width + 1) if tokens[at : at + width] == words)


class MatchScore:
    """The BM25 of one query (`terms`, repeats counting) for any row of a table: each row's
    column tokens are counted once, and each distinct token looked up, not each term sought."""

    def __init__(self, terms: Sequence[Term], table: TableSize, matching: Mapping[Term, int]):
        self.table = table
        self.average = (table.tokens / table.rows if table.rows else 0.0) or 1.0
        self.weight: dict[Term, float] = defaultdict(float)  # idf, times each time it is asked
        for term in terms:
            self.weight[term] += idf(table, matching[term])
        self.words: dict[str, Term] = {}
        self.starts: dict[int, dict[str, Term]] = defaultdict(dict)  # by the prefix's length
        self.phrases: list[Term] = []
        for term in self.weight:
            if " " in term.word:
                self.phrases.append(term)
            elif term.prefix:
                self.starts[len(term.word)][term.word] = term
            else:
                self.words[term.word] = term

    def row(self, columns: Sequence[tuple[Sequence[str], float]], row_tokens: int) -> float:
        """A row's score: `columns` are the asked columns' tokens with their weights,
        `row_tokens` the row's tokens in all its columns."""
        if not self.table.rows:
            return 0.0
        frequency: dict[Term, float] = defaultdict(float)
        words, starts = self.words, list(self.starts.items())
        for tokens, column_weight in columns:
            # a long text repeats its words: each distinct one is looked up once
            counted = Counter(tokens).items() if len(tokens) > 16 else zip(tokens, repeat(1))
            for token, count in counted:
                term = words.get(token)
                if term is not None:
                    frequency[term] += column_weight * count
                for length, start in starts:
                    term = start.get(token[:length])
                    if term is not None:
                        frequency[term] += column_weight * count
            for phrase in self.phrases:
                frequency[phrase] += column_weight * hits(phrase, tokens)
        norm = K1 * (1 - B + B * row_tokens / self.average)
        return sum(
            self.weight[term] * f * (K1 + 1) / (f + norm) for term, f in frequency.items() if f
        )
