"""Git history in the Neo4j store: (Person)-[:AUTHORED]->(Commit)-[:TOUCHED]->(File|Symbol),
(File)-[:CO_CHANGES]->(File) and the same between symbols; `changes` counts on files and
symbols. A file or symbol that leaves the index with history keeps its node as :RetiredFile or
:RetiredSymbol (with only its past) until the next mining re-keys or forgets it."""

from __future__ import annotations

from collections.abc import Iterable

from cartograph.model import CoChange, HistoryBatch, Touch, file_id

_TOUCH_RETURN = (
    "c.sha AS sha, c.at AS at, c.message AS message, p.email AS author, p.name AS name, "
    "p.bot AS bot, c.ordinal AS ordinal"
)
_FILE_BY_ID = "MATCH (x:File {id: $id}) "
_FILES_UNDER = "MATCH (x:File {repo: $repo}) WHERE x.path STARTS WITH $prefix "


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

    def history_orphans(self, repo: str) -> tuple[set[str], set[str]]:
        records = self._read(  # type: ignore[attr-defined]
            "MATCH (n:RetiredFile|RetiredSymbol {repo: $repo}) "
            "RETURN n:RetiredFile AS file, n.path AS path, n.id AS id",
            repo=repo,
        )
        paths = {r["path"] for r in records if r["file"]}
        return paths, {r["id"] for r in records if not r["file"]}

    def history_symbols(self, repo: str, paths: Iterable[str]) -> dict[str, set[str]]:
        records = self._read(  # type: ignore[attr-defined]
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

        def work(tx):
            for live, retired, mapping in (
                ("File", "RetiredFile", file_ids),
                ("Symbol", "RetiredSymbol", symbols),
            ):
                if mapping:
                    self._remap(tx, live, retired, mapping)
            tx.run(
                "MATCH (n:RetiredFile|RetiredSymbol {repo: $repo}) DETACH DELETE n", repo=repo
            ).consume()

        self._write(work)  # type: ignore[attr-defined]

    @staticmethod
    def _remap(tx, live: str, retired: str, mapping: dict[str, str | None]) -> None:
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
        moved_counts: dict[str, int] = {}
        for row in counts:
            target = mapping[row["source"]]
            if target and row["n"]:
                moved_counts[target] = moved_counts.get(target, 0) + row["n"]
        moved_pairs: dict[tuple[str, str], int] = {}
        for row in pairs:
            a, b = mapping.get(row["a"], row["a"]), mapping.get(row["b"], row["b"])
            if a and b and a != b:
                key = (min(a, b), max(a, b))
                moved_pairs[key] = moved_pairs.get(key, 0) + row["n"]
        tx.run(
            f"UNWIND $rows AS t MATCH (c:Commit {{id: t.commit}}) MATCH (x:{live} {{id: t.target}}) "
            "CREATE (c)-[r:TOUCHED]->(x) SET r = t.props",
            rows=moved_touches,
        ).consume()
        tx.run(
            f"UNWIND $rows AS x MATCH (n:{live} {{id: x.id}}) "
            "SET n.changes = coalesce(n.changes, 0) + x.n",
            rows=[{"id": k, "n": n} for k, n in moved_counts.items()],
        ).consume()
        tx.run(
            f"UNWIND $rows AS x MATCH (a:{live} {{id: x.a}}) MATCH (b:{live} {{id: x.b}}) "
            "MERGE (a)-[r:CO_CHANGES]->(b) ON CREATE SET r.count = x.n, r.weight = 0.0 "
            "ON MATCH SET r.count = r.count + x.n",
            rows=[{"a": a, "b": b, "n": n} for (a, b), n in moved_pairs.items()],
        ).consume()

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
            tx.run(
                "MATCH (n:RetiredFile|RetiredSymbol {repo: $repo}) DETACH DELETE n", repo=repo
            ).consume()
            tx.run("MATCH (r:Repo {name: $repo}) SET r.mined_sha = ''", repo=repo).consume()

        self._write(work)  # type: ignore[attr-defined]

    def refresh_cochange_weights(
        self, repo: str, files: Iterable[str] | None = None, symbols: Iterable[str] | None = None
    ) -> None:
        """weight = count / min(changes of a, changes of b), for every pair or (given the files
        and symbols whose change counts moved) for the pairs that hold one of them."""
        weight = (
            "WITH DISTINCT r, CASE WHEN a.changes < b.changes THEN a.changes ELSE b.changes END "
            "AS m SET r.weight = round(toFloat(r.count) / CASE WHEN m > 1 THEN m ELSE 1 END, 4)"
        )
        everything = files is None and symbols is None
        keys = {
            "File": [file_id(repo, p) for p in files or ()],
            "Symbol": list(symbols or ()),
        }

        def work(tx):
            for label in ("File", "Symbol"):
                if everything:
                    tx.run(
                        f"MATCH (a:{label} {{repo: $repo}})-[r:CO_CHANGES]->(b) {weight}",
                        repo=repo,
                    ).consume()
                    continue
                for start in range(0, len(keys[label]), 5000):
                    tx.run(
                        f"UNWIND $ids AS id MATCH (:{label} {{id: id}})-[r:CO_CHANGES]-() "
                        f"WITH DISTINCT r WITH r, startNode(r) AS a, endNode(r) AS b {weight}",
                        ids=keys[label][start : start + 5000],
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
        self, repo: str, kinds: Iterable[str], paths: Iterable[str] | None = None
    ) -> dict[str, list[tuple[int, int, str]]]:
        returns = "RETURN s.path AS path, s.start_line AS start, s.end_line AS end, s.id AS id"
        if paths is None:
            records = self._read(  # type: ignore[attr-defined]
                f"MATCH (s:Symbol {{repo: $repo}}) WHERE s.kind IN $kinds AND NOT s:Stub {returns}",
                repo=repo,
                kinds=list(kinds),
            )
        else:
            records = self._read(  # type: ignore[attr-defined]
                "UNWIND $paths AS path MATCH (s:Symbol {repo: $repo, path: path}) "
                f"WHERE s.kind IN $kinds AND NOT s:Stub {returns}",
                repo=repo,
                kinds=list(kinds),
                paths=list(paths),
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
            prefix=path.strip("/") + "/",
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
