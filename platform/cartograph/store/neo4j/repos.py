"""Repository records in the Neo4j store (`Repo` nodes), and forgetting a repository whole."""

from __future__ import annotations

from typing import Any

from cartograph.model import Manifest, Repo
from cartograph.store.neo4j.connection import Neo4jConnection

# the labels of a repository's nodes, deleted in batches (a big repository is millions)
_REPO_LABELS = (
    "Symbol", "RetiredSymbol", "IndexState", "File", "RetiredFile", "Commit", "SkippedFile",
    "Manifest", "ServiceState", "SearchSize",
)  # fmt: skip


def repo_from_node(node: Any) -> Repo:
    return Repo(
        node.get("name"),
        node.get("root") or "",
        node.get("url") or "",
        node.get("default_branch") or "",
        node.get("head_sha") or "",
        node.get("indexed_sha") or "",
        node.get("indexed_at") or "",
        bool(node.get("dirty")),
        node.get("index_format") or "",
        node.get("mined_sha") or "",
        node.get("codeowners") or "",
        node.get("indexed_run") or "",
    )


class Neo4jRepoCatalog:
    def __init__(self, connection: Neo4jConnection) -> None:
        self.connection = connection

    def upsert_repo(self, repo: Repo) -> None:
        props = {
            "name": repo.name,
            "root": repo.root,
            "url": repo.url,
            "default_branch": repo.default_branch,
            "head_sha": repo.head_sha,
            "indexed_sha": repo.indexed_sha,
            "indexed_at": repo.indexed_at,
            "dirty": repo.dirty,
            "index_format": repo.index_format,
            "indexed_run": repo.indexed_run,
        }
        self.connection.run(
            "MERGE (r:Repo {name: $name}) SET r += $props", name=repo.name, props=props
        )

    def get_repo(self, name: str) -> Repo | None:
        records = self.connection.read("MATCH (r:Repo {name: $name}) RETURN r", name=name)
        return repo_from_node(records[0]["r"]) if records else None

    def list_repos(self) -> list[Repo]:
        records = self.connection.read("MATCH (r:Repo) RETURN r ORDER BY r.name")
        return [repo_from_node(r["r"]) for r in records]

    def set_manifest(self, manifest: Manifest) -> None:
        self.connection.run(
            "MERGE (m:Manifest {repo: $repo}) SET m.data = $data",
            repo=manifest.repo,
            data=manifest.to_json(),
        )

    def manifests(self) -> dict[str, Manifest]:
        records = self.connection.read(
            "MATCH (m:Manifest) RETURN m.repo AS repo, m.data AS data ORDER BY repo"
        )
        return {r["repo"]: Manifest.from_json(r["data"]) for r in records}

    def delete_repo(self, name: str) -> None:
        for label in _REPO_LABELS:
            # relationships first, a bounded number per transaction: 5,000 nodes detached at
            # once hold every relationship of the hubs among them (Django's assertion helpers
            # have 12,000 each) and overflowed the transaction memory of a 2 GiB heap
            self.connection.run_auto(
                f"MATCH (n:{label} {{repo: $repo}})-[r]-() "
                "CALL (r) { DELETE r } IN TRANSACTIONS OF 10000 ROWS",
                repo=name,
            )
            self.connection.run_auto(
                f"MATCH (n:{label} {{repo: $repo}}) "
                f"CALL (n) {{ DETACH DELETE n }} IN TRANSACTIONS OF 5000 ROWS",
                repo=name,
            )
        # not its IndexLock: a run that rebuilds a repository deletes its data under its own
        # index lock, which must hold until the run releases it
        self.connection.run("MATCH (r:Repo {name: $repo}) DETACH DELETE r", repo=name)
