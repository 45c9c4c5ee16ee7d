"""`cartograph export`'s format: every node and relationship of a repository as one JSON
object each, built from what a store read, so every store writes the same output."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from cartograph.model import Edge, FileRecord, Repo, SymbolRow, file_id


def export_graph(
    repo: Repo,
    files: Iterable[FileRecord],
    symbols: Iterable[SymbolRow],
    edges: Iterable[Edge],
    imports: Iterable[tuple[str, str, str, list[str]]],
    packages: Iterable[tuple[str, str]],
) -> Iterator[dict]:
    name = repo.name
    yield {
        "type": "node",
        "label": "Repo",
        "id": name,
        "name": name,
        "indexed_sha": repo.indexed_sha,
        "indexed_at": repo.indexed_at,
    }
    for record in files:
        yield {
            "type": "node",
            "label": "File",
            "id": record.id,
            "repo": name,
            "path": record.path,
            "language": record.language,
            "sha256": record.sha256,
            "lines": record.lines,
            "is_test": record.is_test,
        }
        yield {"type": "edge", "label": "CONTAINS", "src": name, "dst": record.id}
    for symbol in symbols:
        yield {
            "type": "node",
            "label": "Symbol",
            "id": symbol.id,
            "repo": name,
            "path": symbol.path,
            "name": symbol.name,
            "qualname": symbol.qualname,
            "kind": symbol.kind,
            "start_line": symbol.start_line,
            "end_line": symbol.end_line,
            "signature": symbol.signature,
            "doc": symbol.doc,
            "exported": symbol.exported,
            "decorators": symbol.decorators,
        }
        yield {
            "type": "edge",
            "label": "DEFINES",
            "src": file_id(name, symbol.path),
            "dst": symbol.id,
        }
        if symbol.parent:
            yield {"type": "edge", "label": "HAS_MEMBER", "src": symbol.parent, "dst": symbol.id}
    for edge in edges:
        item = {
            "type": "edge",
            "label": edge.type,
            "src": edge.src,
            "dst": edge.dst,
            "lines": list(edge.lines),
            "count": edge.count,
            "via": edge.via,
            "confidence": edge.confidence,
        }
        if edge.type == "INHERITS":
            item["order"] = edge.order  # the base's place among the declared bases
        yield item
    for path, kind, target, names in imports:
        dst = file_id(name, target) if kind == "file" else f"package:{target}"
        yield {
            "type": "edge",
            "label": "IMPORTS",
            "src": file_id(name, path),
            "dst": dst,
            "names": names,
        }
    for package, ecosystem in packages:
        yield {
            "type": "node",
            "label": "Package",
            "id": f"package:{package}",
            "name": package,
            "ecosystem": ecosystem,
        }
        yield {"type": "edge", "label": "PROVIDES", "src": name, "dst": f"package:{package}"}
