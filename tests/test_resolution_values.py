"""Calls through values (issue 13): the fixtures of tests/resolution_values/ and its challenge
set, run like tests/resolution/ and tests/resolution_challenge/: each rule fixture's complete
edge set, and for every fixture and challenge case no `must_not` edge (nor, for the challenge
set, any edge outside its `edges`: recall is measured by `python -m benchmark.accuracy`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cartograph import model
from cartograph.index import index_repository
from helpers import assert_fixture_graph, expected, fixture_dirs, graph_edges

VALUES = Path(__file__).parent / "resolution_values"
VALUES_CHALLENGE = VALUES / "challenge"
CHALLENGE_FIXTURES = fixture_dirs(VALUES_CHALLENGE)
ALL_FIXTURES = fixture_dirs(VALUES) + CHALLENGE_FIXTURES

VIAS = set(model.VIAS)  # every via the resolver writes


def fixture_id(path: Path) -> str:
    return f"challenge/{path.name}" if path.parent == VALUES_CHALLENGE else path.name


def indexed(stores, fixture: Path):
    store = stores.open()
    index_repository(store, fixture, name="fixture", workers=1)
    return store, graph_edges(store, "fixture")


@pytest.mark.parametrize("fixture", ALL_FIXTURES, ids=fixture_id)
def test_values_fixture_is_well_formed(fixture):
    """One entry per (type, source, target), a known via, and `must_not` never naming an
    expected edge."""
    spec = expected(fixture)
    keys = [tuple(e[:3]) for e in spec["edges"]]
    assert len(keys) == len(set(keys)), "an edge listed twice"
    for etype, _, _, via in spec["edges"]:
        assert (via is None) == (etype == "INHERITS") and (via is None or via in VIAS), via
    clash = [e for e in spec["must_not"] if tuple(e[:3]) in set(keys)]
    assert not clash, f"must_not edges that are also expected: {clash}"


@pytest.mark.parametrize("fixture", fixture_dirs(VALUES), ids=fixture_id)
def test_values_fixture(fixture, stores):
    assert_fixture_graph(indexed(stores, fixture)[0], expected(fixture))


@pytest.mark.parametrize("fixture", CHALLENGE_FIXTURES, ids=fixture_id)
def test_values_challenge_writes_only_expected_edges(fixture, stores):
    """Measured, not pinned: every edge written must be one a perfect resolver would write,
    and none that must not."""
    spec = expected(fixture)
    actual = {edge[:3] for edge in indexed(stores, fixture)[1]}
    invented = [e for e in spec["must_not"] if tuple(e) in actual]
    assert not invented, f"edges that must not exist: {invented}"
    wanted = {tuple(e[:3]) for e in spec["edges"]}
    assert actual <= wanted, f"edges no one expects: {sorted(actual - wanted)}"
