"""GraphQL at /graphql over real HTTP, on both stores: queries answer, a page of symbols with
their callers and files costs a fixed number of store round trips (no N+1), abusive queries are
refused with a clear error, and the `read` scope is enforced."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from api_support import serve_in_thread
from cartograph.api.app import Settings, create_app
from cartograph.api.graphql import Router, schema
from cartograph.auth import create_token
from cartograph.index import index_repository
from cartograph.query.answers import ANSWERS
from sample_repo import make_sample_repo
from strawberry.extensions import SchemaExtension


class CountingStore:
    """A store that counts the calls made to it (each is one or a few round trips): to the
    methods of its interfaces (`store.graph.edges_of` counts as "edges_of") and its own."""

    INTERFACES = ("repos", "index", "graph", "history", "team", "tokens", "tracking")

    def __init__(self, store, calls: list[str] | None = None) -> None:
        self._store = store
        self.calls: list[str] = [] if calls is None else calls
        self.agent_headers: dict[str, str] = {}  # a token with the `claims` scope too

    def __getattr__(self, name):
        attribute = getattr(self._store, name)
        if name in self.INTERFACES:
            return CountingStore(attribute, self.calls)
        if not callable(attribute):
            return attribute

        def counted(*args, **kwargs):
            self.calls.append(name)
            return attribute(*args, **kwargs)

        return counted


@pytest.fixture
def graphql(tmp_path, stores):
    store = stores.open()
    root = make_sample_repo(tmp_path / "shop")
    index_repository(store, root, name="shop", workers=1)
    token = create_token(store, "reader", ["read"])[0]
    agent = create_token(store, "agent", ["read", "claims"])[0]
    settings = Settings(
        store_url=stores.url("graph"),
        broker_url=None,
        data_dir=tmp_path / "data",
        require_tokens=True,
        # the impact-graph preloader reads the store on a thread of its own (at start, then
        # the generation every 2 s) through the same store getter: its calls are not a
        # query's, and counted they land in whichever measurement they happen to overlap
        preload_graphs=False,
    )
    app = create_app(settings)
    counting = CountingStore(app.state.stores.get())
    app.state.stores.get = lambda: counting  # every request reads through the counter
    with serve_in_thread(app) as url:
        counting.agent_headers = {"Authorization": f"Bearer {agent}"}
        yield url, {"Authorization": f"Bearer {token}"}, counting


def _post(url, headers, query, variables=None):
    # a bound that turns a hang into a failure, not a speed check (httpx's default of 5 s is
    # passed by a first Neo4j query on a busy machine)
    return httpx.post(
        f"{url}/graphql",
        json={"query": query, "variables": variables or {}},
        headers=headers,
        timeout=60,
    )


def test_queries_and_batching(graphql):
    url, headers, counting = graphql
    query = """
    query($q: String!, $first: Int!) {
      repositories { name indexedSha files(first: 10) { path language } }
      search(query: $q, first: $first) {
        nodes { qualname kind file { path isTest } callers(first: 5) { qualname } callees { qualname } }
      }
    }"""
    ANSWERS.clear()  # batching is measured on answers computed afresh
    counting.calls.clear()
    small = _post(url, headers, query, {"q": "shop", "first": 2}).json()
    assert len(small["data"]["search"]["nodes"]) == 2
    small_calls = len(counting.calls)
    ANSWERS.clear()
    counting.calls.clear()
    large = _post(url, headers, query, {"q": "shop", "first": 20}).json()
    large_calls = len(counting.calls)
    assert "errors" not in large, large
    nodes = large["data"]["search"]["nodes"]
    assert len(nodes) > 2
    assert large["data"]["repositories"][0]["name"] == "shop"
    total = next(n for n in nodes if n["qualname"] == "shop.models.Cart.total")
    assert total["callers"] and total["file"]["path"] == "shop/models.py"
    # ten times the symbols, the same number of store calls
    assert large_calls == small_calls, (small_calls, large_calls, counting.calls)
    assert counting.calls.count("edges_of") == 2  # callers and callees, one batch each


@pytest.mark.parametrize("held", ["execution", "serialisation"])
def test_a_running_query_leaves_the_server_free(graphql, monkeypatch, held):
    """While a query's execution (or the encoding of its answer) is held, the server still
    answers /healthz: neither runs on the event loop (if one did, holding it would hold every
    request of the process and the health check would hang until the bound below fails it)."""
    url, headers, _counting = graphql
    entered, release = threading.Event(), threading.Event()

    def hold() -> None:
        entered.set()
        release.wait(120)

    if held == "execution":

        class Hold(SchemaExtension):
            def on_execute(self):
                hold()  # inside the execution, as a slow resolver would be
                yield

        monkeypatch.setattr(schema, "extensions", (*schema.extensions, Hold))
    else:
        encode = Router.encode_json

        def held_encode(self, data):
            hold()
            return encode(self, data)

        monkeypatch.setattr(Router, "encode_json", held_encode)
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(_post, url, headers, "{ repositories { name } }")
        try:
            assert entered.wait(60), "the query never started"
            health = httpx.get(f"{url}/healthz", timeout=30)
        finally:
            release.set()
        assert health.status_code == 200
        assert running.result().json()["data"]["repositories"] == [{"name": "shop"}]


def test_symbol_claims_and_errors(graphql):
    url, _headers, counting = graphql
    answer = _post(
        url,
        counting.agent_headers,
        '{ symbol(name: "Cart") { qualname parent { qualname } } claims { path } }',
    )
    data = answer.json()
    assert data["data"]["symbol"]["qualname"] == "shop.models.Cart"
    assert data["data"]["claims"] == []
    missing = _post(url, _headers, '{ symbol(name: "NoSuchThing") { qualname } }').json()
    assert "no symbol named" in missing["errors"][0]["message"]


def test_abusive_queries_are_refused(graphql):
    url, headers, _counting = graphql
    deep = '{ symbol(name: "Cart") { ' + "callers { " * 12 + "qualname" + " }" * 12 + " } }"
    refused = _post(url, headers, deep).json()
    assert "exceeds maximum operation depth" in refused["errors"][0]["message"]
    aliases = "{ " + " ".join(f"a{n}: repositories {{ name }}" for n in range(40)) + " }"
    assert "aliases" in _post(url, headers, aliases).json()["errors"][0]["message"]
    wide = _post(url, headers, '{ search(query: "x", first: 5000) { nodes { qualname } } }').json()
    assert "`first` is 1 to 100" in wide["errors"][0]["message"]


def test_claims_with_their_holding_session(graphql):
    url, reader, counting = graphql
    headers = counting.agent_headers
    from cartograph.agents import sessions as agents

    store = counting._store
    session = agents.start_session(store, "alice-laptop", "fix refunds")
    agents.claim(store, session.id, "shop", "shop/payments.py")
    data = _post(url, headers, '{ claims(repo: "shop") { path holder { id agent task } } }').json()
    assert data["data"]["claims"] == [
        {
            "path": "shop/payments.py",
            "holder": {"id": session.id, "agent": "alice-laptop", "task": "fix refunds"},
        }
    ]
    found = _post(url, headers, f"{{ session(id: {session.id}) {{ agent endedAt }} }}").json()
    assert found["data"]["session"] == {"agent": "alice-laptop", "endedAt": ""}
    # a read-only token sees the code graph, not who works where (as on REST)
    for query in (
        '{ claims(repo: "shop") { path } }',
        f"{{ session(id: {session.id}) {{ agent }} }}",
    ):
        refused = _post(url, reader, query).json()
        assert refused["data"] is None or not any(refused["data"].values()), refused
        assert "lacks the 'claims' scope" in refused["errors"][0]["message"]
        assert refused["errors"][0]["extensions"]["kind"] == "forbidden"


def test_read_scope_is_needed(graphql, stores):
    url, _headers, _counting = graphql
    claims_only = create_token(stores.open(), "claims-only", ["claims"])[0]
    forbidden = _post(url, {"Authorization": f"Bearer {claims_only}"}, "{ repositories { name } }")
    assert forbidden.status_code == 403 and "lacks the 'read' scope" in forbidden.json()["detail"]
    assert _post(url, {}, "{ repositories { name } }").status_code == 401
    assert (
        _post(url, {"Authorization": "Bearer cgt_nope"}, "{ repositories { name } }").status_code
        == 401
    )


TRACE = """
query($name: String!, $direction: Direction!, $depth: Int!) {
  trace(name: $name, direction: $direction, depth: $depth) {
    root { qualname }
    depth truncated
    steps { depth parentId via lines repeated symbol { id qualname } }
    envelope { repos { name indexedSha } stale }
  }
}"""


def test_trace_with_depth(graphql):
    url, headers, _counting = graphql
    up = _post(url, headers, TRACE, {"name": "price_of", "direction": "IN", "depth": 4}).json()
    assert "errors" not in up, up
    trace = up["data"]["trace"]
    assert trace["root"]["qualname"] == "shop.models.price_of"
    reached = {(s["depth"], s["symbol"]["qualname"]) for s in trace["steps"]}
    # price_of <- Cart.total <- PaymentService.pay <- place_order <- test_place_order
    assert reached == {
        (1, "shop.models.Cart.total"),
        (2, "shop.payments.PaymentService.pay"),
        (3, "shop.orders.place_order"),
        (4, "tests.test_orders.test_place_order"),
    }
    by_name = {s["symbol"]["qualname"]: s for s in trace["steps"]}
    total = by_name["shop.models.Cart.total"]
    pay = by_name["shop.payments.PaymentService.pay"]
    assert pay["parentId"] == total["symbol"]["id"] and pay["via"] and pay["lines"]
    assert trace["envelope"]["repos"][0]["name"] == "shop"
    assert len(trace["envelope"]["repos"][0]["indexedSha"]) == 40

    shallow = _post(url, headers, TRACE, {"name": "price_of", "direction": "IN", "depth": 2})
    assert {s["depth"] for s in shallow.json()["data"]["trace"]["steps"]} == {1, 2}

    down = _post(url, headers, TRACE, {"name": "place_order", "direction": "OUT", "depth": 1})
    callees = {s["symbol"]["qualname"] for s in down.json()["data"]["trace"]["steps"]}
    assert {"shop.models.Cart.__init__", "shop.models.Cart.add"} <= callees
    assert "shop.models.price_of" not in callees  # two levels down: not at depth 1


def test_trace_from_a_symbol_and_its_limits(graphql):
    url, headers, _counting = graphql
    nested = _post(
        url,
        headers,
        '{ symbol(name: "Cart.total") { trace(direction: IN, depth: 2) '
        "{ steps { depth symbol { qualname } } } } }",
    ).json()
    steps = nested["data"]["symbol"]["trace"]["steps"]
    assert {(s["depth"], s["symbol"]["qualname"]) for s in steps} == {
        (1, "shop.payments.PaymentService.pay"),
        (2, "shop.orders.place_order"),
    }
    too_deep = _post(url, headers, TRACE, {"name": "price_of", "direction": "IN", "depth": 50})
    assert "`depth` is 1 to 10" in too_deep.json()["errors"][0]["message"]
    wrong = _post(url, headers, TRACE, {"name": "price_of", "direction": "UP", "depth": 2})
    assert "Direction" in wrong.json()["errors"][0]["message"]
    # a trace under every step of a trace would multiply: a query runs ten traces at most
    ten = " ".join(f't{n}: trace(name: "price_of") {{ depth }}' for n in range(10))
    assert "errors" not in _post(url, headers, "{ " + ten + " }").json()
    nested = _post(
        url,
        headers,
        "{ " + ten + ' deep: trace(name: "place_order") { steps { symbol { trace { depth } } } } }',
    ).json()
    assert any("at most 10 traces in one query" in e["message"] for e in nested["errors"])
