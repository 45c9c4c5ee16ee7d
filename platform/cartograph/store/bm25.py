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
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

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


def phrase_hits(phrase: str, tokens: Sequence[str]) -> int:
    """How often a phrase (words joined by a space) stands in `tokens`, its words one after
    the other; overlapping places each count, as FTS5 counts them."""
    words = phrase.split(" ")
    width = len(words)
    return sum(1 for at in range(len(tokens) - width + 1) if tokens[at : at + width] == words)


class MatchScore:
    """The BM25 of one query (`terms`, repeats counting) for any row of a table. A row's tokens
    are met by the asked words as a set (in C: a body of hundreds of tokens holds a handful of
    them), and only the words it holds are counted; a word's start, by its text after a space."""

    def __init__(self, terms: Sequence[Term], table: TableSize, matching: Mapping[Term, int]):
        self.table = table
        self.average = (table.tokens / table.rows if table.rows else 0.0) or 1.0
        weight: dict[Term, float] = defaultdict(float)  # idf, times each time it is asked
        for term in terms:
            weight[term] += idf(table, matching[term])
        self.weights = list(weight.values())  # by the term's place
        self.words: dict[str, int] = {}
        self.starts: list[tuple[int, str]] = []  # a token that starts so: after a space
        self.phrases: list[tuple[int, str]] = []
        for place, term in enumerate(weight):
            if " " in term.word:
                self.phrases.append((place, term.word))
            elif term.prefix:
                self.starts.append((place, " " + term.word))
            else:
                self.words[term.word] = place

    def row(self, texts: Sequence[str], weights: Sequence[float]) -> float:
        """A row's score: `texts` are each of the row's columns' text (tokens between
        whitespace), `weights` each column's weight, 0 for a column the query does not ask (its
        tokens still count in the row's length)."""
        if not self.table.rows:
            return 0.0
        frequency = [0.0] * len(self.weights)
        row_tokens = 0
        for text, column_weight in zip(texts, weights, strict=True):
            tokens = text.split()
            row_tokens += len(tokens)
            if not column_weight:
                continue
            for word in self.words.keys() & tokens:
                frequency[self.words[word]] += column_weight * tokens.count(word)
            spaced = None  # the tokens, each after one space
            for place, start in self.starts:
                if start[1:] in text:
                    spaced = spaced if spaced is not None else " " + " ".join(tokens)
                    frequency[place] += column_weight * spaced.count(start)
            for place, phrase in self.phrases:
                frequency[place] += column_weight * phrase_hits(phrase, tokens)
        norm = K1 * (1 - B + B * row_tokens / self.average)
        return sum(
            weight * f * (K1 + 1) / (f + norm)
            for weight, f in zip(self.weights, frequency, strict=True)
            if f
        )
