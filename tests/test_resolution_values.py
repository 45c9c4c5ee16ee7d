"""Calls through values (issue 13): the fixtures of tests/resolution_values/ and its challenge
set, run like tests/resolution/ and tests/resolution_challenge/.

- `must_not` holds today and runs by default: no fixture may get an invented edge (nor any
  edge outside its `edges` and `retired` lists).
- The complete edge sets of the rules built so far (`IMPLEMENTED`) always run; the others
  describe rules not implemented yet, so they are marked `values` and skipped unless
  CARTOGRAPH_VALUES_SUITE is set (see tests/resolution_values/README.md):

      CARTOGRAPH_VALUES_SUITE=1 python -m pytest tests/test_resolution_values.py -m values
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cartograph.index import index_repository
from helpers import expected, fixture_dirs, graph_edges

VALUES = Path(__file__).parent / "resolution_values"
VALUES_CHALLENGE = VALUES / "challenge"

values_suite = pytest.mark.skipif(
    not os.environ.get("CARTOGRAPH_VALUES_SUITE"),
    reason="issue 13 rules not implemented yet: set CARTOGRAPH_VALUES_SUITE=1 to run",
)
CHALLENGE_FIXTURES = fixture_dirs(VALUES_CHALLENGE) if VALUES_CHALLENGE.is_dir() else []
ALL_FIXTURES = fixture_dirs(VALUES) + CHALLENGE_FIXTURES


def fixture_id(path: Path) -> str:
    return f"challenge/{path.name}" if path.parent == VALUES_CHALLENGE else path.name


def indexed_edges(stores, fixture: Path) -> set[tuple[str, str, str, str | None]]:
    store = stores.open()
    index_repository(store, fixture, name="fixture", workers=1)
    return graph_edges(store, "fixture")


VIAS = {"argument", "container", "return", "lambda", "decorator", "protocol", "property"}
VIAS |= {"fixture", "dispatch", "scope", "import", "self", "inheritance", "super"}
VIAS |= {"constructor", "annotation", "injection", "export"}


@pytest.mark.parametrize("fixture", ALL_FIXTURES, ids=fixture_id)
def test_values_fixture_is_well_formed(fixture):
    """One entry per (type, source, target); a known via; `must_not` and `retired` (edges
    today's resolver writes that the new rules drop) never name an expected edge, nor each
    other."""
    spec = expected(fixture)
    keys = [tuple(e[:3]) for e in spec["edges"]]
    assert len(keys) == len(set(keys)), "an edge listed twice"
    for etype, _, _, via in spec["edges"]:
        assert (via is None) == (etype == "INHERITS") and (via is None or via in VIAS), via
    for key in ("must_not", "retired"):
        clash = [e for e in spec.get(key, []) if tuple(e[:3]) in set(keys)]
        assert not clash, f"{key} edges that are also expected: {clash}"
    retired = {tuple(e) for e in spec.get("retired", [])}
    clash = [e for e in spec["must_not"] if tuple(e) in retired]
    assert not clash, f"must_not holds today, so it cannot name a retired edge: {clash}"


@pytest.mark.parametrize("fixture", ALL_FIXTURES, ids=fixture_id)
def test_values_fixture_invents_no_edge(fixture, stores):
    """No `must_not` edge, and no edge outside `edges` and `retired` (today's edges that the
    new rules replace): holds today and must keep holding while the rules are built."""
    spec = expected(fixture)
    actual = {edge[:3] for edge in indexed_edges(stores, fixture)}
    invented = [e for e in spec["must_not"] if tuple(e) in actual]
    assert not invented, f"edges that must not exist: {invented}"
    allowed = {tuple(e[:3]) for e in spec["edges"]} | {tuple(e) for e in spec.get("retired", [])}
    assert actual <= allowed, f"edges no one expects: {sorted(actual - allowed)}"


# the rules built so far: their complete edge sets always run (a rule done moves its fixture
# to tests/resolution/, as the packaging fixtures did)
IMPLEMENTED: set[str] = set()


def _complete_sets() -> list:
    return [
        pytest.param(
            path,
            id=fixture_id(path),
            marks=() if path.name in IMPLEMENTED else (pytest.mark.values, values_suite),
        )
        for path in fixture_dirs(VALUES)
    ]


@pytest.mark.parametrize("fixture", _complete_sets())
def test_values_fixture(fixture, stores):
    spec = expected(fixture)
    store = stores.open()
    index_repository(store, fixture, name="fixture", workers=1)
    actual = graph_edges(store, "fixture")
    wanted = {(t, s, d, v) for t, s, d, v in spec["edges"]}
    missing = sorted(wanted - actual, key=str)
    extra = sorted(actual - wanted, key=str)
    assert not missing and not extra, f"\nmissing: {missing}\nextra:   {extra}"

    unresolved_names = {u.name for _, u in store.graph.search_unresolved("", "fixture", 10_000)}
    for name in spec.get("unresolved", []):
        assert name in unresolved_names, (
            f"{name!r} not recorded as unresolved: {sorted(unresolved_names)}"
        )


@pytest.mark.values
@values_suite
@pytest.mark.parametrize("fixture", CHALLENGE_FIXTURES, ids=fixture_id)
def test_values_challenge_writes_only_expected_edges(fixture, stores):
    """Measured, not pinned (recall is `python -m benchmark.accuracy`'s): every edge written
    must be one a perfect resolver would write."""
    spec = expected(fixture)
    actual = {edge[:3] for edge in indexed_edges(stores, fixture)}
    wanted = {tuple(e[:3]) for e in spec["edges"]}
    assert actual <= wanted, f"edges no one expects: {sorted(actual - wanted)}"
