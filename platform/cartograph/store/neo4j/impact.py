"""What impact keeps, in the Neo4j store: `(:Coverage {repo, symbol, tests})` — the tests
recorded running one symbol —, `(:CoverageSource {repo, source, commit})`, and `(:Review {repo,
number, …})`, the impact report of one pull request."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cartograph.model import REVIEW_FIELDS, Review
from cartograph.store.interfaces import Coverage
from cartograph.store.neo4j.connection import Neo4jConnection

_BATCH = 5000


def _review(node: Any) -> Review:
    return Review(**{name: node.get(name) for name in REVIEW_FIELDS if node.get(name) is not None})


class Neo4jImpact:
    def __init__(self, connection: Neo4jConnection) -> None:
        self.connection = connection
        self.read = connection.read

    def set_coverage(
        self, repo: str, source: str, commit: str, pairs: Iterable[tuple[str, str]]
    ) -> int:
        by_symbol: dict[str, set[str]] = {}
        for test, symbol in pairs:
            by_symbol.setdefault(symbol, set()).add(test)
        rows = [{"symbol": s, "tests": sorted(t)} for s, t in sorted(by_symbol.items())]

        def work(tx: Any) -> None:
            tx.run("MATCH (c:Coverage {repo: $repo}) DETACH DELETE c", repo=repo).consume()
            for start in range(0, len(rows), _BATCH):
                tx.run(
                    "UNWIND $rows AS row "
                    "CREATE (:Coverage {repo: $repo, symbol: row.symbol, tests: row.tests})",
                    repo=repo,
                    rows=rows[start : start + _BATCH],
                ).consume()
            tx.run(
                "MERGE (s:CoverageSource {repo: $repo}) SET s.source = $source, s.commit = $commit",
                repo=repo,
                source=source,
                commit=commit,
            ).consume()

        self.connection.write(work)
        return sum(len(r["tests"]) for r in rows)

    def covering_tests(self, repo: str, symbol_ids: Iterable[str]) -> Coverage | None:
        head = self.read("MATCH (s:CoverageSource {repo: $repo}) RETURN s", repo=repo)
        if not head:
            return None
        records = self.read(
            "UNWIND $ids AS id MATCH (c:Coverage {repo: $repo, symbol: id}) "
            "RETURN c.symbol AS symbol, c.tests AS tests",
            repo=repo,
            ids=sorted(set(symbol_ids)),
        )
        source = head[0]["s"]
        return Coverage(
            source.get("source", ""),
            source.get("commit", ""),
            {r["symbol"]: set(r["tests"]) for r in records},
        )

    def put_review(self, review: Review) -> None:
        props = {name: getattr(review, name) for name in REVIEW_FIELDS}
        self.connection.run(
            "MERGE (r:Review {repo: $repo, number: $number}) SET r += $props",
            repo=review.repo,
            number=review.number,
            props=props,
        )

    def get_review(self, repo: str, number: int) -> Review | None:
        records = self.read(
            "MATCH (r:Review {repo: $repo, number: $number}) RETURN r", repo=repo, number=number
        )
        return _review(records[0]["r"]) if records else None

    def reviews(self, repo: str, limit: int) -> list[Review]:
        records = self.read(
            "MATCH (r:Review {repo: $repo}) RETURN r "
            "ORDER BY r.computed_at DESC, r.number DESC LIMIT $limit",
            repo=repo,
            limit=limit,
        )
        return [_review(r["r"]) for r in records]

    def forget_impact(self, repo: str) -> None:
        self.connection.run(
            "MATCH (n) WHERE (n:Coverage OR n:CoverageSource OR n:Review) AND n.repo = $repo "
            "DETACH DELETE n",
            repo=repo,
        )
