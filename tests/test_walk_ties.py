"""The impact walk (`impact.reach.walk_back`) over a graph of a few nodes: what it reaches
does not hang on the order in which it meets equally sure ways."""

from __future__ import annotations

import pytest
from cartograph.impact.graph import MODULE_VIA, NAME_VIA
from cartograph.impact.reach import walk_back
from cartograph.model import SymbolRow

CHANGED = "app:app/core.py#app.core.changed"
BY_NAME = "app:app/plugins.py#app.plugins.call_by_name"  # an unresolved call naming it
CALLER = "app:app/core.py#app.core.caller"  # a resolved call, as sure as the one by name
SHARED = "app:app/core.py#app.core.shared"  # calls both
IMPORTER = "app:tests/test_core.py#tests.test_core"  # imports the module-level code SHARED is


class TinyGraph:
    """The steps `walk_back` reads, from a table of edges; node numbers in the order given
    (the walk settles equally sure nodes by number)."""

    def __init__(self, order: list[str], edges: dict[str, list[tuple[str, str, float]]]):
        self.ids = order
        self.edges = edges

    def node(self, symbol_id: str) -> int:
        return self.ids.index(symbol_id)

    def sid(self, node: int) -> str:
        return self.ids[node]

    def callers_of(self, node: int) -> list[tuple[int, str, float]]:
        return [(self.node(s), via, w) for s, via, w in self.edges.get(self.sid(node), [])]

    def dispatched_of(self, node: int, met: set) -> list[tuple[int, str, float]]:
        return []

    def open_of(self, node: int, met: set) -> list[tuple[int, str, str, float]]:
        if self.sid(node) == CHANGED:
            return [(self.node(BY_NAME), NAME_VIA, "unknown-receiver", 0.3)]
        return []

    def opaque_tests(self, symbol_id: str) -> dict[str, str]:
        return {}


@pytest.mark.parametrize("first", [BY_NAME, CALLER])
def test_an_equally_sure_static_way_is_kept_whichever_the_walk_meets_first(first):
    other = CALLER if first == BY_NAME else BY_NAME
    graph = TinyGraph(
        [CHANGED, first, other, SHARED, IMPORTER],
        {
            CHANGED: [(CALLER, "call", 0.3)],
            BY_NAME: [(SHARED, "call", 1.0)],
            CALLER: [(SHARED, "call", 1.0)],
            # an importer of module-level code is followed only on a static way
            SHARED: [(IMPORTER, MODULE_VIA, 1.0)],
        },
    )
    changed = SymbolRow(CHANGED, "app", "app/core.py", "changed", "app.core.changed",
                        "function", 1, 2, "", "", False, None)  # fmt: skip
    walk = walk_back(graph, [changed])

    shared = walk.reached[SHARED]
    assert shared.confidence == pytest.approx(0.3)
    assert shared.toward == CALLER and shared.evidence == "static"
    assert IMPORTER in walk.reached
    assert walk.reached[BY_NAME].evidence == "name"
