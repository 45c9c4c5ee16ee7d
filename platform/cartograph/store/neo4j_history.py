"""Git history in the Neo4j store: (Person)-[:AUTHORED]->(Commit)-[:TOUCHED]->(File|Symbol),
(File)-[:CO_CHANGES]->(File) and the same between symbols; `changes` counts on files and
symbols. A file that leaves the index but has history keeps its node as :RetiredFile."""

from __future__ import annotations

from collections.abc import Iterable

from cartograph.model import CoChange, HistoryBatch, Touch, file_id

_TOUCH_RETURN = (
    "c.sha AS sha, c.at AS at, c.message AS message, p.email AS author, p.name AS name, "
    "p.bot AS bot, c.ordinal AS ordinal"
)
# a file with history, indexed (File) or gone from the index (RetiredFile)
_FILE_BY_ID = (
    "CALL () { MATCH (x:File {id: $id}) RETURN x UNION MATCH (x:RetiredFile {id: $id}) RETURN x } "
)
_FILES_UNDER = (
    "CALL () { MATCH (x:File {repo: $repo}) WHERE x.path STARTS WITH $prefix RETURN x "
    "UNION MATCH (x:RetiredFile {repo: $repo}) WHERE x.path STARTS WITH $prefix RETURN x } "
)


def _touch(record, target: str, added: int, deleted: int) -> Touch:
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
    """Mixed into Neo4jStore (which provides `_read`, `_write` and `_run_auto`)."""

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

        def work(tx):
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
                tx.run(
                    f"UNWIND $rows AS x MATCH (n:{label} {{id: x.id}}) "
                    "SET n.changes = coalesce(n.changes, 0) + x.n",
                    rows=changes,
                ).consume()
                tx.run(
                    f"UNWIND $rows AS x MATCH (a:{label} {{id: x.a}}) MATCH (b:{label} {{id: x.b}}) "
                    "MERGE (a)-[r:CO_CHANGES]->(b) ON CREATE SET r.count = x.n, r.weight = 0.0 "
                    "ON MATCH SET r.count = r.count + x.n",
                    rows=pairs,
                ).consume()

        self._write(work)  # type: ignore[attr-defined]

    def rename_history(self, repo: str, moves: dict[str, str]) -> None:
        """History kept under old paths follows the files to their new paths."""
        rows = [{"old": file_id(repo, o), "new": file_id(repo, n)} for o, n in moves.items()]

        def work(tx):
            for row in rows:
                tx.run(
                    _FILE_BY_ID.replace("$id", "$old") + "WITH x AS old "
                    "MATCH (new:File {id: $new}) WHERE old <> new "
                    "SET new.changes = coalesce(new.changes, 0) + coalesce(old.changes, 0) "
                    "REMOVE old.changes "
                    "WITH old, new OPTIONAL MATCH (c:Commit)-[t:TOUCHED]->(old) "
                    "FOREACH (_ IN CASE WHEN t IS NULL THEN [] ELSE [1] END | "
                    "  CREATE (c)-[:TOUCHED {added: t.added, deleted: t.deleted}]->(new) "
                    "  DELETE t)",
                    old=row["old"],
                    new=row["new"],
                ).consume()
                pairs = tx.run(
                    _FILE_BY_ID.replace("$id", "$old") + "MATCH (x)-[r:CO_CHANGES]-(o) "
                    "WITH r, o.id AS other, r.count AS n DELETE r RETURN other, n",
                    old=row["old"],
                ).data()
                merged: dict[tuple[str, str], int] = {}
                for pair in pairs:
                    if pair["other"] != row["new"]:
                        key = tuple(sorted((row["new"], pair["other"])))
                        merged[key] = merged.get(key, 0) + pair["n"]
                tx.run(
                    "UNWIND $rows AS x MATCH (a:File {id: x.a}) MATCH (b:File {id: x.b}) "
                    "MERGE (a)-[r:CO_CHANGES]->(b) ON CREATE SET r.count = x.n, r.weight = 0.0 "
                    "ON MATCH SET r.count = r.count + x.n",
                    rows=[{"a": a, "b": b, "n": n} for (a, b), n in merged.items()],
                ).consume()
                tx.run(
                    "MATCH (old:RetiredFile {id: $old}) WHERE NOT EXISTS { ()-[:TOUCHED]->(old) } "
                    "DETACH DELETE old",
                    old=row["old"],
                ).consume()

        self._write(work)  # type: ignore[attr-defined]

    def clear_history(self, repo: str) -> None:
        self._run_auto(  # type: ignore[attr-defined]
            "MATCH (c:Commit {repo: $repo}) "
            "CALL (c) { DETACH DELETE c } IN TRANSACTIONS OF 5000 ROWS",
            repo=repo,
        )

        def work(tx):
            tx.run("MATCH (n:File {repo: $repo})-[r:CO_CHANGES]->() DELETE r", repo=repo).consume()
            tx.run(
                "MATCH (n:Symbol {repo: $repo})-[r:CO_CHANGES]->() DELETE r", repo=repo
            ).consume()
            tx.run("MATCH (n:File {repo: $repo}) REMOVE n.changes", repo=repo).consume()
            tx.run("MATCH (n:Symbol {repo: $repo}) REMOVE n.changes", repo=repo).consume()
            tx.run("MATCH (n:RetiredFile {repo: $repo}) DETACH DELETE n", repo=repo).consume()
            tx.run("MATCH (r:Repo {name: $repo}) SET r.mined_sha = ''", repo=repo).consume()

        self._write(work)  # type: ignore[attr-defined]

    def refresh_cochange_weights(self, repo: str) -> None:
        """weight = count / min(changes of a, changes of b)."""

        def work(tx):
            for label in ("File", "Symbol"):
                tx.run(
                    f"MATCH (a:{label} {{repo: $repo}})-[r:CO_CHANGES]->(b) "
                    "WITH r, CASE WHEN a.changes < b.changes THEN a.changes ELSE b.changes END AS m "
                    "SET r.weight = round(toFloat(r.count) / CASE WHEN m > 1 THEN m ELSE 1 END, 4)",
                    repo=repo,
                ).consume()

        self._write(work)  # type: ignore[attr-defined]

    def set_history_state(self, repo: str, mined_sha: str, codeowners: str) -> None:
        self._write(  # type: ignore[attr-defined]
            lambda tx: tx.run(
                "MATCH (r:Repo {name: $repo}) SET r.mined_sha = $sha, r.codeowners = $owners",
                repo=repo,
                sha=mined_sha,
                owners=codeowners,
            ).consume()
        )

    def symbol_spans(
        self, repo: str, kinds: Iterable[str]
    ) -> dict[str, list[tuple[int, int, str]]]:
        records = self._read(  # type: ignore[attr-defined]
            "MATCH (s:Symbol {repo: $repo}) WHERE s.kind IN $kinds AND NOT s:Stub "
            "RETURN s.path AS path, s.start_line AS start, s.end_line AS end, s.id AS id",
            repo=repo,
            kinds=list(kinds),
        )
        spans: dict[str, list[tuple[int, int, str]]] = {}
        for r in records:
            spans.setdefault(r["path"], []).append((r["start"], r["end"], r["id"]))
        return spans

    # ---------------------------------------------------------------- reads
    def file_history(self, repo: str, path: str, limit: int, offset: int = 0) -> list[Touch]:
        records = self._read(  # type: ignore[attr-defined]
            _FILE_BY_ID + "MATCH (p:Person)-[:AUTHORED]->(c:Commit)-[t:TOUCHED]->(x) "
            f"RETURN {_TOUCH_RETURN}, t.added AS added, t.deleted AS deleted "
            "ORDER BY ordinal DESC SKIP $offset LIMIT $limit",
            id=file_id(repo, path),
            offset=offset,
            limit=limit,
        )
        return [_touch(r, path, r["added"], r["deleted"]) for r in records]

    def symbol_history(self, symbol: str, limit: int, offset: int = 0) -> list[Touch]:
        records = self._read(  # type: ignore[attr-defined]
            "MATCH (s:Symbol {id: $id}) MATCH (p:Person)-[:AUTHORED]->(c:Commit)-[t:TOUCHED]->(s) "
            f"RETURN {_TOUCH_RETURN}, t.lines AS lines ORDER BY ordinal DESC "
            "SKIP $offset LIMIT $limit",
            id=symbol,
            offset=offset,
            limit=limit,
        )
        return [_touch(r, symbol, r["lines"], 0) for r in records]

    def touches_under(self, repo: str, path: str, exact: bool) -> list[Touch]:
        head = _FILE_BY_ID if exact else _FILES_UNDER
        records = self._read(  # type: ignore[attr-defined]
            head + "MATCH (p:Person)-[:AUTHORED]->(c:Commit)-[t:TOUCHED]->(x) "
            f"RETURN {_TOUCH_RETURN}, x.path AS path, t.added AS added, t.deleted AS deleted "
            "ORDER BY ordinal DESC, path",
            id=file_id(repo, path),
            repo=repo,
            prefix=path,
        )
        return [_touch(r, r["path"], r["added"], r["deleted"]) for r in records]

    def cochanges(self, repo: str, path: str, min_count: int, limit: int) -> list[CoChange]:
        records = self._read(  # type: ignore[attr-defined]
            _FILE_BY_ID + "MATCH (x)-[r:CO_CHANGES]-(o) WHERE r.count >= $min "
            "RETURN o.path AS other, r.count AS count, r.weight AS weight "
            "ORDER BY weight DESC, count DESC, other LIMIT $limit",
            id=file_id(repo, path),
            min=min_count,
            limit=limit,
        )
        return [CoChange(r["other"], r["count"], r["weight"]) for r in records]

    def symbol_cochanges(self, symbol: str, min_count: int, limit: int) -> list[CoChange]:
        records = self._read(  # type: ignore[attr-defined]
            "MATCH (s:Symbol {id: $id})-[r:CO_CHANGES]-(o:Symbol) WHERE r.count >= $min "
            "RETURN o.id AS other, r.count AS count, r.weight AS weight "
            "ORDER BY weight DESC, count DESC, other LIMIT $limit",
            id=symbol,
            min=min_count,
            limit=limit,
        )
        return [CoChange(r["other"], r["count"], r["weight"]) for r in records]

    def history_stats(self, repo: str) -> dict:
        record = self._read(  # type: ignore[attr-defined]
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
