"""The shared graph as one agent session sees it: a `GraphReader` over another, with the files
the session edited (and has not pushed) in place of the stored ones (`OverlayGraph`).

The layer is what an index run would write for those files (`index.whatif.Versions.writes`,
resolved against the stored repository), plus the files the session deleted. Every read that
names symbols, files or edges answers as if the layer had been written:

- the symbols, members, spans, files, imports and unresolved calls of an overlaid file are the
  layer's; a symbol the edit removed is gone, and so are the edges into it;
- the edges leaving an overlaid file are the layer's, the edges into its symbols are the stored
  ones from other files plus the layer's; counts (`edge_counts`, dead-code candidates) agree;
- a text match drops the stored versions of overlaid symbols and adds the layer's symbols that
  hold the words (`ranking.holds` over the same identifier-split text). A layer symbol scores
  what its stored version scored in the same match when it had one (an edit changes a few
  words), else the best stored score when it holds every word, else the weakest: placed among
  the stored matches, not re-scored against the whole graph;
- the routes an overlaid file declares, and the HTTP_CALLS of its requests, are what the
  services stage would list with the layer (`agents.overlay`);
- traversals (`trace`, `shortest_path`) walk these edges.

What stays the shared graph's: the files that import an overlaid file are not re-resolved (a
call of theirs the edit would now satisfy stays unresolved until the push is indexed), value
flow through the edited code is not recomputed (the stored flow edges leaving an overlaid
file are dropped with its other edges), and repository-wide tallies (term counts, statistics,
most called, cross-repository links, the export) are the stored ones."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from cartograph.identifiers import search_text
from cartograph.model import (
    EDGE_TYPES,
    Edge,
    FileRecord,
    FileWrite,
    SymbolRow,
    Unresolved,
    is_open_end,
    split_symbol_id,
)
from cartograph.store import traversal
from cartograph.store.interfaces import (
    SYMBOL_TEXT_FIELDS,
    EdgeRow,
    GraphReader,
    SymbolKey,
    Tallies,
    Term,
    TextMatch,
    TraceStep,
)


@dataclass
class Layer:
    """One repository's overlaid files, as the index would have written them."""

    repo: str
    paths: set[str]  # every overlaid path: rewritten or deleted
    records: dict[str, FileRecord] = field(default_factory=dict)
    symbols: dict[str, SymbolRow] = field(default_factory=dict)
    by_path: dict[str, list[SymbolRow]] = field(default_factory=dict)
    out: dict[str, list[Edge]] = field(default_factory=dict)
    into: dict[str, list[Edge]] = field(default_factory=dict)
    unresolved: dict[str, list[Unresolved]] = field(default_factory=dict)
    imports: list[tuple[str, str, str, list[str]]] = field(default_factory=list)
    texts: dict[str, dict[str, str]] = field(default_factory=dict)  # id → field → text

    def add(
        self, symbols: Iterable[SymbolRow], edges: Iterable[Edge], bodies: Mapping[str, str]
    ) -> None:
        """Symbols of the overlaid files (`bodies`: their text for search, by id) and edges
        leaving them."""
        touched = set()
        for symbol in symbols:
            touched.add(symbol.path)
            self.symbols[symbol.id] = symbol
            self.by_path.setdefault(symbol.path, []).append(symbol)
            self.texts[symbol.id] = {
                "name": search_text(symbol.name),
                "qualname": search_text(symbol.qualname),
                "context": search_text(f"{symbol.path} {symbol.doc}"),
                "body": bodies.get(symbol.id, ""),
            }
        for edge in edges:
            self.out.setdefault(edge.src, []).append(edge)
            self.into.setdefault(edge.dst, []).append(edge)
        for path in touched:
            self.by_path[path].sort(key=lambda s: (s.start_line, s.qualname))


def layer_of(repo: str, writes: Sequence[FileWrite], gone: Iterable[str]) -> Layer:
    layer = Layer(repo, {w.record.path for w in writes} | set(gone))
    for write in writes:
        path = write.record.path
        layer.records[path] = write.record
        layer.by_path[path] = []
        layer.add(write.symbols, write.edges, write.bodies)
        for unresolved in write.unresolved:
            layer.unresolved.setdefault(unresolved.src, []).append(unresolved)
        layer.imports.extend((path, i.target_kind, i.target, i.names) for i in write.imports)
    return layer


def _key(row: EdgeRow, direction: str) -> tuple:
    near, far = (row.edge.dst, row.edge.src) if direction == "in" else (row.edge.src, row.edge.dst)
    other = row.other
    place = (other.repo, other.path, other.start_line) if other is not None else ("", "", 0)
    return (near, *place, far)


class OverlayGraph:
    """`base` with `layers` (by repository) in place of the stored versions of their files."""

    def __init__(self, base: GraphReader, layers: Mapping[str, Layer]) -> None:
        self.base = base
        self.layers = dict(layers)
        # the stored symbols of the overlaid files, and the stored edges leaving them
        self.hidden: dict[str, SymbolRow] = {}
        for layer in self.layers.values():
            for symbols in base.symbols_in_files(layer.repo, layer.paths).values():
                self.hidden.update((s.id, s) for s in symbols)
        self.hidden_out = [row.edge for row in base.edges_of(self.hidden, "out", EDGE_TYPES)]
        self.hidden_into: Counter[tuple[str, str]] = Counter(
            (edge.dst, edge.type) for edge in self.hidden_out
        )
        # symbols the edits removed, and the stored edges from other files into them
        self.removed = {sid for sid in self.hidden if self._layered(sid) is None}
        removed_into = base.edges_of(self.removed, "in", EDGE_TYPES)
        self.removed_from: Counter[tuple[str, str]] = Counter(
            (row.edge.src, row.edge.type) for row in removed_into
        )

    # ------------------------------------------------------------------ what is overlaid
    def _layer(self, repo: str, path: str) -> Layer | None:
        layer = self.layers.get(repo)
        return layer if layer is not None and path in layer.paths else None

    def _covered(self, symbol_id: str) -> bool:
        repo, path, _ = split_symbol_id(symbol_id)
        return self._layer(repo, path) is not None

    def _layered(self, symbol_id: str) -> SymbolRow | None:
        repo, path, _ = split_symbol_id(symbol_id)
        layer = self._layer(repo, path)
        return layer.symbols.get(symbol_id) if layer is not None else None

    def _layer_symbols(self, repo: str | None = None) -> Iterator[SymbolRow]:
        for layer in self.layers.values():
            if repo is None or layer.repo == repo:
                yield from layer.symbols.values()

    # ------------------------------------------------------------------ symbols
    def get_symbols(self, ids: Iterable[str]) -> dict[str, SymbolRow]:
        ids = list(ids)
        found = self.base.get_symbols([i for i in ids if not self._covered(i)])
        for sid in ids:
            symbol = self._layered(sid)
            if symbol is not None:
                found[sid] = symbol
        return found

    def symbols_by(
        self, field: SymbolKey, value: str, repo: str | None, limit: int
    ) -> list[SymbolRow]:
        return self.symbols_by_each(field, [value], repo, limit)[value]

    def symbols_by_each(
        self, field: SymbolKey, values: Sequence[str], repo: str | None, limit: int
    ) -> dict[str, list[SymbolRow]]:
        stored = self.base.symbols_by_each(field, values, repo, limit + len(self.hidden))
        layered = list(self._layer_symbols(repo))
        found: dict[str, list[SymbolRow]] = {}
        for value, base_rows in stored.items():
            rows = [s for s in base_rows if not self._covered(s.id)]
            rows += [s for s in layered if getattr(s, field) == value]
            rows.sort(key=lambda s: (len(s.qualname), s.qualname, s.repo, s.path))
            found[value] = rows[:limit]
        return found

    def term_counts(
        self, terms: Sequence[Term], cap: int, fields: tuple[str, ...] = SYMBOL_TEXT_FIELDS
    ) -> dict[Term, int]:
        return self.base.term_counts(terms, cap, fields)

    def search_texts(self, ids: Iterable[str]) -> dict[str, str]:
        ids = list(ids)
        found = self.base.search_texts([i for i in ids if not self._covered(i)])
        for layer in self.layers.values():
            for sid in ids:
                if sid in layer.texts:
                    found[sid] = " ".join(layer.texts[sid].values())
        return found

    def match_symbols(
        self,
        match: TextMatch,
        repo: str | None,
        kinds: list[str] | None,
        limit: int,
        ranked: bool,
    ) -> list[tuple[SymbolRow, float]]:
        stored = self.base.match_symbols(match, repo, kinds, limit + len(self.hidden), ranked)
        former = {row.id: score for row, score in stored}
        results = [(row, score) for row, score in stored if not self._covered(row.id)]
        scores = [score for _, score in results]
        best, weakest = (max(scores), min(scores)) if scores else (1.0, 1.0)
        for symbol in self._layer_symbols(repo):
            if kinds and symbol.kind not in kinds:
                continue
            texts = self.layers[symbol.repo].texts[symbol.id]
            text = " ".join(texts[f] for f in match.fields if f in texts)
            held = [term for term in match.terms if term.held_by(text)]
            if not held or (match.mode == "all" and len(held) < len(match.terms)):
                continue
            if not ranked:
                score = 0.0
            elif symbol.id in former:
                score = former[symbol.id]
            else:
                score = best if len(held) == len(match.terms) else weakest
            results.append((symbol, score))
        if ranked:
            results.sort(key=lambda r: (-r[1], r[0].qualname))
        else:
            results.sort(key=lambda r: (len(r[0].qualname), r[0].qualname))
        return results[:limit]

    def match_symbols_each(
        self,
        matches: Sequence[TextMatch],
        repo: str | None,
        kinds: list[str] | None,
        limit: int,
        ranked: bool,
    ) -> list[list[tuple[SymbolRow, float]]]:
        return [self.match_symbols(match, repo, kinds, limit, ranked) for match in matches]

    def members(self, parent_ids: Iterable[str], name: str | None = None) -> list[SymbolRow]:
        parents = list(dict.fromkeys(parent_ids))
        found: list[SymbolRow] = []
        for parent in parents:
            repo, path, _ = split_symbol_id(parent)
            layer = self._layer(repo, path)
            if layer is None:
                found.extend(self.base.members([parent], name))
                continue
            found.extend(
                s
                for s in layer.by_path.get(path, [])
                if s.parent == parent and (name is None or s.name == name)
            )
        return found

    def symbols_in_files(self, repo: str, paths: Iterable[str]) -> dict[str, list[SymbolRow]]:
        layers = {path: self._layer(repo, path) for path in paths}
        stored = self.base.symbols_in_files(
            repo, [p for p, found in layers.items() if found is None]
        )
        return {
            path: stored[path] if layer is None else list(layer.by_path.get(path, []))
            for path, layer in layers.items()
        }

    def symbol_spans(
        self, repo: str, kinds: Iterable[str], paths: Iterable[str] | None = None
    ) -> dict[str, list[tuple[int, int, str]]]:
        kinds = list(kinds)
        layer = self.layers.get(repo)
        if layer is None:
            return self.base.symbol_spans(repo, kinds, paths)
        wanted = None if paths is None else set(paths)
        stored_paths = None if wanted is None else sorted(wanted - layer.paths)
        spans = {
            path: found
            for path, found in self.base.symbol_spans(repo, kinds, stored_paths).items()
            if path not in layer.paths
        }
        for path, symbols in layer.by_path.items():
            if wanted is not None and path not in wanted:
                continue
            found = [(s.start_line, s.end_line, s.id) for s in symbols if s.kind in kinds]
            if found:
                spans[path] = found
        return spans

    def files(
        self, repo: str, paths: Iterable[str] | None = None, under: str | None = None
    ) -> dict[str, FileRecord]:
        paths = None if paths is None else list(paths)
        found = self.base.files(repo, paths, under)
        layer = self.layers.get(repo)
        if layer is None:
            return found
        folder = under.strip("/") + "/" if under is not None else None
        for path in layer.paths:
            found.pop(path, None)
            record = layer.records.get(path)
            if record is None:
                continue
            if (paths is None or path in paths) and (folder is None or path.startswith(folder)):
                found[path] = record
        return dict(sorted(found.items()))

    # ------------------------------------------------------------------ edges
    def edges_of(
        self,
        ids: Iterable[str],
        direction: str,
        types: Iterable[str],
        limit: int | None = None,
        offset: int = 0,
    ) -> list[EdgeRow]:
        ids = list(dict.fromkeys(ids))
        types = list(types)
        if not self._touches(ids, direction):
            rows = self.base.edges_of(ids, direction, types, limit, offset)
            if not any(self._covered(self._far(row, direction)) for row in rows):
                return rows
        rows = self._edges(ids, direction, types)
        rows.sort(key=lambda row: _key(row, direction))
        return rows[offset : offset + limit] if limit is not None else rows

    @staticmethod
    def _far(row: EdgeRow, direction: str) -> str:
        return row.edge.src if direction == "in" else row.edge.dst

    def _touches(self, ids: list[str], direction: str) -> bool:
        """Whether the overlay may change the `direction` edges of `ids` (besides their far
        ends, which are checked on the rows)."""
        if any(self._covered(i) for i in ids):
            return True
        if direction == "in":
            return any(
                any(i in layer.into for layer in self.layers.values())
                or any(self.hidden_into[(i, t)] for t in EDGE_TYPES)
                for i in ids
            )
        return False

    def _edges(self, ids: list[str], direction: str, types: list[str]) -> list[EdgeRow]:
        # the stored edges into any of them that come from files not overlaid; the stored edges
        # out of those not overlaid
        if direction == "in":
            stored_ids = [i for i in ids if i not in self.removed]
        else:
            stored_ids = [i for i in ids if not self._covered(i)]
        rows = [
            row
            for row in self.base.edges_of(stored_ids, direction, types)
            if not (direction == "in" and self._covered(row.edge.src))
        ]
        layer_edges: list[Edge] = []
        for sid in ids:
            if direction == "out" and sid in self.removed:
                continue
            for layer in self.layers.values():
                edges = (layer.into if direction == "in" else layer.out).get(sid, [])
                layer_edges.extend(e for e in edges if e.type in types)
        if direction == "in":
            layer_edges = [e for e in layer_edges if e.dst not in self.removed]
        others = self.get_symbols({e.src if direction == "in" else e.dst for e in layer_edges})
        rows += [EdgeRow(e, others.get(e.src if direction == "in" else e.dst)) for e in layer_edges]
        kept = []
        for row in rows:
            far = self._far(row, direction)
            if far in self.removed:
                continue
            if self._covered(far):
                row = EdgeRow(row.edge, self._layered(far))
            kept.append(row)
        return kept

    def edge_counts(
        self, ids: Iterable[str], direction: str, types: Iterable[str]
    ) -> dict[str, int]:
        ids = list(dict.fromkeys(ids))
        types = list(types)
        counts = self.base.edge_counts(ids, direction, types)
        for sid in ids:
            if sid in self.removed:
                counts[sid] = 0
            elif direction == "out" and self._covered(sid):
                counts[sid] = sum(
                    1
                    for layer in self.layers.values()
                    for e in layer.out.get(sid, [])
                    if e.type in types and e.dst not in self.removed
                )
            elif direction == "out":
                counts[sid] -= sum(self.removed_from[(sid, t)] for t in types)
            else:
                counts[sid] += self._layer_into(sid, types, False) - self._hidden_into(sid, types)
        return counts

    def edge_list(self, repo: str, types: Iterable[str]) -> list[tuple[str, str, str, str, float]]:
        types = list(types)
        rows = [
            row
            for row in self.base.edge_list(repo, types)
            if not self._covered(row[0]) and row[1] not in self.removed
        ]
        layer = self.layers.get(repo)
        if layer is not None:
            rows += [
                (e.src, e.dst, e.type, e.via, e.confidence)
                for edges in layer.out.values()
                for e in edges
                if e.type in types and e.dst not in self.removed
            ]
        return rows

    # ------------------------------------------------------------------ unresolved, imports
    def unresolved_of(self, src_ids: Iterable[str]) -> list[Unresolved]:
        ids = list(src_ids)
        found = self.base.unresolved_of([i for i in ids if not self._covered(i)])
        for layer in self.layers.values():
            for sid in ids:
                found.extend(layer.unresolved.get(sid, []))
        return found

    def unresolved_names(self, repo: str, kind: str = "call") -> set[str]:
        names = self.base.unresolved_names(repo, kind)
        layer = self.layers.get(repo)
        if layer is not None:
            names |= {u.name for us in layer.unresolved.values() for u in us if u.kind == kind}
        return names

    def open_ends(self, repo: str) -> list[Unresolved]:
        found = [u for u in self.base.open_ends(repo) if not self._covered(u.src)]
        layer = self.layers.get(repo)
        if layer is not None:
            found += [u for us in layer.unresolved.values() for u in us if is_open_end(u)]
        return found

    def search_unresolved(
        self, name: str, repo: str | None, limit: int
    ) -> list[tuple[str, Unresolved]]:
        stored = self.base.search_unresolved(name, repo, limit + 10_000)
        found = [(path, u) for path, u in stored if not self._covered(u.src)]
        for layer in self.layers.values():
            if repo is not None and layer.repo != repo:
                continue
            found += [
                (split_symbol_id(u.src)[1], u)
                for us in layer.unresolved.values()
                for u in us
                if name.lower() in u.name.lower()
            ]
        found.sort(key=lambda pu: (pu[1].src, pu[1].line, pu[1].name))
        return found[:limit]

    def dead_code_candidates(
        self, repo: str, path_prefix: str, kinds: Sequence[str], types: Sequence[str]
    ) -> list[tuple[SymbolRow, int]]:
        stored = self.base.dead_code_candidates(repo, path_prefix, kinds, types)
        layer = self.layers.get(repo)
        if layer is None:
            return stored
        types = list(types)
        # a stored symbol keeps its count from other symbols, less the edges of the overlaid
        # files' stored versions, plus the layer's; a layer symbol counts the stored edges from
        # files not overlaid plus the layer's (an edge of a symbol to itself counts for nothing)
        found = [
            (s, n - self._hidden_into(s.id, types) + self._layer_into(s.id, types))
            for s, n in stored
            if not self._covered(s.id)
        ]
        added = [
            s for s in layer.symbols.values() if s.path.startswith(path_prefix) and s.kind in kinds
        ]
        from_stored = self.base.edge_counts([s.id for s in added], "in", types)
        found += [
            (s, from_stored[s.id] - self._hidden_into(s.id, types) + self._layer_into(s.id, types))
            for s in added
        ]
        found.sort(key=lambda sn: (sn[0].path, sn[0].start_line))
        return found

    def _hidden_into(self, sid: str, types: list[str]) -> int:
        return sum(self.hidden_into[(sid, t)] for t in types)

    def _layer_into(self, sid: str, types: list[str], besides_self: bool = True) -> int:
        return sum(
            1
            for layer in self.layers.values()
            for e in layer.into.get(sid, [])
            if e.type in types and not (besides_self and e.src == e.dst)
        )

    def import_links(self, repo: str) -> list[tuple[str, str, str, list[str]]]:
        layer = self.layers.get(repo)
        if layer is None:
            return self.base.import_links(repo)
        rows = [r for r in self.base.import_links(repo) if r[0] not in layer.paths]
        return sorted(rows + layer.imports, key=lambda r: (r[0], r[1], r[2]))

    # ------------------------------------------------------------------ the shared graph's
    def most_called(self, repo: str, limit: int) -> list[tuple[SymbolRow, int]]:
        return self.base.most_called(repo, limit)

    def repo_links(self, repo: str) -> tuple[dict[str, int], dict[str, int]]:
        return self.base.repo_links(repo)

    def tallies(self, repo: str, target_name: str) -> Tallies:
        return self.base.tallies(repo, target_name)

    def export(self, repo: str) -> Iterator[dict]:
        return self.base.export(repo)

    # ------------------------------------------------------------------ traversals
    def trace(
        self, root: str, direction: str, types: list[str], depth: int, fanout: int
    ) -> list[TraceStep]:
        return traversal.trace(self, root, direction, types, depth, fanout)

    def shortest_path(
        self, src: str, dst: str, types: list[str], max_depth: int
    ) -> list[Edge] | None:
        return traversal.shortest_path(self, src, dst, types, max_depth)
