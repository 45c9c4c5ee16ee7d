"""Cartograph on a real TypeScript codebase: @loopback/rest 15.0.16 as published on npm (its
`src/` ships the TypeScript sources; downloaded from the registry once, cached)."""

from __future__ import annotations

import pytest
from cartograph.index import index_repository
from cartograph.query import callers, stats
from cartograph.store.sqlite import open_sqlite

from benchmark.corpora import fetch_npm

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def loopback(tmp_path_factory):
    root = fetch_npm("@loopback/rest", "15.0.16")
    store = open_sqlite(tmp_path_factory.mktemp("loopback") / "graph.db")
    result = index_repository(store, root, name="lb")
    return store, result


def _callers(store, name: str) -> dict[str, str]:
    page = callers(store, f"lb:{name}", repo="lb", limit=500)
    return {f"{n.symbol.path}#{n.symbol.qualname}": n.via for n in page.items}


def test_every_typescript_source_is_indexed(loopback):
    store, result = loopback
    assert result.files == result.parsed >= 50
    numbers = stats(store, "lb")
    assert numbers.languages["typescript"]["files"] >= 50
    assert numbers.symbols["class"] >= 30 and numbers.symbols["interface"] >= 15


def test_constructor_parameter_property_types_this_member(loopback):
    # constructor(private readonly _router: RestRouter = new TrieRouter()) in RoutingTable
    store, _ = loopback
    found = _callers(store, "src/router/rest-router.ts#RestRouter.add")
    assert found["src/router/routing-table.ts#RoutingTable.registerRoute"] == "injection"
    listed = _callers(store, "src/router/rest-router.ts#RestRouter.list")
    assert listed["src/router/routing-table.ts#RoutingTable.describeApiPaths"] == "injection"


def test_call_through_a_barrel_reaches_the_defining_module(loopback):
    # rest.server.ts imports createRoutesForController from './router' (router/index.ts,
    # `export * from './controller-route'`)
    store, _ = loopback
    found = _callers(store, "src/router/controller-route.ts#createRoutesForController")
    assert found["src/rest.server.ts#RestServer._createHttpHandler"] == "import"


def test_self_calls_and_external_libraries(loopback):
    store, _ = loopback
    found = _callers(store, "src/router/routing-table.ts#RoutingTable.registerRoute")
    assert found["src/router/routing-table.ts#RoutingTable.registerController"] == "self"
    numbers = stats(store, "lb")
    assert numbers.unresolved_external > 100  # @loopback/core, express, debug: never guessed
