"""The symbols a change adds, removes, moves, or changes the signature or body of: both sides
of every touched file resolved (`index.whatif`), matched by id, and compared over the lines
the diff changed."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from cartograph import languages
from cartograph.impact.diff import FileDiff
from cartograph.impact.source import Change
from cartograph.index.whatif import Versions
from cartograph.indexedfiles import FilesHere
from cartograph.model import Edge, SymbolRow, Unresolved
from cartograph.store.interfaces import FileState, Store

CHANGE_KINDS = ("removed", "signature", "body", "moved", "added")


@dataclass(slots=True)
class ChangedSymbol:
    id: str  # as indexed (the old side's id; for an added symbol, the new one)
    repo: str
    path: str
    qualname: str
    kind: str
    change: str  # one of CHANGE_KINDS
    line: int  # where it is now (where it was, when removed)
    end_line: int
    breaking: bool  # callers may break: removed, moved, or a signature callers cannot keep
    old_signature: str = ""
    new_signature: str = ""
    why: str = ""  # what about the signature breaks callers
    moved_to: str = ""  # the new id of a moved symbol


@dataclass(slots=True)
class ChangedFile:
    path: str
    status: str  # added, deleted, modified, renamed, copied, mode
    language: str  # "" : no indexed language
    old_path: str | None = None
    indexed: bool = True  # the graph holds it (or, when added, its language is indexed)
    note: str = ""  # binary, not applied, not an indexed language


@dataclass(slots=True)
class Sides:
    """Both versions of the touched files, resolved."""

    old: dict[str, SymbolRow] = field(default_factory=dict)
    new: dict[str, SymbolRow] = field(default_factory=dict)
    new_edges: dict[str, list[Edge]] = field(default_factory=dict)  # by source id
    new_unresolved: dict[str, list[Unresolved]] = field(default_factory=dict)
    added_lines: dict[str, set[int]] = field(default_factory=dict)  # new side, by path
    versions: Versions | None = None  # the new side, parsed
    states: dict[str, FileState] = field(default_factory=dict)  # the repository's, as stored
    resolved: set[str] = field(default_factory=set)  # new-side files whose edges are read
    unread: list[str] = field(default_factory=list)  # changed files left out: the time budget

    def resolve_new(self, paths: set[str]) -> None:
        """The new side's edges and unresolved calls of these files (resolved on demand: only
        files holding callers of what the change breaks need them)."""
        wanted = paths - self.resolved
        if not wanted or self.versions is None:
            return
        self.resolved |= wanted
        for resolution in self.versions.resolve(wanted).values():
            for edge in resolution.edges:
                self.new_edges.setdefault(edge.src, []).append(edge)
            for call in resolution.unresolved:
                self.new_unresolved.setdefault(call.src, []).append(call)


def resolve_sides(store: Store, change: Change, stop: Callable[[], bool] | None = None) -> Sides:
    """The symbols of the touched files on both sides; the new side's edges and unresolved
    calls. A file whose old side is the one indexed gives its stored symbols. With `stop`
    (whether the time is up), the files not parsed when it says so are left out on both sides
    (`Sides.unread`, as the patch names them)."""
    states = store.index.file_states(change.repo)
    sides = Sides(states=dict(states))
    record = store.repos.get_repo(change.repo)
    # the settings the change leaves alone, as this host has them (the work tree may not be here)
    files = FilesHere(store, record, change.data_dir) if record is not None else None
    for diff in change.patch.files:
        if diff.new_path:
            sides.added_lines[diff.new_path] = {n for h in diff.hunks for n in h.new_lines()}
    unchanged_old = {}
    for path, data in change.old.items():
        if data is None:
            continue
        state = states.get(path)
        if state is not None and state.sha256 == _sha(data):
            unchanged_old[path] = data
    for symbols in store.graph.symbols_in_files(change.repo, unchanged_old).values():
        for symbol in symbols:
            if symbol.kind != "route":  # the services stage's: see report._route_breaks
                sides.old[symbol.id] = symbol
    reparse = {p: d for p, d in change.old.items() if p not in unchanged_old and d is not None}
    unread: set[str] = set()
    if reparse:
        old_side = Versions(store, change.repo, reparse, states, stop=stop, files=files)
        unread.update(old_side.unread)
        for symbols in old_side.symbols().values():
            for symbol in symbols:
                sides.old[symbol.id] = symbol
    new_side = dict(change.new)
    for path, data in change.old.items():  # a deleted file is gone on the new side
        if path not in new_side and data is not None:
            new_side[path] = None
    for path in unread:  # not read on the old side: left as indexed on the new one too
        new_side.pop(path, None)
    sides.versions = Versions(store, change.repo, new_side, states, stop=stop, files=files)
    for symbols in sides.versions.symbols().values():
        for symbol in symbols:
            sides.new[symbol.id] = symbol
    unread.update(sides.versions.unread)
    if unread:
        # a file left out on either side is left out on both: a rename's two paths together
        for diff in change.patch.files:
            if diff.old_path in unread or diff.new_path in unread:
                sides.unread.append(diff.path)
                unread.update(p for p in (diff.old_path, diff.new_path) if p)
        for side in (sides.old, sides.new):
            for symbol_id in [i for i, symbol in side.items() if symbol.path in unread]:
                del side[symbol_id]
    return sides


def changed_files(store: Store, change: Change) -> list[ChangedFile]:
    indexed = store.graph.files(
        change.repo, [p for f in change.patch.files for p in (f.old_path, f.new_path) if p]
    )
    files = []
    for diff in change.patch.files:
        language = languages.language_of(diff.path) or ""
        note = ""
        if diff.binary:
            note = "binary"
        elif diff.path in change.not_applied:
            note = "not applied: " + change.not_applied[diff.path]
        elif not language:
            note = "not an indexed language"
        known = (diff.old_path in indexed) if diff.old_path else bool(language)
        files.append(
            ChangedFile(diff.path, diff.status, language, diff.old_path, known and not note, note)
        )
    return files


def changed_symbols(change: Change, sides: Sides) -> list[ChangedSymbol]:
    """What the change does to each symbol of the touched files."""
    diffs = {d.path: d for d in change.patch.files if not d.binary}
    by_old_path = {d.old_path: d for d in diffs.values() if d.old_path}
    old_touched = _touched(sides.old.values(), by_old_path, new=False)
    new_touched = _touched(sides.new.values(), diffs, new=True)
    renamed = {d.old_path: d.new_path for d in diffs.values() if d.old_path and d.new_path}
    found: list[ChangedSymbol] = []
    gone: list[SymbolRow] = []
    for symbol_id, old in sides.old.items():
        new = sides.new.get(symbol_id)
        if new is None and old.path in renamed:  # the file moved: the same qualname there
            new = sides.new.get(_id_in(old, renamed[old.path]))
        if new is None:
            gone.append(old)
            continue
        if new.id != old.id:
            found.append(_changed(old, "moved", new, moved_to=new.id))
        elif old.signature != new.signature and old.kind in ("function", "method"):
            why = signature_break(old, new)
            found.append(_changed(old, "signature", new, why=why, breaking=bool(why)))
        elif symbol_id in old_touched or symbol_id in new_touched:
            found.append(_changed(old, "body", new))
    moved_to = {c.moved_to for c in found}
    appeared = {
        symbol_id: s
        for symbol_id, s in sides.new.items()
        if symbol_id not in sides.old and symbol_id not in moved_to
    }
    by_name: dict[tuple[str, str], list[SymbolRow]] = {}
    for symbol in appeared.values():
        by_name.setdefault((symbol.name, symbol.kind), []).append(symbol)
    for old in gone:
        twins = by_name.get((old.name, old.kind), [])
        if len(twins) == 1 and twins[0].signature == old.signature and old.kind != "module":
            twin = twins.pop()
            del appeared[twin.id]
            found.append(_changed(old, "moved", twin, moved_to=twin.id))
        elif old.kind != "module":
            found.append(_changed(old, "removed", None))
    found.extend(_changed(s, "added", s) for s in appeared.values() if s.kind != "module")
    whole = {(c.change, c.id) for c in found if c.change in ("added", "removed")}
    found = [c for c in found if not _inside_same(c, whole)]
    order = {kind: place for place, kind in enumerate(CHANGE_KINDS)}
    found.sort(key=lambda c: (order[c.change], c.path, c.line, c.qualname))
    return found


def _changed(
    old: SymbolRow,
    change: str,
    new: SymbolRow | None,
    *,
    moved_to: str = "",
    why: str = "",
    breaking: bool | None = None,
) -> ChangedSymbol:
    where = new or old
    if breaking is None:
        breaking = change in ("removed", "moved")
    return ChangedSymbol(
        old.id,
        old.repo,
        where.path,
        where.qualname,
        where.kind,
        change,
        where.start_line,
        where.end_line,
        breaking,
        old.signature if change != "added" else "",
        new.signature if new is not None else "",
        why,
        moved_to,
    )


def _inside_same(changed: ChangedSymbol, whole: set[tuple[str, str]]) -> bool:
    """An added or removed symbol nested in one added or removed with it says nothing more
    (`whole`: the (change, id) of every added and removed symbol)."""
    if changed.change not in ("added", "removed"):
        return False
    prefix = changed.id.rpartition(".")[0]
    return (changed.change, prefix) in whole


def _id_in(symbol: SymbolRow, path: str) -> str:
    return f"{symbol.repo}:{path}#{symbol.qualname}"


def _touched(symbols: Iterable[SymbolRow], diffs: dict[str, FileDiff], new: bool) -> set[str]:
    """The symbols whose own lines (not those of a symbol nested in them) the diff changed."""
    by_path: dict[str, list[SymbolRow]] = {}
    for symbol in symbols:
        if symbol.path in diffs:
            by_path.setdefault(symbol.path, []).append(symbol)
    touched: set[str] = set()
    for path, found in by_path.items():
        diff = diffs[path]
        # the lines added (new side) or removed (old side) that hold code: a removal touches
        # the symbol that held the lines, an insertion the one that holds them now; a blank
        # line or a comment changes no symbol (a method added with a blank line after it does
        # not change its class)
        lines = _code_lines(diff, new)
        for line in lines:
            innermost = None
            for symbol in found:
                if symbol.kind == "module" or not symbol.start_line <= line <= symbol.end_line:
                    continue
                if innermost is None or symbol.start_line >= innermost.start_line:
                    innermost = symbol
            if innermost is not None:
                touched.add(innermost.id)
    return touched


def _code_lines(diff: FileDiff, new: bool) -> set[int]:
    found: set[int] = set()
    for hunk in diff.hunks:
        old_line, new_line = hunk.old_start, hunk.new_start
        for tag, text in hunk.lines:
            code = bool(text.strip()) and not text.lstrip().startswith(("#", "//"))
            if tag == "+":
                if new and code:
                    found.add(new_line)
                new_line += 1
            elif tag == "-":
                if not new and code:
                    found.add(old_line)
                old_line += 1
            else:
                old_line += 1
                new_line += 1
    return found


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------- signatures


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str
    optional: bool  # has a default (or `?` in TypeScript)
    star: str  # "", "*" (rest), "**"
    keyword_only: bool
    positional_only: bool


_SELF = ("self", "cls")
TRUNCATED = "…"  # how a long signature is stored cut short


def parameters(signature: str) -> list[Parameter] | None:
    """The parameters of a signature as stored (`(a, b=1, *args, c, **kw) -> int`), or None
    when it is not a parenthesised list."""
    start = signature.find("(")
    if start < 0:
        return None
    depth, end = 0, -1
    for index in range(start, len(signature)):
        char = signature[index]
        if char in "([{<":
            depth += 1
        elif char in ")]}>":
            depth -= 1
            if depth == 0:
                end = index
                break
    parts = _split_top(signature[start + 1 : end])
    if end < 0:
        if not signature.endswith(TRUNCATED):
            return None
        parts = _split_top(signature[start + 1 :])[:-1]  # stored cut short: the whole ones
    found: list[Parameter] = []
    keyword_only = False
    for part in parts:
        part = part.strip()
        if not part:
            continue
        if part == "/":
            found = [Parameter(p.name, p.optional, p.star, p.keyword_only, True) for p in found]
            continue
        if part == "*":
            keyword_only = True
            continue
        star = "**" if part.startswith("**") else "*" if part.startswith(("*", "...")) else ""
        if star == "*":
            keyword_only = True
        bare = part.lstrip("*.").strip()
        name = re.split(r"[\s:=?]", bare, maxsplit=1)[0]
        optional = "=" in bare or re.match(r"^[\w$]+\?", bare) is not None
        found.append(Parameter(name, optional, star, keyword_only and not star, False))
    return [p for p in found if p.name not in _SELF or found.index(p) != 0]


def _split_top(text: str) -> list[str]:
    parts, depth, current = [], 0, []
    quote = ""
    for char in text:
        if quote:
            current.append(char)
            if char == quote:
                quote = ""
            continue
        if char in "'\"":
            quote = char
        elif char in "([{<":
            depth += 1
        elif char in ")]}>":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return parts


def signature_break(old: SymbolRow, new: SymbolRow) -> str:
    """Why callers written against `old` may fail against `new` ("" when they cannot: only
    annotations changed, or parameters were added with defaults)."""
    before, after = parameters(old.signature), parameters(new.signature)
    if before is None or after is None:
        return "" if old.kind not in ("function", "method") else "the signature changed"
    if old.signature.endswith(TRUNCATED) or new.signature.endswith(TRUNCATED):
        # only the parameters both stored texts show are compared
        shown = min(len(before), len(after))
        before, after = before[:shown], after[:shown]
    old_names = {p.name: p for p in before}
    new_names = {p.name: p for p in after}
    takes_any_keyword = any(p.star == "**" for p in after)
    takes_any_positional = any(p.star == "*" for p in after)
    for param in before:
        if param.star:
            if not any(p.star == param.star for p in after):
                return f"no longer takes {param.star}{param.name}"
            continue
        if param.name not in new_names and not (takes_any_keyword and takes_any_positional):
            return f"parameter {param.name!r} was removed"
        kept = new_names.get(param.name)
        if kept is not None and param.optional and not kept.optional:
            return f"parameter {param.name!r} lost its default"
        if kept is not None and kept.keyword_only and not param.keyword_only:
            return f"parameter {param.name!r} became keyword-only"
    for param in after:
        if param.name not in old_names and not param.star and not param.optional:
            return f"new required parameter {param.name!r}"
    positional_before = [p.name for p in before if not p.star and not p.keyword_only]
    positional_after = [p.name for p in after if not p.star and not p.keyword_only]
    common = [n for n in positional_before if n in positional_after]
    if common != [n for n in positional_after if n in positional_before]:
        return "positional parameters were reordered"
    return ""
