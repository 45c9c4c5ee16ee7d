"""Every resolution rule of docs/resolution.md, pinned by a fixture in tests/resolution/;
and the harder patterns of tests/resolution_challenge/, where no invented edge is allowed
(their recall is measured by `python -m benchmark.accuracy`)."""

from __future__ import annotations

import pytest
from cartograph.index import index_repository
from helpers import CHALLENGE, assert_fixture_graph, expected, fixture_dirs, graph_edges


@pytest.mark.parametrize("fixture", fixture_dirs(), ids=lambda p: p.name)
def test_resolution_fixture(fixture, stores):
    spec = expected(fixture)
    store = stores.open()
    index_repository(store, fixture, name="fixture", workers=1)
    assert_fixture_graph(store, spec)


@pytest.mark.parametrize("fixture", fixture_dirs(CHALLENGE), ids=lambda p: p.name)
def test_challenge_fixture_invents_no_edge(fixture, stores):
    spec = expected(fixture)
    store = stores.open()
    index_repository(store, fixture, name="fixture", workers=1)
    actual = {edge[:3] for edge in graph_edges(store, "fixture")}
    invented = [e for e in spec["must_not"] if tuple(e) in actual]
    assert not invented, f"edges that must not exist: {invented}"
    wanted = {tuple(e[:3]) for e in spec["edges"]}
    assert actual <= wanted, f"edges no one expects: {sorted(actual - wanted)}"
