"""Tracked repositories in the Neo4j store: `(:TrackedRepo {name, url, branch, secret, …})` with
the state of their last sync job, and `(:Delivery {key})` for webhook redeliveries (a unique
key: a delivery seen twice is recognised even when two API processes receive it at once)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from cartograph.model import TrackedRepo
from cartograph.store.interfaces import DELIVERY_DAYS, TRACKED_FIELDS, check_tracked_fields
from cartograph.store.neo4j.connection import Neo4jConnection


def _tracked(node: Any) -> TrackedRepo:
    values = {name: node.get(name) for name in TRACKED_FIELDS if node.get(name) is not None}
    return TrackedRepo(**values)


class Neo4jTracking:
    def __init__(self, connection: Neo4jConnection) -> None:
        self.connection = connection
        self.read = connection.read

    def track_repo(self, tracked: TrackedRepo) -> None:
        props = {name: getattr(tracked, name) for name in TRACKED_FIELDS}
        self.connection.run(
            "MERGE (t:TrackedRepo {name: $name}) SET t += $props", name=tracked.name, props=props
        )

    def get_tracked(self, name: str) -> TrackedRepo | None:
        records = self.read("MATCH (t:TrackedRepo {name: $name}) RETURN t", name=name)
        return _tracked(records[0]["t"]) if records else None

    def tracked_repos(self) -> list[TrackedRepo]:
        records = self.read("MATCH (t:TrackedRepo) RETURN t ORDER BY t.name")
        return [_tracked(r["t"]) for r in records]

    def update_tracked(self, name: str, **fields: object) -> None:
        check_tracked_fields(fields)
        self.connection.run(
            "MATCH (t:TrackedRepo {name: $name}) SET t += $props", name=name, props=fields
        )

    def untrack_repo(self, name: str) -> None:
        self.connection.run(
            # its deliveries go too, tracked or not (as in SQLite)
            "OPTIONAL MATCH (t:TrackedRepo {name: $name}) DETACH DELETE t "
            "WITH count(*) AS done MATCH (d:Delivery {repo: $name}) DETACH DELETE d",
            name=name,
        )

    def record_delivery(self, repo: str, delivery_id: str) -> bool:
        now = datetime.now(UTC)
        cutoff = (now - timedelta(days=DELIVERY_DAYS)).isoformat(timespec="seconds")
        stamp = now.isoformat(timespec="microseconds")

        def work(tx: Any) -> bool:
            record = tx.run(
                "MERGE (d:Delivery {key: $key}) "
                "ON CREATE SET d.repo = $repo, d.at = $stamp, d.fresh = true "
                "ON MATCH SET d.fresh = false "
                "RETURN d.fresh AS fresh",
                key=f"{repo}\n{delivery_id}",
                repo=repo,
                stamp=stamp,
            ).single()
            tx.run(
                "MATCH (d:Delivery {repo: $repo}) WHERE d.at < $cutoff WITH d LIMIT 1000 DELETE d",
                repo=repo,
                cutoff=cutoff,
            ).consume()
            return bool(record["fresh"])

        return self.connection.write(work, answers_change=False)

    def forget_delivery(self, repo: str, delivery_id: str) -> None:
        self.connection.run(
            "MATCH (d:Delivery {key: $key}) DELETE d",
            answers_change=False,
            key=f"{repo}\n{delivery_id}",
        )
