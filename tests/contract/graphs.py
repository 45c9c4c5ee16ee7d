"""Small graphs written straight through `IndexWriter`, for the contract tests: no parser, no
resolver, so a test says exactly which rows the store holds."""

from __future__ import annotations

from cartograph.model import (
    Edge,
    FileRecord,
    FileWrite,
    ImportLink,
    Repo,
    SymbolRow,
    Unresolved,
    symbol_id,
)


def sym(
    repo: str,
    path: str,
    qualname: str,
    kind: str = "function",
    line: int = 1,
    parent: str | None = None,
    doc: str = "",
) -> SymbolRow:
    return SymbolRow(
        symbol_id(repo, path, qualname),
        repo,
        path,
        qualname.rpartition(".")[2],
        qualname,
        kind,
        line,
        line + 2,
        f"def {qualname.rpartition('.')[2]}()",
        doc,
        True,
        parent,
        [],
    )


def edge(kind: str, src: SymbolRow, dst: SymbolRow, via: str = "scope", order: int = 0) -> Edge:
    return Edge(kind, src.id, dst.id, [src.start_line + 1], 1, via, 1.0, order)


def file_write(
    repo: str,
    path: str,
    symbols: list[SymbolRow],
    edges: list[Edge] | None = None,
    unresolved: list[Unresolved] | None = None,
    imports: list[ImportLink] | None = None,
    deps: list[str] | None = None,
    facts: bytes | None = None,
    language: str = "python",
    lines: int = 10,
    parse_errors: int = 0,
    is_test: bool = False,
) -> FileWrite:
    module = path.rsplit(".", 1)[0].replace("/", ".")
    record = FileRecord(
        repo,
        path,
        language,
        "0" * 64,
        100,
        1,
        lines,
        is_test,
        module,
        parse_errors,
        f"iface-{path}",
        "",
        f"resolved-{path}",
    )
    return FileWrite(
        record, facts, symbols, edges or [], unresolved or [], imports or [], deps or []
    )


def module_symbol(repo: str, path: str) -> SymbolRow:
    return sym(repo, path, path.rsplit(".", 1)[0].replace("/", "."), kind="module", line=1)


def build(store, repo: str, writes: list[FileWrite]) -> None:
    """A repository as an index run leaves it: its record, its files, the run finished (on
    Neo4j that also waits for the full-text index)."""
    store.repos.upsert_repo(Repo(repo, indexed_sha="c0ffee"))
    store.index.write_files(repo, writes, replace=False)
    store.index.finish_run(repo)
