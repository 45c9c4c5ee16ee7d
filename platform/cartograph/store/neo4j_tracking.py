"""Tracked repositories in the Neo4j store: `(:TrackedRepo {name, url, branch, secret, …})` with
the state of their last sync job, and `(:Delivery {key})` for webhook redeliveries (a unique
key: a delivery seen twice is recognised even when two API processes receive it at once)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cartograph.model import TrackedRepo

TRACKED_FIELDS = tuple(TrackedRepo.__dataclass_fields__)
DELIVERY_DAYS = 7  # how long a delivery id is remembered


def _tracked(node) -> TrackedRepo:
    values = {name: node.get(name) for name in TRACKED_FIELDS if node.get(name) is not None}
    return TrackedRepo(**values)


class Neo4jTracking:
    """Mixed into Neo4jStore (which provides `_read` and `_write`)."""

    def track_repo(self, tracked: TrackedRepo) -> None:
        props = {name: getattr(tracked, name) for name in TRACKED_FIELDS}
        self._write(
            lambda tx: tx.run(
                "MERGE (t:TrackedRepo {name: $name}) SET t += $props",
                name=tracked.name,
                props=props,
            ).consume()
        )

    def get_tracked(self, name: str) -> TrackedRepo | None:
        records = self._read("MATCH (t:TrackedRepo {name: $name}) RETURN t", name=name)
        return _tracked(records[0]["t"]) if records else None

    def tracked_repos(self) -> list[TrackedRepo]:
        records = self._read("MATCH (t:TrackedRepo) RETURN t ORDER BY t.name")
        return [_tracked(r["t"]) for r in records]

    def update_tracked(self, name: str, **fields: object) -> None:
        unknown = set(fields) - set(TRACKED_FIELDS) | ({"name"} & set(fields))
        if unknown:
            raise ValueError(f"not a field of a tracked repository: {sorted(unknown)}")
        self._write(
            lambda tx: tx.run(
                "MATCH (t:TrackedRepo {name: $name}) SET t += $props", name=name, props=fields
            ).consume()
        )

    def untrack_repo(self, name: str) -> None:
        self._write(
            lambda tx: tx.run(
                "MATCH (t:TrackedRepo {name: $name}) DETACH DELETE t "
                "WITH 1 AS done MATCH (d:Delivery {repo: $name}) DETACH DELETE d",
                name=name,
            ).consume()
        )

    def record_delivery(self, repo: str, delivery_id: str) -> bool:
        """True the first time a repository's delivery id is seen (then False, for days)."""
        now = datetime.now(UTC)
        cutoff = (now - timedelta(days=DELIVERY_DAYS)).isoformat(timespec="seconds")
        stamp = now.isoformat(timespec="microseconds")

        def work(tx) -> bool:
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

        return self._write(work)
