"""Reads of the code graph in the SQLite store. Search is FTS5 over identifier-split text
(`symbol_search`: name, qualname, and path + doc as context), ranked by BM25 with the weights
below; which words to ask for is decided above the seam (`query/ranking.py`)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence

from cartograph.model import (
    OPENING_MODULES,
    Edge,
    FileRecord,
    SymbolRow,
    Unresolved,
    is_open_end,
    split_symbol_id,
)
from cartograph.store import traversal
from cartograph.store.bm25 import FIELD_WEIGHTS
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
from cartograph.store.sqlite.connection import (
    CHUNK,
    SYMBOL_SELECT,
    SYMBOL_WIDTH,
    SQLiteConnection,
    chunks,
    decode_lines,
    file_range,
    marks,
    repo_range,
    symbol_columns,
    symbol_row,
)
from cartograph.store.sqlite.repos import SQLiteRepoCatalog

# the FTS5 columns of symbol_search, in table order, with their BM25 weights
SEARCH_COLUMNS = {f: FIELD_WEIGHTS[f] for f in SYMBOL_TEXT_FIELDS}  # symbol_search's columns
SEARCH_WEIGHTS = ", ".join(str(weight) for weight in SEARCH_COLUMNS.values())

_SYMBOL_KEYS = {"id": "id", "qualname": "qualname", "name": "name"}
_EDGE_COLUMNS = 'e.type, e.src, e.dst, e.lines, e.count, e.via, e.confidence, e."order"'
_FILE_COLUMNS = "repo, path, language, sha256, size, mtime_ns, lines, is_test, module, parse_errors"


def _edge(row: Sequence) -> Edge:
    return Edge(row[0], row[1], row[2], decode_lines(row[3]), row[4], row[5], row[6], row[7])


def fts_query(match: TextMatch) -> str:
    """A TextMatch as an FTS5 MATCH expression: quoted words (`"word"*` for a prefix), joined
    by AND or OR, each limited to the match's columns when it names fewer than all."""
    if _table(match.fields) == "symbol_body":
        columns = ""
    else:
        columns = (
            "" if set(match.fields) == set(SEARCH_COLUMNS) else "{" + " ".join(match.fields) + "}: "
        )
    phrases = [columns + _phrase(term) for term in match.terms]
    return (" AND " if match.mode == "all" else " OR ").join(phrases)


def _table(fields: tuple[str, ...]) -> str:
    """The FTS5 table that holds `fields`: the body alone, or some of the names and context."""
    if tuple(fields) == BODY_FIELDS:
        return "symbol_body"
    unknown = [f for f in fields if f not in SEARCH_COLUMNS]
    if unknown:
        raise ValueError(
            f"no search field {unknown[0]!r} in the SQLite store"
            + (" (the body is matched on its own)" if unknown[0] in BODY_FIELDS else "")
        )
    return "symbol_search"


def _phrase(term: Term) -> str:
    return '"' + term.word.replace('"', '""') + '"' + ("*" if term.prefix else "")


class SQLiteGraphReader:
    def __init__(self, connection: SQLiteConnection, repos: SQLiteRepoCatalog) -> None:
        self.connection = connection
        self.db = connection.db
        self.repos = repos

    # ------------------------------------------------------------------ symbols
    def get_symbols(self, ids: Iterable[str]) -> dict[str, SymbolRow]:
        found: dict[str, SymbolRow] = {}
        for chunk in chunks(list(set(ids))):
            rows = self.db.execute(
                f"SELECT {SYMBOL_SELECT} FROM symbols WHERE id IN ({marks(len(chunk))})", chunk
            )
            for row in rows:
                found[row[0]] = symbol_row(row)
        return found

    def symbols_by(
        self, field: SymbolKey, value: str, repo: str | None, limit: int
    ) -> list[SymbolRow]:
        column = _SYMBOL_KEYS[field]  # an indexed column, never text from outside
        repo_clause = " AND repo = ?" if repo else ""
        rows = self.db.execute(
            f"SELECT {SYMBOL_SELECT} FROM symbols WHERE {column} = ?{repo_clause} "
            f"ORDER BY length(qualname), qualname, repo, path LIMIT ?",
            (value, *((repo,) if repo else ()), limit),
        )
        return [symbol_row(r) for r in rows]

    def symbols_by_each(
        self, field: SymbolKey, values: Sequence[str], repo: str | None, limit: int
    ) -> dict[str, list[SymbolRow]]:
        # in process: a lookup each costs no round trip
        return {
            value: self.symbols_by(field, value, repo, limit) for value in dict.fromkeys(values)
        }

    def term_counts(
        self, terms: Sequence[Term], cap: int, fields: tuple[str, ...] = SYMBOL_TEXT_FIELDS
    ) -> dict[Term, int]:
        counts: dict[Term, int] = {}
        for term in dict.fromkeys(terms):
            table = _table(fields)
            counts[term] = self.db.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)",
                (fts_query(TextMatch((term,), "all", fields)), cap),
            ).fetchone()[0]
        return counts

    def search_texts(self, ids: Iterable[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for chunk in chunks(list(set(ids))):
            rows = self.db.execute(
                f"SELECT s.id, t.name, t.qualname, t.context, coalesce(b.body, '') "
                f"FROM symbols s JOIN symbol_search t ON t.rowid = s.rowid "
                f"LEFT JOIN symbol_body b ON b.rowid = s.rowid "
                f"WHERE s.id IN ({marks(len(chunk))})",
                chunk,
            )
            for sid, *texts in rows:
                found[sid] = " ".join(texts)
        return found

    def match_symbols(
        self,
        match: TextMatch,
        repo: str | None,
        kinds: list[str] | None,
        limit: int,
        ranked: bool,
    ) -> list[tuple[SymbolRow, float]]:
        if not match.terms:
            return []
        table = _table(match.fields)
        clauses = [f"{table} MATCH ?"]
        args: list = [fts_query(match)]
        if repo:
            clauses.append("s.id >= ? AND s.id < ?")
            args.extend(repo_range(repo))
        if kinds:
            clauses.append(f"s.kind IN ({marks(len(kinds))})")
            args.extend(kinds)
        weights = SEARCH_WEIGHTS if table == "symbol_search" else "1.0"
        score = f"bm25({table}, {weights})" if ranked else "0.0"
        order = "score, s.qualname" if ranked else "length(s.qualname), s.qualname"
        rows = self.db.execute(
            f"SELECT {symbol_columns('s')}, {score} AS score "
            f"FROM {table} JOIN symbols s ON s.rowid = {table}.rowid "
            f"WHERE {' AND '.join(clauses)} ORDER BY {order} LIMIT ?",
            [*args, limit],
        )
        # bm25() is lower for better matches: negated, higher is better as the seam says
        return [(symbol_row(row), -float(row[SYMBOL_WIDTH])) for row in rows]

    def match_symbols_each(
        self,
        matches: Sequence[TextMatch],
        repo: str | None,
        kinds: list[str] | None,
        limit: int,
        ranked: bool,
    ) -> list[list[tuple[SymbolRow, float]]]:
        # in process: a match each costs no round trip
        return [self.match_symbols(match, repo, kinds, limit, ranked) for match in matches]

    def members(self, parent_ids: Iterable[str], name: str | None = None) -> list[SymbolRow]:
        # members share their parent's id as prefix: `repo:path#pkg.mod.Class.` ... `Class/`
        found: list[SymbolRow] = []
        named = " AND name = ?" if name is not None else ""
        for parent in dict.fromkeys(parent_ids):
            rows = self.db.execute(
                f"SELECT {SYMBOL_SELECT} FROM symbols WHERE id > ? AND id < ? AND parent = ?"
                f"{named} ORDER BY start_line, qualname",
                (parent + ".", parent + "/", parent, *((name,) if name is not None else ())),
            )
            found.extend(symbol_row(r) for r in rows)
        return found

    def symbols_in_files(self, repo: str, paths: Iterable[str]) -> dict[str, list[SymbolRow]]:
        return {
            path: [
                symbol_row(r)
                for r in self.db.execute(
                    f"SELECT {SYMBOL_SELECT} FROM symbols WHERE id >= ? AND id < ? "
                    f"ORDER BY start_line, qualname",
                    file_range(repo, path),
                )
            ]
            for path in dict.fromkeys(paths)
        }

    def symbol_spans(
        self, repo: str, kinds: Iterable[str], paths: Iterable[str] | None = None
    ) -> dict[str, list[tuple[int, int, str]]]:
        kinds = list(kinds)
        spans: dict[str, list[tuple[int, int, str]]] = {}
        ranges = [repo_range(repo)] if paths is None else [file_range(repo, p) for p in paths]
        for low, high in ranges:
            for path, start, end, sid in self.db.execute(
                f"SELECT path, start_line, end_line, id FROM symbols WHERE id >= ? AND id < ? "
                f"AND kind IN ({marks(len(kinds))})",
                (low, high, *kinds),
            ):
                spans.setdefault(path, []).append((start, end, sid))
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
        near, far = ("dst", "src") if direction == "in" else ("src", "dst")
        result: list[EdgeRow] = []
        for chunk in chunks(ids):
            sql = (
                f"SELECT {_EDGE_COLUMNS}, {symbol_columns('s')} "
                f"FROM edges e LEFT JOIN symbols s ON s.id = e.{far} "
                f"WHERE e.{near} IN ({marks(len(chunk))}) "
                f"AND e.type IN ({marks(len(types))}) "
                f"ORDER BY e.{near}, s.repo, s.path, s.start_line, e.{far}"
            )
            args: list = [*chunk, *types]
            if limit is not None and len(ids) <= CHUNK:
                sql += " LIMIT ? OFFSET ?"
                args += [limit, offset]
            for row in self.db.execute(sql, args):
                other = symbol_row(row[8:]) if row[8] is not None else None
                result.append(EdgeRow(_edge(row), other))
        return result

    def edge_list(self, repo: str, types: Iterable[str]) -> list[tuple[str, str, str, str, float]]:
        low, high = repo_range(repo)
        types = list(types)
        return self.db.execute(
            f"SELECT src, dst, type, via, confidence FROM edges WHERE src >= ? AND src < ? "
            f"AND type IN ({marks(len(types))})",
            (low, high, *types),
        ).fetchall()

    def edge_counts(
        self, ids: Iterable[str], direction: str, types: Iterable[str]
    ) -> dict[str, int]:
        ids = list(dict.fromkeys(ids))
        types = list(types)
        near = "dst" if direction == "in" else "src"
        counts = dict.fromkeys(ids, 0)
        for chunk in chunks(ids):
            for anchor, count in self.db.execute(
                f"SELECT {near}, count(*) FROM edges WHERE {near} IN ({marks(len(chunk))}) "
                f"AND type IN ({marks(len(types))}) GROUP BY {near}",
                (*chunk, *types),
            ):
                counts[anchor] = count
        return counts

    def trace(
        self, root: str, direction: str, types: list[str], depth: int, fanout: int
    ) -> list[TraceStep]:
        return traversal.trace(self, root, direction, types, depth, fanout)

    def shortest_path(
        self, src: str, dst: str, types: list[str], max_depth: int
    ) -> list[Edge] | None:
        return traversal.shortest_path(self, src, dst, types, max_depth)

    # ------------------------------------------------------------------ files and the rest
    def files(
        self, repo: str, paths: Iterable[str] | None = None, under: str | None = None
    ) -> dict[str, FileRecord]:
        if under is not None:
            folder = under.strip("/")
            rows = self.db.execute(
                f"SELECT {_FILE_COLUMNS} FROM files WHERE repo = ? AND path >= ? AND path < ? "
                "ORDER BY path",
                (repo, folder + "/", folder + "0"),  # "0" sorts right after "/"
            ).fetchall()
        elif paths is None:
            rows = self.db.execute(
                f"SELECT {_FILE_COLUMNS} FROM files WHERE repo = ? ORDER BY path", (repo,)
            ).fetchall()
        else:
            rows = []
            for chunk in chunks(list(set(paths))):
                rows.extend(
                    self.db.execute(
                        f"SELECT {_FILE_COLUMNS} FROM files WHERE repo = ? "
                        f"AND path IN ({marks(len(chunk))})",
                        (repo, *chunk),
                    )
                )
        return {
            r[1]: FileRecord(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), r[8], r[9])
            for r in rows
        }

    def unresolved_of(self, src_ids: Iterable[str]) -> list[Unresolved]:
        found: list[Unresolved] = []
        for chunk in chunks(list(src_ids)):
            rows = self.db.execute(
                f"SELECT src, name, line, external, kind, reason FROM unresolved WHERE src IN "
                f"({marks(len(chunk))}) ORDER BY src, line, name",
                chunk,
            )
            found.extend(Unresolved(*r) for r in rows)
        return found

    def unresolved_names(self, repo: str, kind: str = "call") -> set[str]:
        rows = self.db.execute(
            "SELECT DISTINCT name FROM unresolved WHERE src >= ? AND src < ? AND kind = ?",
            (*repo_range(repo), kind),
        )
        return {r[0] for r in rows}

    def open_ends(self, repo: str) -> list[Unresolved]:
        opening = ", ".join("?" for _ in OPENING_MODULES)
        rows = self.db.execute(
            "SELECT src, name, line, external, kind, reason FROM unresolved "
            "WHERE src >= ? AND src < ? "
            f"AND (kind = 'base' OR reason != 'external' OR external IN ({opening}))",
            (*repo_range(repo), *sorted(OPENING_MODULES)),
        )
        return [row for row in (Unresolved(*r) for r in rows) if is_open_end(row)]

    def search_unresolved(
        self, name: str, repo: str | None, limit: int
    ) -> list[tuple[str, Unresolved]]:
        clauses, args = [], []
        if name:
            clauses.append("instr(py_lower(name), ?) > 0")
            args.append(name.lower())
        if repo:
            clauses.append("src >= ? AND src < ?")
            args.extend(repo_range(repo))
        where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
        rows = self.db.execute(
            f"SELECT src, name, line, external, kind, reason FROM unresolved {where} "
            "ORDER BY src, line, name LIMIT ?",
            (*args, limit),
        )
        return [(split_symbol_id(r[0])[1], Unresolved(*r)) for r in rows]

    def dead_code_candidates(
        self, repo: str, path_prefix: str, kinds: Sequence[str], types: Sequence[str]
    ) -> list[tuple[SymbolRow, int]]:
        rows = self.db.execute(
            f"SELECT {symbol_columns('s')}, "
            "(SELECT count(*) FROM edges e WHERE e.dst = s.id AND e.src != s.id "
            f" AND e.type IN ({marks(len(types))})) AS incoming "
            "FROM symbols s WHERE s.id >= ? AND s.id < ? "
            f"AND s.kind IN ({marks(len(kinds))}) ORDER BY s.path, s.start_line",
            (*types, f"{repo}:{path_prefix}", f"{repo}:{path_prefix}\U0010ffff", *kinds),
        )
        return [(symbol_row(r), r[SYMBOL_WIDTH]) for r in rows]

    def import_links(self, repo: str) -> list[tuple[str, str, str, list[str]]]:
        rows = self.db.execute(
            "SELECT path, target_kind, target, names FROM imports WHERE repo = ? "
            "ORDER BY path, target_kind, target",
            (repo,),
        )
        return [(r[0], r[1], r[2], json.loads(r[3])) for r in rows]

    def repo_links(self, repo: str) -> tuple[dict[str, int], dict[str, int]]:
        low, high = repo_range(repo)
        types = "('CALLS', 'REFERENCES', 'INHERITS', 'HTTP_CALLS')"
        outgoing = self.db.execute(
            "SELECT substr(dst, 1, instr(dst, ':') - 1) AS other, count(*) FROM edges "
            f"WHERE src >= ? AND src < ? AND NOT (dst >= ? AND dst < ?) AND type IN {types} "
            "GROUP BY other",
            (low, high, low, high),
        )
        incoming = self.db.execute(
            "SELECT substr(src, 1, instr(src, ':') - 1) AS other, count(*) FROM edges "
            f"WHERE dst >= ? AND dst < ? AND NOT (src >= ? AND src < ?) AND type IN {types} "
            "GROUP BY other",
            (low, high, low, high),
        )
        return dict(outgoing.fetchall()), dict(incoming.fetchall())

    def most_called(self, repo: str, limit: int) -> list[tuple[SymbolRow, int]]:
        rows = self.db.execute(
            f"SELECT {symbol_columns('s')}, c.n "
            "FROM (SELECT dst, count(*) AS n FROM edges WHERE src >= ? AND src < ? "
            "AND type = 'CALLS' AND src != dst GROUP BY dst) c JOIN symbols s ON s.id = c.dst "
            "WHERE s.kind != 'class' ORDER BY c.n DESC, s.qualname LIMIT ?",
            (*repo_range(repo), limit),
        )
        return [(symbol_row(r), r[SYMBOL_WIDTH]) for r in rows]

    def tallies(self, repo: str, target_name: str) -> Tallies:
        db = self.db
        low, high = repo_range(repo)
        kinds = dict(
            db.execute(
                "SELECT kind, count(*) FROM symbols WHERE id >= ? AND id < ? GROUP BY kind "
                "ORDER BY kind",
                (low, high),
            ).fetchall()
        )
        languages = {
            language: (n, lines)
            for language, n, lines in db.execute(
                "SELECT language, count(*), sum(lines) FROM files WHERE repo = ? GROUP BY language "
                "ORDER BY language",
                (repo,),
            )
        }
        # a symbol id ends with its name, after the '.' or '#' that ends its qualname's scope
        tail = len(target_name) + 1
        edges = [
            EdgeTally(etype, via, bool(named), n, sites)
            for etype, via, named, n, sites in db.execute(
                "SELECT type, via, substr(dst, -?) IN (?, ?) AS named, count(*), "
                "coalesce(sum(count), 0) FROM edges WHERE src >= ? AND src < ? "
                "GROUP BY type, via, named ORDER BY type, via, named",
                (tail, "." + target_name, "#" + target_name, low, high),
            )
        ]
        unresolved, external = db.execute(
            "SELECT count(*), coalesce(sum(external != ''), 0) FROM unresolved "
            "WHERE src >= ? AND src < ? AND kind = 'call'",
            (low, high),
        ).fetchone()
        imports = dict(
            db.execute(
                "SELECT target_kind, count(*) FROM imports WHERE repo = ? GROUP BY target_kind",
                (repo,),
            ).fetchall()
        )
        parse_errors = db.execute(
            "SELECT count(*) FROM files WHERE repo = ? AND parse_errors > 0", (repo,)
        ).fetchone()[0]
        reasons = dict(
            db.execute(
                "SELECT reason, count(*) FROM unresolved WHERE src >= ? AND src < ? "
                "AND kind = 'call' GROUP BY reason ORDER BY reason",
                (low, high),
            ).fetchall()
        )
        return Tallies(
            kinds, languages, edges, unresolved, external, imports, parse_errors, reasons
        )

    def export(self, repo: str) -> Iterator[dict]:
        repo_row = self.repos.get_repo(repo)
        if repo_row is None:
            return
        low, high = repo_range(repo)
        symbols = (
            symbol_row(row)
            for row in self.db.execute(
                f"SELECT {SYMBOL_SELECT} FROM symbols WHERE id >= ? AND id < ? "
                f"ORDER BY path, start_line, qualname",
                (low, high),
            )
        )
        edges = (
            _edge(row)
            for row in self.db.execute(
                f"SELECT {_EDGE_COLUMNS} FROM edges e WHERE e.src >= ? AND e.src < ? "
                "ORDER BY e.type, e.src, e.dst",
                (low, high),
            )
        )
        packages = self.db.execute(
            "SELECT name, ecosystem FROM packages WHERE repo = ? ORDER BY name", (repo,)
        )
        yield from export_graph(
            repo_row, self.files(repo).values(), symbols, edges, self.import_links(repo), packages
        )
