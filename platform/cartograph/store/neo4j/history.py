"""Git history in the Neo4j store: (Person)-[:AUTHORED]->(Commit)-[:TOUCHED]->(File|Symbol),
(File)-[:CO_CHANGES]->(File) and the same between symbols (from the smaller id); `changes`
counts on files and symbols. A file or symbol that leaves the index with history keeps its
node as :RetiredFile or :RetiredSymbol (with only its past) until the next mining re-keys or
forgets it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from cartograph.model import CoChange, HistoryBatch, Touch, file_id
from cartograph.store.interfaces import CoChangeLevel, PairCount, PairWeight
from cartograph.store.neo4j.connection import Neo4jConnection

CHUNK = 5000
WEIGHT_CHUNK = 50_000
_TOUCH_RETURN = (
    "c.sha AS sha, c.at AS at, c.message AS message, p.email AS author, p.name AS name, "
    "p.bot AS bot, c.ordinal AS ordinal"
)
_FILE_BY_ID = "MATCH (x:File {id: $id}) "
_FILES_UNDER = "MATCH (x:File {repo: $repo}) WHERE x.path STARTS WITH $prefix "
_LABELS = {"file": "File", "symbol": "Symbol"}
_ADD_PAIRS = (
    "UNWIND $rows AS x MATCH (a:{label} {{id: x.a}}) MATCH (b:{label} {{id: x.b}}) "
    "MERGE (a)-[r:CO_CHANGES]->(b) ON CREATE SET r.count = x.n, r.weight = 0.0 "
    "ON MATCH SET r.count = r.count + x.n"
)
_ADD_CHANGES = (
    "UNWIND $rows AS x MATCH (n:{label} {{id: x.id}}) SET n.changes = coalesce(n.changes, 0) + x.n"
)


def _touch(record: Any, target: str, added: int, deleted: int) -> Touch:
    return Touch(
        record["sha"],
        record["at"],
        record["message"],
        record["author"],
        record["name"] or "",
        bool(record["bot"]),
        target,
        added,
        deleted,
    )


class Neo4jHistory:
    def __init__(self, connection: Neo4jConnection) -> None:
        self.connection = connection
        self.read = connection.read

    # ---------------------------------------------------------------- writes
    def write_history(self, repo: str, batch: HistoryBatch) -> None:
        people = [{"email": p.email, "name": p.name, "bot": p.bot} for p in batch.people]
        commits = [
            {
                "id": f"{repo}@{c.sha}",
                "sha": c.sha,
                "message": c.message,
                "at": c.at,
                "author": c.author,
                "parents": c.parents,
                "files": c.files,
                "ordinal": c.ordinal,
            }
            for c in batch.commits
        ]
        touches = [
            {"commit": f"{repo}@{sha}", "file": file_id(repo, path), "added": a, "deleted": d}
            for sha, path, a, d in batch.file_touches
        ]
        symbol_touches = [
            {"commit": f"{repo}@{sha}", "symbol": symbol, "lines": lines}
            for sha, symbol, lines in batch.symbol_touches
        ]
        file_changes = [{"id": file_id(repo, p), "n": n} for p, n in batch.file_changes.items()]
        symbol_changes = [{"id": s, "n": n} for s, n in batch.symbol_changes.items()]
        file_pairs = [
            {"a": file_id(repo, a), "b": file_id(repo, b), "n": n}
            for (a, b), n in batch.file_pairs.items()
        ]
        symbol_pairs = [{"a": a, "b": b, "n": n} for (a, b), n in batch.symbol_pairs.items()]

        def work(tx: Any) -> None:
            tx.run(
                "UNWIND $rows AS p MERGE (x:Person {email: p.email}) "
                "SET x.name = p.name, x.bot = p.bot",
                rows=people,
            ).consume()
            tx.run(
                "UNWIND $rows AS c MERGE (n:Commit {id: c.id}) "
                "ON CREATE SET n.repo = $repo, n.sha = c.sha, n.message = c.message, "
                "n.at = c.at, n.parents = c.parents, n.files = c.files, n.ordinal = c.ordinal "
                "WITH n, c MATCH (p:Person {email: c.author}) MERGE (p)-[:AUTHORED]->(n)",
                rows=commits,
                repo=repo,
            ).consume()
            tx.run(
                "UNWIND $rows AS t MATCH (c:Commit {id: t.commit}) MATCH (f:File {id: t.file}) "
                "CREATE (c)-[:TOUCHED {added: t.added, deleted: t.deleted}]->(f)",
                rows=touches,
            ).consume()
            tx.run(
                "UNWIND $rows AS t MATCH (c:Commit {id: t.commit}) "
                "MATCH (s:Symbol {id: t.symbol}) CREATE (c)-[:TOUCHED {lines: t.lines}]->(s)",
                rows=symbol_touches,
            ).consume()
            for label, changes, pairs in (
                ("File", file_changes, file_pairs),
                ("Symbol", symbol_changes, symbol_pairs),
            ):
                tx.run(_ADD_CHANGES.format(label=label), rows=changes).consume()
                tx.run(_ADD_PAIRS.format(label=label), rows=pairs).consume()

        self.connection.write(work)

    def history_orphans(self, repo: str) -> tuple[set[str], set[str]]:
        records = self.read(
            "MATCH (n:RetiredFile|RetiredSymbol {repo: $repo}) "
            "RETURN n:RetiredFile AS file, n.path AS path, n.id AS id",
            repo=repo,
        )
        paths = {r["path"] for r in records if r["file"]}
        return paths, {r["id"] for r in records if not r["file"]}

    def history_symbols(self, repo: str, paths: Iterable[str]) -> dict[str, set[str]]:
        records = self.read(
            "UNWIND $paths AS path MATCH (n:Symbol|RetiredSymbol {repo: $repo, path: path}) "
            "WHERE n.changes IS NOT NULL OR EXISTS { (:Commit)-[:TOUCHED]->(n) } "
            "RETURN DISTINCT path, n.id AS id",
            repo=repo,
            paths=list(paths),
        )
        found: dict[str, set[str]] = {}
        for r in records:
            found.setdefault(r["path"], set()).add(r["id"])
        return found

    def remap_history(
        self, repo: str, files: dict[str, str | None], symbols: dict[str, str | None]
    ) -> None:
        """Re-key history at once (a → b and b → c move a's past to b and b's to c); None
        forgets it. Counts and pairs that meet under one node add up. Every retired node of
        the repository is gone afterwards."""
        file_ids = {
            file_id(repo, old): (file_id(repo, new) if new else None) for old, new in files.items()
        }

        def work(tx: Any) -> None:
            for live, retired, mapping in (
                ("File", "RetiredFile", file_ids),
                ("Symbol", "RetiredSymbol", symbols),
            ):
                if mapping:
                    _remap(tx, live, retired, mapping)
            tx.run(
                "MATCH (n:RetiredFile|RetiredSymbol {repo: $repo}) DETACH DELETE n", repo=repo
            ).consume()

        self.connection.write(work)

    def clear_history(self, repo: str) -> None:
        self.connection.run_auto(
            "MATCH (c:Commit {repo: $repo}) "
            "CALL (c) { DETACH DELETE c } IN TRANSACTIONS OF 5000 ROWS",
            repo=repo,
        )

        def work(tx: Any) -> None:
            tx.run("MATCH (n:File {repo: $repo})-[r:CO_CHANGES]->() DELETE r", repo=repo).consume()
            tx.run(
                "MATCH (n:Symbol {repo: $repo})-[r:CO_CHANGES]->() DELETE r", repo=repo
            ).consume()
            tx.run("MATCH (n:File {repo: $repo}) REMOVE n.changes", repo=repo).consume()
            tx.run("MATCH (n:Symbol {repo: $repo}) REMOVE n.changes", repo=repo).consume()
            tx.run(
                "MATCH (n:RetiredFile|RetiredSymbol {repo: $repo}) DETACH DELETE n", repo=repo
            ).consume()
            tx.run("MATCH (r:Repo {name: $repo}) SET r.mined_sha = ''", repo=repo).consume()

        self.connection.write(work)

    def pair_counts(
        self, repo: str, level: CoChangeLevel, keys: Iterable[str] | None = None
    ) -> list[PairCount]:
        label = _LABELS[level]
        # one record holding every row: tens of thousands of records cost seconds, one list
        # of them a fraction
        returns = (
            "RETURN collect([a.id, b.id, r.count, coalesce(a.changes, 0), "
            "coalesce(b.changes, 0), elementId(r)]) AS rows"
        )
        if keys is None:
            records = self.read(
                f"MATCH (a:{label} {{repo: $repo}})-[r:CO_CHANGES]->(b) {returns}", repo=repo
            )
        else:
            ids = sorted({file_id(repo, k) if level == "file" else k for k in keys})
            records = []
            for start in range(0, len(ids), CHUNK):
                records.extend(
                    self.read(
                        f"UNWIND $ids AS id MATCH (:{label} {{id: id}})-[r:CO_CHANGES]-() "
                        f"WITH DISTINCT r WITH r, startNode(r) AS a, endNode(r) AS b {returns}",
                        ids=ids[start : start + CHUNK],
                    )
                )
        found: dict[str, PairCount] = {}
        for record in records:  # a pair holding two keys (of different chunks) comes once
            for a, b, count, changes_a, changes_b, ref in record["rows"]:
                found[ref] = PairCount(
                    _key(level, a), _key(level, b), count, changes_a, changes_b, ref
                )
        return list(found.values())

    def set_pair_weights(self, repo: str, level: CoChangeLevel, weights: list[PairWeight]) -> None:
        label = _LABELS[level]
        by_ref = [{"ref": w.ref, "w": w.weight} for w in weights if w.ref is not None]
        by_ends = [
            {
                "a": file_id(repo, w.a) if level == "file" else w.a,
                "b": file_id(repo, w.b) if level == "file" else w.b,
                "w": w.weight,
            }
            for w in weights
            if w.ref is None
        ]

        def work(tx: Any) -> None:
            for start in range(0, len(by_ref), WEIGHT_CHUNK):
                tx.run(  # the relationship pair_counts named: found by its element id
                    "UNWIND $rows AS x MATCH ()-[r:CO_CHANGES]->() WHERE elementId(r) = x.ref "
                    "SET r.weight = x.w",
                    rows=by_ref[start : start + WEIGHT_CHUNK],
                ).consume()
            for start in range(0, len(by_ends), CHUNK):
                tx.run(
                    f"UNWIND $rows AS x MATCH (a:{label} {{id: x.a}})-[r:CO_CHANGES]->"
                    f"(b:{label} {{id: x.b}}) SET r.weight = x.w",
                    rows=by_ends[start : start + CHUNK],
                ).consume()

        self.connection.write(work)

    def set_history_state(self, repo: str, mined_sha: str, codeowners: str) -> None:
        self.connection.run(
            "MATCH (r:Repo {name: $repo}) SET r.mined_sha = $sha, r.codeowners = $owners",
            repo=repo,
            sha=mined_sha,
            owners=codeowners,
        )

    # ---------------------------------------------------------------- reads
    def file_history(self, repo: str, path: str, limit: int, offset: int = 0) -> list[Touch]:
        records = self.read(
            _FILE_BY_ID + "MATCH (p:Person)-[:AUTHORED]->(c:Commit)-[t:TOUCHED]->(x) "
            f"RETURN {_TOUCH_RETURN}, t.added AS added, t.deleted AS deleted "
            "ORDER BY ordinal DESC SKIP $offset LIMIT $limit",
            id=file_id(repo, path),
            offset=offset,
            limit=limit,
        )
        return [_touch(r, path, r["added"], r["deleted"]) for r in records]

    def symbol_history(self, symbol: str, limit: int, offset: int = 0) -> list[Touch]:
        records = self.read(
            "MATCH (s:Symbol {id: $id}) MATCH (p:Person)-[:AUTHORED]->(c:Commit)-[t:TOUCHED]->(s) "
            f"RETURN {_TOUCH_RETURN}, t.lines AS lines ORDER BY ordinal DESC "
            "SKIP $offset LIMIT $limit",
            id=symbol,
            offset=offset,
            limit=limit,
        )
        return [_touch(r, symbol, r["lines"], 0) for r in records]

    def touches_under(self, repo: str, folder: str) -> list[Touch]:
        records = self.read(
            _FILES_UNDER + "MATCH (p:Person)-[:AUTHORED]->(c:Commit)-[t:TOUCHED]->(x) "
            f"RETURN {_TOUCH_RETURN}, x.path AS path, t.added AS added, t.deleted AS deleted "
            "ORDER BY ordinal DESC, path",
            repo=repo,
            prefix=folder.strip("/") + "/" if folder.strip("/") else "",  # "": the whole repo
        )
        return [_touch(r, r["path"], r["added"], r["deleted"]) for r in records]

    def file_touches(self, repo: str, paths: Iterable[str]) -> dict[str, list[Touch]]:
        found: dict[str, list[Touch]] = {path: [] for path in paths}
        records = self.read(
            "UNWIND $ids AS id MATCH (x:File {id: id}) "
            "MATCH (p:Person)-[:AUTHORED]->(c:Commit)-[t:TOUCHED]->(x) "
            f"RETURN {_TOUCH_RETURN}, x.path AS path, t.added AS added, t.deleted AS deleted "
            "ORDER BY ordinal DESC, path",
            ids=[file_id(repo, path) for path in found],
        )
        for r in records:
            found[r["path"]].append(_touch(r, r["path"], r["added"], r["deleted"]))
        return found

    def cochanges(
        self, repo: str, paths: Iterable[str], min_count: int, limit: int
    ) -> dict[str, list[CoChange]]:
        keys = {file_id(repo, path): path for path in paths}
        return self._partners("File", "path", keys, min_count, limit)

    def symbol_cochanges(
        self, symbols: Iterable[str], min_count: int, limit: int
    ) -> dict[str, list[CoChange]]:
        return self._partners("Symbol", "id", {s: s for s in symbols}, min_count, limit)

    def _partners(
        self, label: str, named: str, keys: Mapping[str, str], min_count: int, limit: int
    ) -> dict[str, list[CoChange]]:
        """The partners of the nodes of `label` with those ids (id → the key answered by),
        each node's `limit` heaviest, named by their `named` property."""
        found: dict[str, list[CoChange]] = {key: [] for key in keys.values()}
        records = self.read(
            f"UNWIND $ids AS id MATCH (x:{label} {{id: id}}) "
            f"CALL (x) {{ MATCH (x)-[r:CO_CHANGES]-(o:{label}) WHERE r.count >= $min "
            f"RETURN o.{named} AS other, r.count AS count, r.weight AS weight "
            "ORDER BY weight DESC, count DESC, other LIMIT $limit } "
            "RETURN x.id AS id, other, count, weight",
            ids=list(keys),
            min=min_count,
            limit=limit,
        )
        for r in records:
            found[keys[r["id"]]].append(CoChange(r["other"], r["count"], r["weight"]))
        for partners in found.values():
            partners.sort(key=lambda c: (-c.weight, -c.count, c.other))
        return found

    def history_stats(self, repo: str) -> dict:
        record = self.read(
            "MATCH (c:Commit {repo: $repo}) OPTIONAL MATCH (p:Person)-[:AUTHORED]->(c) "
            "RETURN count(DISTINCT c) AS commits, count(DISTINCT p) AS people, "
            "min(c.at) AS first, max(c.at) AS last, coalesce(max(c.ordinal), 0) AS ordinal",
            repo=repo,
        )[0]
        return {
            "commits": record["commits"],
            "people": record["people"],
            "first": record["first"] or "",
            "last": record["last"] or "",
            "ordinal": record["ordinal"],
        }


def _key(level: CoChangeLevel, node_id: str) -> str:
    """A pair end as the interface names it: a path for files, the id for symbols."""
    return node_id.partition(":")[2] if level == "file" else node_id


def _remap(tx: Any, live: str, retired: str, mapping: dict[str, str | None]) -> None:
    sources = list(mapping)
    nodes = f"UNWIND $ids AS id MATCH (x:{live}|{retired} {{id: id}}) "
    touches = tx.run(
        nodes + "MATCH (c:Commit)-[t:TOUCHED]->(x) "
        "WITH x, c, t, properties(t) AS props DELETE t "
        "RETURN x.id AS source, c.id AS commit, props",
        ids=sources,
    ).data()
    counts = tx.run(
        nodes + "WITH x, x.changes AS n REMOVE x.changes RETURN x.id AS source, n",
        ids=sources,
    ).data()
    pairs = tx.run(
        nodes + "MATCH (x)-[r:CO_CHANGES]-() WITH DISTINCT r "
        "WITH r, startNode(r).id AS a, endNode(r).id AS b, r.count AS n DELETE r "
        "RETURN a, b, n",
        ids=sources,
    ).data()
    moved_touches = [
        {"commit": t["commit"], "target": mapping[t["source"]], "props": t["props"]}
        for t in touches
        if mapping[t["source"]]
    ]
    moved_counts: Counter[str] = Counter()
    for row in counts:
        target = mapping[row["source"]]
        if target and row["n"]:
            moved_counts[target] += row["n"]
    moved_pairs: Counter[tuple[str, str]] = Counter()
    for row in pairs:
        a, b = mapping.get(row["a"], row["a"]), mapping.get(row["b"], row["b"])
        if a and b and a != b:
            moved_pairs[(min(a, b), max(a, b))] += row["n"]
    tx.run(
        f"UNWIND $rows AS t MATCH (c:Commit {{id: t.commit}}) MATCH (x:{live} {{id: t.target}}) "
        "CREATE (c)-[r:TOUCHED]->(x) SET r = t.props",
        rows=moved_touches,
    ).consume()
    tx.run(
        _ADD_CHANGES.format(label=live),
        rows=[{"id": k, "n": n} for k, n in moved_counts.items()],
    ).consume()
    tx.run(
        _ADD_PAIRS.format(label=live),
        rows=[{"a": a, "b": b, "n": n} for (a, b), n in moved_pairs.items()],
    ).consume()
