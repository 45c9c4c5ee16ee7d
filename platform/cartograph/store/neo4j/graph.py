"""Reads of the code graph in the Neo4j store. Search matches with Lucene over the same
identifier-split text as the SQLite store (the full-text index `symbol_text`), and ranks as the
SQLite store does: Lucene's best candidates are scored again with FTS5's BM25 (`store.bm25`);
which words to ask for is decided above the seam (`query/ranking.py`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from cartograph.model import (
    SYMBOL_FIELDS,
    Edge,
    FileRecord,
    SymbolRow,
    Unresolved,
    file_id,
    is_open_end,
)
from cartograph.store import bm25, traversal
from cartograph.store.export import export_graph
from cartograph.store.interfaces import (
    BODY_FIELDS,
    SYMBOL_TEXT_FIELDS,
    EdgeRow,
    EdgeTally,
    SymbolKey,
    Tallies,
    Term,
    TextMatch,
    TraceStep,
)
from cartograph.store.neo4j.connection import Neo4jConnection
from cartograph.store.neo4j.repos import Neo4jRepoCatalog

CHUNK = 2000
GRAPH_EDGE_TYPES = ("CALLS", "REFERENCES", "INHERITS", "ROUTES_TO", "HTTP_CALLS")
# search field → (the Symbol property the full-text index holds, its Lucene boost: the order in
# which Lucene gives the candidates a ranked match scores again with FTS5's weights)
SEARCH_FIELDS = {
    "name": ("search_name", 10),
    "qualname": ("search_qualname", 5),
    "context": ("search_context", 1),
    "body": ("search_body", 1),
}
_SYMBOL_KEYS = {"id": "id", "qualname": "qualname", "name": "name"}
# a ranked match scores again this many times its limit of Lucene's best candidates, by table:
# Lucene's order is furthest from FTS5's over the names (their short texts cost little)
RESCORED_POOL = {"names": 6, "body": 2}
SEARCH_NAME_FIELDS = ("name", "qualname", "context")  # FTS5's names table's columns, in order
_NAME_TEXTS = "[" + ", ".join(f"coalesce(s.search_{f}, '')" for f in SEARCH_NAME_FIELDS) + "]"
SIZE_KEYS = (
    "search_rows",
    "search_tokens",
    "body_rows",
    "body_tokens",
)  # a SearchSize node's figures
# (store URL, repository, index run) → its search sizes, for a graph without SearchSize nodes
_TABLE_SIZES: dict[tuple[str, str, str], Any] = {}


@dataclass(slots=True)
class _Counted:
    """Full-text counts as the store was at a generation: each term's matching rows (up to a
    cap) in one table, and the table's size (None until a ranked match asks it)."""

    generation: int | None
    terms: dict[Term, int] = field(default_factory=dict)
    table: bm25.TableSize | None = None


# (store URL, the table's fields, the cap) → its counts at the store's last generation seen: a
# read counts only the terms missing here, and reads the generation with them (after a write,
# what was kept is counted again); a term common in a codebase is counted once per process
_COUNTED: dict[tuple[str, tuple[str, ...], int | None], _Counted] = {}
COUNTED_TERMS_KEPT = 10_000  # terms kept per table (about 2 MB) before its counts start again
_GENERATION_ROW = (
    "MATCH (m:CartographMeta {key: 'generation'}) RETURN -1 AS i, null AS found, m.value AS n"
)
_TOKENS = "size([word IN split({0}, ' ') WHERE word <> ''])"  # words of a search text
# a repository's share of the full-text tables, as FTS5 sizes its tables (BM25's statistics)
REPO_SEARCH_SIZE = (
    "MATCH (s:Symbol {repo: $repo}) WHERE NOT s:Stub "
    "WITH s, coalesce(s.search_body, '') AS body "
    f"RETURN count(s) AS search_rows, sum(reduce(n = 0, text IN {_NAME_TEXTS} "
    f"| n + {_TOKENS.format('text')})) AS search_tokens, "
    "sum(CASE WHEN body <> '' THEN 1 ELSE 0 END) AS body_rows, "
    f"sum({_TOKENS.format('body')}) AS body_tokens"
)


def _count_terms(index: str, cap: int | None) -> str:
    """A read of how many symbols each of `$counted` (Lucene queries) matches in `index`, up to
    `$cap` when there is a cap: rows (i, null AS found, n)."""
    limit = ", {limit: $cap}" if cap is not None else ""
    return (
        "UNWIND range(0, size($counted) - 1) AS i CALL { WITH i "
        f"CALL db.index.fulltext.queryNodes('{index}', $counted[i]{limit}) YIELD node "
        "WHERE NOT node:Stub RETURN count(node) AS n } RETURN i, null AS found, n"
    )


_LUCENE_SPECIAL = set('+-&|!(){}[]^"~*?:\\/')
SYMBOL_RETURN = "{" + ", ".join(f"{f}: s.{f}" for f in SYMBOL_FIELDS) + "}"
_OTHER_RETURN = SYMBOL_RETURN.replace("s.", "o.")
_EDGE_RETURN = (
    "r.lines AS lines, r.count AS count, r.via AS via, r.confidence AS confidence, "
    "coalesce(r.order, 0) AS order"
)
# the columns of _EDGE_RETURN, with type, src and dst, as one map (a collected row)
_EDGE_ROW = ", ".join(
    f"{column}: {column}"
    for column in ("type", "src", "dst", "lines", "count", "via", "confidence", "order")
)


def symbol_from(row: Any) -> SymbolRow:
    return SymbolRow(
        row["id"],
        row["repo"],
        row["path"],
        row["name"],
        row["qualname"],
        row["kind"],
        row["start_line"],
        row["end_line"],
        row["signature"],
        row["doc"],
        bool(row["exported"]),
        row["parent"],
        list(row["decorators"] or []),
    )


def _edge(record: Any) -> Edge:
    return Edge(
        record["type"],
        record["src"],
        record["dst"],
        list(record["lines"] or []),
        record["count"],
        record["via"],
        record["confidence"],
        record["order"] or 0,
    )


def _types(types: Iterable[str]) -> str:
    """Relationship types for a pattern (`CALLS|REFERENCES`): they are written into the
    query, so only the graph's own types are accepted."""
    types = list(types)
    unknown = [t for t in types if t not in GRAPH_EDGE_TYPES]
    if unknown or not types:
        raise ValueError(f"not a relationship type of the code graph: {unknown or types}")
    return "|".join(types)


def lucene_query(match: TextMatch) -> str:
    """A TextMatch as a Lucene query over the full-text index: each term in each of the
    match's fields with that field's boost, the terms joined by AND or OR."""
    search_index(match.fields)
    clauses = [_lucene_term(term, match.fields) for term in match.terms]
    return (" AND " if match.mode == "all" else " OR ").join(clauses)


def in_repository(query: str, repo: str | None) -> str:
    """A Lucene query kept to one repository's symbols (the full-text index holds `repo`)."""
    if repo is None:
        return query
    quoted = repo.replace("\\", "\\\\").replace('"', '\\"')
    return f'+repo:"{quoted}" +({query})'


def search_index(fields: Sequence[str]) -> str:
    """The full-text index a match of `fields` asks: `symbol_text`, which holds the names,
    the context and the body — the body matched on its own, as in the SQLite store."""
    unknown = [f for f in fields if f not in SEARCH_FIELDS]
    if unknown:
        raise ValueError(f"no search field {unknown[0]!r} in the Neo4j store")
    if tuple(fields) != BODY_FIELDS and any(f in BODY_FIELDS for f in fields):
        raise ValueError("the body is matched on its own in the Neo4j store")
    return "symbol_text"


def _column_weights(match: TextMatch) -> list[float]:
    """The weight of each column of the full-text table `match` asks, as FTS5 weighs them, in
    the order of its search texts (the body, or the name, qualified name and context); 0 for a
    column the match does not ask."""
    names = BODY_FIELDS if match.fields == BODY_FIELDS else SEARCH_NAME_FIELDS
    return [bm25.FIELD_WEIGHTS[name] if name in match.fields else 0.0 for name in names]


def _lucene_term(term: Term, fields: Sequence[str]) -> str:
    escaped = "".join("\\" + c if c in _LUCENE_SPECIAL else c for c in term.word)
    if " " in term.word:  # a phrase
        text = f'"{escaped}"'
    else:
        text = escaped + ("*" if term.prefix else "")
    parts = [f"{SEARCH_FIELDS[f][0]}:{text}^{SEARCH_FIELDS[f][1]}" for f in fields]
    return "(" + " ".join(parts) + ")"


class Neo4jGraphReader:
    def __init__(self, connection: Neo4jConnection, repos: Neo4jRepoCatalog) -> None:
        self.connection = connection
        self.read = connection.read
        self.repos = repos

    def _collected(self, query: str, **params: Any) -> list:
        """The rows of a read whose query ends `RETURN collect(...) AS rows`: a read of many
        rows returns them in one record, as the driver spends about 15 µs on each record it
        receives (Django: 1,537 callers of one symbol took 65 ms as records, 35 ms collected)."""
        return self.read(query, **params)[0]["rows"]

    # ------------------------------------------------------------------ symbols
    def get_symbols(self, ids: Iterable[str]) -> dict[str, SymbolRow]:
        ids = sorted(set(ids))
        found: dict[str, SymbolRow] = {}
        for start in range(0, len(ids), CHUNK):
            rows = self._collected(
                f"UNWIND $ids AS id MATCH (s:Symbol {{id: id}}) WHERE NOT s:Stub "
                f"RETURN collect({SYMBOL_RETURN}) AS rows",
                ids=ids[start : start + CHUNK],
            )
            for row in rows:
                found[row["id"]] = symbol_from(row)
        return found

    def symbols_by(
        self, field: SymbolKey, value: str, repo: str | None, limit: int
    ) -> list[SymbolRow]:
        return self.symbols_by_each(field, [value], repo, limit)[value]

    def symbols_by_each(
        self, field: SymbolKey, values: Sequence[str], repo: str | None, limit: int
    ) -> dict[str, list[SymbolRow]]:
        unique = list(dict.fromkeys(values))
        if not unique:
            return {}
        key = _SYMBOL_KEYS[field]  # an indexed property, never text from outside
        repo_clause = " AND s.repo = $repo" if repo else ""
        records = self.read(  # every value in one read
            "UNWIND $values AS value CALL { WITH value "
            f"MATCH (s:Symbol {{{key}: value}}) WHERE NOT s:Stub{repo_clause} "
            "WITH s ORDER BY size(s.qualname), s.qualname, s.repo, s.path LIMIT $limit "
            f"RETURN collect({SYMBOL_RETURN}) AS found }} RETURN value, found",
            values=unique,
            repo=repo,
            limit=limit,
        )
        found: dict[str, list[SymbolRow]] = {value: [] for value in unique}
        for r in records:
            found[r["value"]] = [symbol_from(s) for s in r["found"]]
        return found

    def term_counts(
        self, terms: Sequence[Term], cap: int, fields: tuple[str, ...] = SYMBOL_TEXT_FIELDS
    ) -> dict[Term, int]:
        unique = list(dict.fromkeys(terms))
        if not unique:
            return {}
        counts, _kept, _rows = self._counted(
            fields,
            cap,
            unique,
            lambda counting, counted: self.read(counting, counted=counted, cap=cap),
        )
        return counts

    def _counted(
        self,
        fields: tuple[str, ...],
        cap: int | None,
        terms: list[Term],
        read: Callable[[str, list[str]], list],
    ) -> tuple[dict[Term, int], _Counted, list]:
        """Each term's matching rows (up to `cap`) in the full-text table over `fields`. Those
        this process counted at the store's current generation are kept (`_COUNTED`); the others
        are counted by `read(query, their Lucene queries)`, a read whose query ends with the
        given one (rows i, found null, n; and the generation's, i = -1), which can ask more
        before it. Returns the counts, what is kept for the table, and the read's other rows."""
        key = (self.connection.url, fields, cap)
        kept = _COUNTED.get(key)
        uncounted = [t for t in terms if kept is None or t not in kept.terms]
        index = search_index(fields)
        records = read(
            f"{_count_terms(index, cap)} UNION ALL {_GENERATION_ROW}",
            [lucene_query(TextMatch((t,), "all", fields)) for t in uncounted],
        )
        counts = {uncounted[r["i"]]: r["n"] for r in records if r["found"] is None and r["i"] >= 0}
        generation = next((r["n"] for r in records if r["i"] == -1), None)
        if kept is not None and kept.generation == generation:
            counts.update({t: kept.terms[t] for t in terms if t not in counts})
        else:  # written since (or never counted): what was kept is counted again
            again = [t for t in terms if t not in counts]
            if again:
                rows = self.read(
                    _count_terms(index, cap),
                    counted=[lucene_query(TextMatch((t,), "all", fields)) for t in again],
                    cap=cap,
                )
                counts.update({again[r["i"]]: r["n"] for r in rows})
            kept = _Counted(generation)
            if generation is not None:
                _COUNTED[key] = kept
        if len(kept.terms) + len(counts) > COUNTED_TERMS_KEPT:
            kept.terms.clear()
        kept.terms.update(counts)
        return counts, kept, [r for r in records if r["i"] >= 0 and r["found"] is not None]

    def search_texts(self, ids: Iterable[str]) -> dict[str, str]:
        unique = sorted(set(ids))
        found: dict[str, str] = {}
        for start in range(0, len(unique), CHUNK):
            records = self.read(
                "UNWIND $ids AS id MATCH (s:Symbol {id: id}) WHERE NOT s:Stub "
                "RETURN s.id AS id, [s.search_name, s.search_qualname, s.search_context, "
                "coalesce(s.search_body, '')] AS texts",
                ids=unique[start : start + CHUNK],
            )
            for r in records:
                found[r["id"]] = " ".join(t or "" for t in r["texts"])
        return found

    def match_symbols(
        self,
        match: TextMatch,
        repo: str | None,
        kinds: list[str] | None,
        limit: int,
        ranked: bool,
    ) -> list[tuple[SymbolRow, float]]:
        return self.match_symbols_each([match], repo, kinds, limit, ranked)[0]

    def match_symbols_each(
        self,
        matches: Sequence[TextMatch],
        repo: str | None,
        kinds: list[str] | None,
        limit: int,
        ranked: bool,
    ) -> list[list[tuple[SymbolRow, float]]]:
        asked = [(at, m) for at, m in enumerate(matches) if m.terms]
        found: list[list[tuple[SymbolRow, float]]] = [[] for _ in matches]
        if not asked:
            return found
        indexes = {search_index(m.fields) for _, m in asked}
        if len(indexes) != 1:
            raise ValueError(f"matches of one read ask one full-text index, not {sorted(indexes)}")
        index = indexes.pop()
        filters = ["NOT node:Stub"]
        if repo:
            filters.append("node.repo = $repo")
        if kinds:
            filters.append("node.kind IN $kinds")
        if not ranked:
            records = self.read(  # every match in one read
                "UNWIND range(0, size($queries) - 1) AS i CALL { WITH i "
                f"CALL db.index.fulltext.queryNodes('{index}', $queries[i]) YIELD node "
                f"WHERE {' AND '.join(filters)} WITH node AS s "
                "ORDER BY size(s.qualname), s.qualname LIMIT $n "
                f"RETURN collect({SYMBOL_RETURN}) AS found }} RETURN i, found",
                queries=[lucene_query(m) for _, m in asked],
                repo=repo,
                kinds=kinds,
                n=limit,
            )
            for r in records:
                found[asked[r["i"]][0]] = [(symbol_from(s), 0.0) for s in r["found"]]
            return found
        # ranked: Lucene's best candidates (a wider pool), scored again as FTS5 scores them
        # (`store.bm25`): Lucene weighs each field alone with its boost and a prefix flat
        body = asked[0][1].fields == BODY_FIELDS
        texts = "[coalesce(s.search_body, '')]" if body else _NAME_TEXTS
        terms = list(dict.fromkeys(t for _, m in asked for t in m.terms))
        if kinds:  # filtered here: all the hits are ordered
            best = (
                f"CALL db.index.fulltext.queryNodes('{index}', $queries[i]) YIELD node, score "
                f"WHERE {' AND '.join(filters)} WITH node AS s, score "
                "ORDER BY score DESC, s.qualname LIMIT $pool "
            )
            queries = [lucene_query(m) for _, m in asked]
        else:  # Lucene keeps to the repository and cuts its best itself
            best = (
                f"CALL db.index.fulltext.queryNodes('{index}', $queries[i], {{limit: $pool}}) "
                "YIELD node AS s WHERE NOT s:Stub "
            )
            queries = [in_repository(lucene_query(m), repo) for _, m in asked]
        fields = asked[0][1].fields

        def read(counting: str, counted: list[str]) -> list:  # candidates and counts, one read
            return self.read(
                f"UNWIND range(0, size($queries) - 1) AS i CALL {{ WITH i {best}"
                f"RETURN collect([s.id, s.qualname, {texts}]) AS found }} "
                f"RETURN i, found, null AS n UNION ALL {counting}",
                queries=queries,
                counted=counted,
                repo=repo,
                kinds=kinds,
                pool=limit * RESCORED_POOL["body" if body else "names"],
            )

        matching, kept, records = self._counted(fields, None, terms, read)
        if kept.table is None:
            kept.table = self._table_size(body)
        table = kept.table
        tops: list[tuple[int, list[tuple[str, str, float]]]] = []
        for r in records:
            at, match = asked[r["i"]]
            scoring = bm25.MatchScore(match.terms, table, matching)
            weights = _column_weights(match)
            scored = [
                (sid, qualname, scoring.row(row_texts, weights))
                for sid, qualname, row_texts in r["found"]
            ]
            scored.sort(key=lambda candidate: (-candidate[2], candidate[1]))
            tops.append((at, scored[:limit]))
        # the kept candidates' rows, read once: a whole row for each of the pool cost Django's
        # reports more than the search itself
        rows = self.get_symbols(sid for _, top in tops for sid, _, _ in top)
        for at, top in tops:  # a symbol deleted since the search is left out
            found[at] = [(rows[sid], score) for sid, _, score in top if sid in rows]
        return found

    def _table_size(self, body: bool) -> bm25.TableSize:
        """The full-text table's rows and tokens, as FTS5 counts them: every repository's
        symbols (the body's table: those with a body), summed from each repository's sizes,
        which its index run writes when it finishes (`REPO_SEARCH_SIZE`); a graph an earlier
        version wrote has none, and they are worked out here once per index run."""
        records = self.read(
            "MATCH (r:Repo) OPTIONAL MATCH (z:SearchSize {repo: r.name}) "
            "RETURN r.name AS repo, r.indexed_run AS run, z AS sizes"
        )
        total = bm25.TableSize(0, 0)
        for r in records:
            found = r["sizes"]
            if found is None:
                key = (self.connection.url, r["repo"], r["run"] or "")
                if key not in _TABLE_SIZES:
                    _TABLE_SIZES[key] = self.read(REPO_SEARCH_SIZE, repo=r["repo"])[0]
                found = _TABLE_SIZES[key]
            total = total + (
                bm25.TableSize(found["body_rows"], found["body_tokens"] or 0)
                if body
                else bm25.TableSize(found["search_rows"], found["search_tokens"] or 0)
            )
        return total

    def members(self, parent_ids: Iterable[str], name: str | None = None) -> list[SymbolRow]:
        parents = list(dict.fromkeys(parent_ids))
        found: list[SymbolRow] = []
        for start in range(0, len(parents), CHUNK):
            rows = self._collected(
                f"UNWIND range(0, size($parents) - 1) AS i WITH i, $parents[i] AS parent "
                f"MATCH (s:Symbol {{parent: parent}}) WHERE NOT s:Stub "
                f"AND ($name IS NULL OR s.name = $name) "
                f"WITH s ORDER BY i, s.start_line, s.qualname "
                f"RETURN collect({SYMBOL_RETURN}) AS rows",
                parents=parents[start : start + CHUNK],
                name=name,
            )
            found.extend(map(symbol_from, rows))
        return found

    def symbols_in_files(self, repo: str, paths: Iterable[str]) -> dict[str, list[SymbolRow]]:
        found: dict[str, list[SymbolRow]] = {path: [] for path in paths}
        rows = self._collected(
            f"UNWIND $paths AS path MATCH (s:Symbol {{repo: $repo, path: path}}) "
            "WHERE NOT s:Stub WITH s ORDER BY s.start_line, s.qualname "
            f"RETURN collect({SYMBOL_RETURN}) AS rows",
            repo=repo,
            paths=list(found),
        )
        for row in rows:
            symbol = symbol_from(row)
            found[symbol.path].append(symbol)
        return found

    def symbol_spans(
        self, repo: str, kinds: Iterable[str], paths: Iterable[str] | None = None
    ) -> dict[str, list[tuple[int, int, str]]]:
        returns = "RETURN s.path AS path, s.start_line AS start, s.end_line AS end, s.id AS id"
        if paths is None:
            records = self.read(
                f"MATCH (s:Symbol {{repo: $repo}}) WHERE s.kind IN $kinds AND NOT s:Stub {returns}",
                repo=repo,
                kinds=list(kinds),
            )
        else:
            records = self.read(
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

    # ------------------------------------------------------------------ edges
    def edges_of(
        self,
        ids: Iterable[str],
        direction: str,
        types: Iterable[str],
        limit: int | None = None,
        offset: int = 0,
    ) -> list[EdgeRow]:
        ids = list(ids)
        types = list(types)
        if not ids or not types:
            return []
        pattern = (
            "(o:Symbol)-[r]->(s:Symbol {id: id})"
            if direction == "in"
            else "(s:Symbol {id: id})-[r]->(o:Symbol)"
        )
        near, far = ("r_dst", "r_src") if direction == "in" else ("r_src", "r_dst")
        page = " SKIP $offset LIMIT $limit" if limit is not None else ""
        result: list[EdgeRow] = []
        for start in range(0, len(ids), CHUNK):
            rows = self._collected(
                f"UNWIND $ids AS id MATCH {pattern} WHERE type(r) IN $types "
                "WITH r, o, startNode(r).id AS r_src, endNode(r).id AS r_dst "
                f"WITH type(r) AS type, r_src AS src, r_dst AS dst, {_EDGE_RETURN}, "
                f"CASE WHEN NOT o:Stub THEN {_OTHER_RETURN} END AS other "
                f"ORDER BY {near}, other.repo, other.path, other.start_line, {far}{page} "
                f"RETURN collect({{{_EDGE_ROW}, other: other}}) AS rows",
                ids=ids[start : start + CHUNK],
                types=types,
                offset=offset,
                limit=limit if limit is not None else 0,
            )
            for r in rows:
                other = symbol_from(r["other"]) if r["other"] is not None else None
                result.append(EdgeRow(_edge(r), other))
        return result

    def edge_list(self, repo: str, types: Iterable[str]) -> list[tuple[str, str, str, str, float]]:
        records = self.read(
            "MATCH (s:Symbol {repo: $repo})-[r]->(t) WHERE type(r) IN $types "
            "RETURN s.id AS src, t.id AS dst, type(r) AS type, r.via AS via, "
            "r.confidence AS confidence",
            repo=repo,
            types=list(types),
        )
        return [(r["src"], r["dst"], r["type"], r["via"], r["confidence"]) for r in records]

    def edge_counts(
        self, ids: Iterable[str], direction: str, types: Iterable[str]
    ) -> dict[str, int]:
        ids = list(dict.fromkeys(ids))
        arrow = "<-[r]-()" if direction == "in" else "-[r]->()"
        counts = dict.fromkeys(ids, 0)
        for start in range(0, len(ids), CHUNK):
            records = self.read(
                f"UNWIND $ids AS id MATCH (s:Symbol {{id: id}}) MATCH (s){arrow} "
                "WHERE type(r) IN $types RETURN id, count(r) AS n",
                ids=ids[start : start + CHUNK],
                types=list(types),
            )
            counts.update((r["id"], r["n"]) for r in records)
        return counts

    def trace(
        self, root: str, direction: str, types: list[str], depth: int, fanout: int
    ) -> list[TraceStep]:
        return traversal.trace(self, root, direction, types, depth, fanout)

    def shortest_path(
        self, src: str, dst: str, types: list[str], max_depth: int
    ) -> list[Edge] | None:
        """Cypher's allShortestPaths, then the path whose node ids sort first — the choice
        the portable breadth-first version makes."""
        if src == dst:
            return []
        records = self.read(
            "MATCH (a:Symbol {id: $src}), (b:Symbol {id: $dst}) "
            f"MATCH p = allShortestPaths((a)-[:{_types(types)}*..{int(max_depth)}]->(b)) "
            "WITH p LIMIT 1000 "
            "RETURN [n IN nodes(p) | n.id] AS ids, "
            "[r IN relationships(p) | {type: type(r), src: startNode(r).id, dst: endNode(r).id, "
            "lines: r.lines, count: r.count, via: r.via, confidence: r.confidence, "
            "order: coalesce(r.order, 0)}] AS rels",
            src=src,
            dst=dst,
        )
        if not records:
            return None
        best = min(records, key=lambda r: r["ids"])
        return [_edge(r) for r in best["rels"]]

    # ------------------------------------------------------------------ files and the rest
    def files(
        self, repo: str, paths: Iterable[str] | None = None, under: str | None = None
    ) -> dict[str, FileRecord]:
        fields = (
            "f.repo AS repo, f.path AS path, f.language AS language, f.sha256 AS sha256, "
            "f.size AS size, f.mtime_ns AS mtime_ns, f.lines AS lines, f.is_test AS is_test, "
            "f.module AS module, f.parse_errors AS parse_errors"
        )
        if under is not None:
            records = self.read(
                f"MATCH (f:File) WHERE f.id STARTS WITH $prefix AND NOT f:Stub "
                f"RETURN {fields} ORDER BY f.path",
                prefix=file_id(repo, under.strip("/") + "/"),
            )
        elif paths is None:
            records = self.read(
                f"MATCH (f:File {{repo: $repo}}) WHERE NOT f:Stub RETURN {fields} ORDER BY f.path",
                repo=repo,
            )
        else:
            records = self.read(
                f"UNWIND $ids AS id MATCH (f:File {{id: id}}) WHERE NOT f:Stub RETURN {fields}",
                ids=[file_id(repo, p) for p in set(paths)],
            )
        return {
            r["path"]: FileRecord(
                r["repo"],
                r["path"],
                r["language"],
                r["sha256"],
                r["size"],
                r["mtime_ns"],
                r["lines"],
                bool(r["is_test"]),
                r["module"],
                r["parse_errors"],
            )
            for r in records
        }

    def _unresolved_rows(self, where: str, **params: Any) -> list[tuple[str, Unresolved]]:
        """(path, Unresolved) of the symbols `where` selects (`s` is the symbol)."""
        records = self.read(
            f"MATCH (s:Symbol) WHERE {where} "
            "AND (s.unresolved IS NOT NULL OR s.external_bases IS NOT NULL) "
            "RETURN s.id AS src, s.path AS path, s.start_line AS line, s.unresolved AS names, "
            "s.unresolved_lines AS lines, s.unresolved_from AS froms, "
            "s.unresolved_why AS whys, s.external_bases AS bases, "
            "s.external_bases_from AS bases_from",
            **params,
        )
        found: list[tuple[str, Unresolved]] = []
        for r in records:
            names = r["names"] or []
            whys = r["whys"] or [""] * len(names)  # written before reasons were kept
            for name, line, external, why in zip(
                names, r["lines"] or [], r["froms"] or [], whys, strict=True
            ):
                found.append((r["path"], Unresolved(r["src"], name, line, external, "call", why)))
            bases = r["bases"] or []
            froms = r["bases_from"] or [""] * len(bases)  # written before origins were kept
            for name, external in zip(bases, froms, strict=True):
                found.append((r["path"], Unresolved(r["src"], name, r["line"], external, "base")))
        return found

    def unresolved_of(self, src_ids: Iterable[str]) -> list[Unresolved]:
        rows = self._unresolved_rows("s.id IN $ids", ids=list(src_ids))
        return sorted((u for _, u in rows), key=lambda u: (u.src, u.line, u.name))

    def unresolved_names(self, repo: str, kind: str = "call") -> set[str]:
        field = "unresolved" if kind == "call" else "external_bases"
        records = self.read(
            f"MATCH (s:Symbol {{repo: $repo}}) WHERE s.{field} IS NOT NULL "
            f"UNWIND s.{field} AS name RETURN DISTINCT name",
            repo=repo,
        )
        return {r["name"] for r in records}

    def open_ends(self, repo: str) -> list[Unresolved]:
        rows = self._unresolved_rows("s.repo = $repo", repo=repo)
        return [u for _, u in rows if is_open_end(u)]

    def search_unresolved(
        self, name: str, repo: str | None, limit: int
    ) -> list[tuple[str, Unresolved]]:
        rows = self._unresolved_rows("($repo IS NULL OR s.repo = $repo)", repo=repo)
        needle = name.lower()
        rows = [(p, u) for p, u in rows if needle in u.name.lower()]
        rows.sort(key=lambda item: (item[1].src, item[1].line, item[1].name))
        return rows[:limit]

    def dead_code_candidates(
        self, repo: str, path_prefix: str, kinds: Sequence[str], types: Sequence[str]
    ) -> list[tuple[SymbolRow, int]]:
        records = self.read(
            "MATCH (s:Symbol {repo: $repo}) WHERE s.path STARTS WITH $prefix "
            "AND s.kind IN $kinds AND NOT s:Stub "
            "RETURN " + SYMBOL_RETURN + " AS s, "
            f"COUNT {{ (o:Symbol)-[:{_types(types)}]->(s) WHERE o <> s }} AS incoming "
            "ORDER BY s.path, s.start_line",
            repo=repo,
            prefix=path_prefix,
            kinds=list(kinds),
        )
        return [(symbol_from(r["s"]), r["incoming"]) for r in records]

    def import_links(self, repo: str) -> list[tuple[str, str, str, list[str]]]:
        records = self.read(
            "MATCH (f:File {repo: $repo})-[r:IMPORTS]->(t) "
            "RETURN f.path AS path, CASE WHEN t:File THEN 'file' ELSE 'package' END AS kind, "
            "CASE WHEN t:File THEN t.path ELSE t.name END AS target, r.names AS names "
            "ORDER BY path, kind, target",
            repo=repo,
        )
        return [(r["path"], r["kind"], r["target"], list(r["names"])) for r in records]

    def repo_links(self, repo: str) -> tuple[dict[str, int], dict[str, int]]:
        outgoing = self.read(
            "MATCH (a:Symbol {repo: $repo})-[:CALLS|REFERENCES|INHERITS|HTTP_CALLS]->(b:Symbol) "
            "WHERE b.repo <> $repo AND NOT b:Stub RETURN b.repo AS other, count(*) AS n",
            repo=repo,
        )
        incoming = self.read(
            "MATCH (a:Symbol)-[:CALLS|REFERENCES|INHERITS|HTTP_CALLS]->(b:Symbol {repo: $repo}) "
            "WHERE a.repo <> $repo RETURN a.repo AS other, count(*) AS n",
            repo=repo,
        )
        return (
            {r["other"]: r["n"] for r in outgoing},
            {r["other"]: r["n"] for r in incoming},
        )

    def most_called(self, repo: str, limit: int) -> list[tuple[SymbolRow, int]]:
        records = self.read(
            "MATCH (a:Symbol {repo: $repo})-[:CALLS]->(s:Symbol) WHERE a <> s "
            "AND s.kind <> 'class' AND NOT s:Stub "
            "WITH s, count(*) AS n RETURN " + SYMBOL_RETURN + " AS s, n "
            "ORDER BY n DESC, s.qualname LIMIT $limit",
            repo=repo,
            limit=limit,
        )
        return [(symbol_from(r["s"]), r["n"]) for r in records]

    def tallies(self, repo: str, target_name: str) -> Tallies:
        kinds = {
            r["kind"]: r["n"]
            for r in self.read(
                "MATCH (s:Symbol {repo: $repo}) WHERE NOT s:Stub "
                "RETURN s.kind AS kind, count(*) AS n ORDER BY kind",
                repo=repo,
            )
        }
        languages = {
            r["language"]: (r["n"], r["lines"])
            for r in self.read(
                "MATCH (f:File {repo: $repo}) WHERE NOT f:Stub "
                "RETURN f.language AS language, count(*) AS n, sum(f.lines) AS lines "
                "ORDER BY language",
                repo=repo,
            )
        }
        edges = [
            EdgeTally(r["type"], r["via"], r["named"], r["n"], r["sites"])
            for r in self.read(
                "MATCH (:Symbol {repo: $repo})-[r:CALLS|REFERENCES|INHERITS|ROUTES_TO|HTTP_CALLS]->(b) "
                "RETURN type(r) AS type, r.via AS via, coalesce(b.name = $name, false) AS named, "
                "count(*) AS n, sum(r.count) AS sites ORDER BY type, via, named",
                repo=repo,
                name=target_name,
            )
        ]
        unresolved = self.read(
            "MATCH (s:Symbol {repo: $repo}) WHERE s.unresolved IS NOT NULL "
            "RETURN sum(size(s.unresolved)) AS n, "
            "sum(size([f IN s.unresolved_from WHERE f <> ''])) AS ext",
            repo=repo,
        )[0]
        imports = {
            r["kind"]: r["n"]
            for r in self.read(
                "MATCH (f:File {repo: $repo})-[:IMPORTS]->(t) "
                "RETURN CASE WHEN t:File THEN 'file' ELSE 'package' END AS kind, count(*) AS n",
                repo=repo,
            )
        }
        errors = self.read(
            "MATCH (f:File {repo: $repo}) WHERE f.parse_errors > 0 RETURN count(f) AS n", repo=repo
        )[0]["n"]
        reasons = {
            r["reason"]: r["n"]
            for r in self.read(
                "MATCH (s:Symbol {repo: $repo}) WHERE s.unresolved IS NOT NULL "
                "UNWIND coalesce(s.unresolved_why, [x IN s.unresolved | '']) AS reason "
                "RETURN reason, count(*) AS n ORDER BY reason",
                repo=repo,
            )
        }
        return Tallies(
            kinds,
            languages,
            edges,
            unresolved["n"] or 0,
            unresolved["ext"] or 0,
            imports,
            errors,
            reasons,
        )

    def export(self, repo: str) -> Iterator[dict]:
        repo_row = self.repos.get_repo(repo)
        if repo_row is None:
            return
        symbols = (
            symbol_from(record["s"])
            for record in self.read(
                f"MATCH (s:Symbol {{repo: $repo}}) WHERE NOT s:Stub "
                f"RETURN {SYMBOL_RETURN} AS s ORDER BY s.path, s.start_line, s.qualname",
                repo=repo,
            )
        )
        edges = (
            _edge(r)
            for r in self.read(
                "MATCH (a:Symbol {repo: $repo})"
                "-[r:CALLS|REFERENCES|INHERITS|ROUTES_TO|HTTP_CALLS]->(b:Symbol) "
                f"RETURN type(r) AS type, a.id AS src, b.id AS dst, {_EDGE_RETURN} "
                "ORDER BY type, src, dst",
                repo=repo,
            )
        )
        packages = (
            (r["name"], r["eco"])
            for r in self.read(
                "MATCH (:Repo {name: $repo})-[:PROVIDES]->(p:Package) "
                "RETURN p.name AS name, p.ecosystem AS eco ORDER BY name",
                repo=repo,
            )
        )
        yield from export_graph(
            repo_row, self.files(repo).values(), symbols, edges, self.import_links(repo), packages
        )
