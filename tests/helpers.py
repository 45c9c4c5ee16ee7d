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


def assert_fixture_graph(store, spec: dict, repo: str = "fixture") -> None:
    """A resolution fixture's contract on an indexed store: no `must_not` edge, exactly the
    `edges`, and every `unresolved` name recorded."""
    actual = graph_edges(store, repo)
    wanted = {(t, s, d, v) for t, s, d, v in spec["edges"]}
    invented = [e for e in spec.get("must_not", []) if any(a[:3] == tuple(e) for a in actual)]
    assert not invented, f"edges that must not exist: {invented}"
    missing = sorted(wanted - actual, key=str)
    extra = sorted(actual - wanted, key=str)
    assert not missing and not extra, f"\nmissing: {missing}\nextra:   {extra}"
    unresolved_names = {u.name for _, u in store.graph.search_unresolved("", repo, 10_000)}
    for name in spec.get("unresolved", []):
        assert name in unresolved_names, (
            f"{name!r} not recorded as unresolved: {sorted(unresolved_names)}"
        )


def ts_fixture_root() -> Path:
    return Path(__file__).parent / "resolution_ts"


def fixture_dirs(root: Path = RESOLUTION_FIXTURES) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir() and (p / "expected.json").exists())


def expected(fixture: Path) -> dict:
    return json.loads((fixture / "expected.json").read_text())
