"""Shared test helpers: read the graph back as plain tuples."""

from __future__ import annotations

import json
from pathlib import Path

from cartograph.model import split_symbol_id

RESOLUTION_FIXTURES = Path(__file__).parent / "resolution"
CHALLENGE = Path(__file__).parent / "resolution_challenge"
GRAPH_EDGE_TYPES = ("CALLS", "REFERENCES", "INHERITS")


def qualname(symbol_id: str) -> str:
    return split_symbol_id(symbol_id)[2]


def graph_edges(store, repo: str) -> set[tuple[str, str, str, str | None]]:
    """(type, source qualname, target qualname, via) of every CALLS/REFERENCES/INHERITS edge."""
    found = set()
    for item in store.graph.export(repo):
        if item["type"] == "edge" and item["label"] in GRAPH_EDGE_TYPES:
            via = None if item["label"] == "INHERITS" else item["via"]
            found.add((item["label"], qualname(item["src"]), qualname(item["dst"]), via))
    return found


def ts_fixture_root() -> Path:
    return Path(__file__).parent / "resolution_ts"


def fixture_dirs(root: Path = RESOLUTION_FIXTURES) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir() and (p / "expected.json").exists())


def expected(fixture: Path) -> dict:
    return json.loads((fixture / "expected.json").read_text())
