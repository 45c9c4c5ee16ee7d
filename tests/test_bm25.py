"""A ranked match scored outside FTS5 (`store.bm25`, how the Neo4j store ranks Lucene's
candidates) gives FTS5's own BM25, row by row, for words, words' starts, phrases and a word
asked twice; over texts of several lines, as symbols' bodies are indexed."""

import random
import sqlite3

import pytest
from cartograph.store import bm25
from cartograph.store.interfaces import Term

WORDS = [
    "refund",
    "refunds",
    "total",
    "price",
    "priced",
    "pricing",
    "reprice",
    "order",
    "cart",
    "item",
    "audit",
    "qty",
    "self",
    "sku",
    "ship",
]


def _texts(rng: random.Random) -> list[str]:
    def words(low: int, high: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))

    body = "\n".join(words(0, 12) for _ in range(rng.randint(1, 30)))  # lines, some empty
    return [words(1, 2), words(1, 5), words(0, 8), body]


def _fts5_query(term: Term) -> str:
    return f'"{term.word}"' + ("*" if term.prefix else "")


@pytest.mark.parametrize(
    "terms",
    [
        (Term("refund"), Term("total"), Term("pric", prefix=True)),
        (Term("order"), Term("cart"), Term("order")),  # asked twice: counts twice
        (Term("price order"), Term("self"), Term("it", prefix=True)),
        (Term("qty qty"), Term("ship")),  # a phrase whose words repeat
    ],
)
def test_a_row_scores_as_fts5_scores_it(terms):
    rng = random.Random(7)
    rows = [_texts(rng) for _ in range(120)]
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5 (name, qualname, context, body)")
    db.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", rows)
    weights = [10.0, 5.0, 1.0, 1.0]
    query = " OR ".join(map(_fts5_query, terms))
    expected = {
        rowid: -score
        for rowid, score in db.execute(
            "SELECT rowid, bm25(t, 10.0, 5.0, 1.0, 1.0) FROM t WHERE t MATCH ?", (query,)
        )
    }
    table = bm25.TableSize(len(rows), sum(len(" ".join(r).split()) for r in rows))
    matching = {
        term: db.execute("SELECT count(*) FROM t WHERE t MATCH ?", (_fts5_query(term),)).fetchone()[
            0
        ]
        for term in terms
    }
    scoring = bm25.MatchScore(terms, table, matching)
    assert len(expected) > 20
    for rowid, want in expected.items():
        assert scoring.row(rows[rowid - 1], weights) == pytest.approx(want, rel=1e-9)
    # a column not asked still counts in the row's length: it lowers the row's score
    named = next(r for r in rows if scoring.row(r[:3], weights[:3]) > 0)
    longer = scoring.row([*named[:3], "ship " * 50], [10.0, 5.0, 1.0, 0.0])
    assert 0 < longer < scoring.row(named[:3], weights[:3])
