"""The TypeScript/JavaScript resolution rules, pinned by the fixtures of tests/resolution_ts/
(edges written `path#qualname`; see its README for the contract and decisions)."""

from __future__ import annotations

import pytest
from cartograph.index import index_repository
from cartograph.model import split_symbol_id
from helpers import GRAPH_EDGE_TYPES, expected, fixture_dirs, ts_fixture_root

FIXTURES = fixture_dirs(ts_fixture_root())


def edges_by_location(store, repo: str) -> set[tuple[str, str, str, str | None]]:
    found = set()
    for item in store.graph.export(repo):
        if item["type"] == "edge" and item["label"] in GRAPH_EDGE_TYPES:
            src, dst = (_location(item["src"]), _location(item["dst"]))
            via = None if item["label"] == "INHERITS" else item["via"]
            found.add((item["label"], src, dst, via))
    return found


def _location(symbol_id: str) -> str:
    _repo, path, qualname = split_symbol_id(symbol_id)
    return f"{path}#{qualname}"


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_ts_resolution_fixture(fixture, stores):
    spec = expected(fixture)
    store = stores.open()
    index_repository(store, fixture, name="fixture", workers=1)
    actual = edges_by_location(store, "fixture")
    wanted = {(t, s, d, None if t == "INHERITS" else v) for t, s, d, v in spec["edges"]}
    invented = [e for e in spec.get("must_not", []) if any(a[:3] == tuple(e) for a in actual)]
    assert not invented, f"edges that must not exist: {invented}"
    # bonus edges (array element typing, a dynamic import's module): allowed, not required
    optional = {
        (t, s, d, None if t == "INHERITS" else v) for t, s, d, v in spec.get("optional", [])
    }
    missing = sorted(wanted - actual, key=str)
    extra = sorted(actual - wanted - optional, key=str)
    assert not missing and not extra, f"\nmissing: {missing}\nextra:   {extra}"
    unresolved_names = {u.name for _, u in store.graph.search_unresolved("", "fixture", 10_000)}
    for name in spec.get("unresolved", []):
        assert name in unresolved_names, f"{name!r} not unresolved: {sorted(unresolved_names)}"
