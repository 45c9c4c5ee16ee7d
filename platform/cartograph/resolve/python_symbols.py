"""A Python module's symbols, from its own facts alone (what its resolution writes as symbols,
and what `index.whatif` shows for a file before it is indexed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cartograph.model import SymbolRow
from cartograph.parsing.facts import (
    SCOPE_DECORATORS,
    SCOPE_DOC,
    SCOPE_END,
    SCOPE_KIND,
    SCOPE_NAME,
    SCOPE_PARENT,
    SCOPE_QUALNAME,
    SCOPE_SIGNATURE,
    SCOPE_START,
)

if TYPE_CHECKING:
    from cartograph.resolve.python import ModuleFacts


def module_symbols(repo: str, mod: ModuleFacts) -> list[SymbolRow]:
    """A module's symbols, from its own facts alone (what its resolution writes as symbols)."""
    return _symbols(repo, mod)


def _symbols(repo: str, mod: ModuleFacts) -> list[SymbolRow]:
    facts = mod.facts
    scopes = facts["scopes"]
    ids = mod.symbol_ids
    all_names = facts.get("all")
    rows: list[SymbolRow] = []
    # a qualname defined more than once is one symbol: the first definition that is not an
    # @overload stub gives it its lines and signature
    representative: dict[str, int] = {}
    for index, row in enumerate(scopes):
        current = representative.get(ids[index])
        if current is None or (_is_overload(scopes[current]) and not _is_overload(row)):
            representative[ids[index]] = index
    seen: set[str] = set()
    exported_scope: list[bool] = []
    for index, row in enumerate(scopes):
        symbol_id = ids[index]
        if index == 0:
            exported_scope.append(True)
        else:
            parent = row[SCOPE_PARENT]
            name = row[SCOPE_NAME]
            parent_kind = scopes[parent][SCOPE_KIND]
            public = not name.startswith("_") or (name.startswith("__") and name.endswith("__"))
            if parent == 0 and all_names is not None:
                public = name in all_names
            exported_scope.append(public and exported_scope[parent] and parent_kind != "function")
        if symbol_id in seen or representative[symbol_id] != index:
            continue
        seen.add(symbol_id)
        kind = mod.kind(index)
        name = row[SCOPE_NAME] if index else mod.name.rpartition(".")[2]
        parent_id = ids[row[SCOPE_PARENT]] if index else None
        rows.append(
            SymbolRow(
                id=symbol_id,
                repo=repo,
                path=mod.path,
                name=name,
                qualname=mod.qualname(index),
                kind=kind,
                start_line=row[SCOPE_START],
                end_line=row[SCOPE_END],
                signature=row[SCOPE_SIGNATURE],
                doc=row[SCOPE_DOC],
                exported=exported_scope[index],
                parent=parent_id,
                decorators=list(row[SCOPE_DECORATORS]),
            )
        )
    for scope, name, start, end, text in facts["variables"]:
        parent_rel = scopes[scope][SCOPE_QUALNAME]
        rel = f"{parent_rel}.{name}" if parent_rel else name
        qualname = f"{mod.name}.{rel}"
        symbol_id = f"{repo}:{mod.path}#{qualname}"
        if symbol_id in seen:
            continue
        seen.add(symbol_id)
        public = not name.startswith("_")
        if scope == 0 and all_names is not None:
            public = name in all_names
        rows.append(
            SymbolRow(
                id=symbol_id,
                repo=repo,
                path=mod.path,
                name=name,
                qualname=qualname,
                kind="variable",
                start_line=start,
                end_line=end,
                signature=text,
                doc="",
                exported=public and exported_scope[scope],
                parent=ids[scope],
                decorators=[],
            )
        )
    return rows


def _is_overload(row: list) -> bool:
    return any(d.rpartition(".")[2] == "overload" for d in row[SCOPE_DECORATORS])
