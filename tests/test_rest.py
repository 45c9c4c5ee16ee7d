"""The REST API over real HTTP (httpx), on both stores: queries answer what the library answers,
pages follow cursors, errors are problem+json, scopes are enforced, and sessions and claims work
over REST as over MCP."""

from __future__ import annotations

from urllib.parse import quote

import httpx
import pytest
from api_support import serve_in_thread
from cartograph.api.app import Settings, create_app
from cartograph.auth import create_token
from cartograph.index import index_repository
from sample_repo import make_sample_repo


@pytest.fixture
def api(tmp_path, stores):
    store = stores.open()
    root = make_sample_repo(tmp_path / "shop")
    index_repository(store, root, name="shop", workers=1)
    reader = create_token(store, "reader", ["read"])[0]
    agent = create_token(store, "agent", ["read", "claims"])[0]
    settings = Settings(
        store_url=stores.url("graph"),
        broker_url=None,
        data_dir=tmp_path / "data",
        require_tokens=True,
    )
    with serve_in_thread(create_app(settings)) as url:
        yield (
            url,
            {"Authorization": f"Bearer {reader}"},
            {"Authorization": f"Bearer {agent}"},
        )


def test_queries(api):
    url, reader, _agent = api

    def get(route: str, **params):
        answer = httpx.get(f"{url}/api/v1{route}", params=params, headers=reader)
        assert answer.status_code == 200, answer.text
        return answer.json()

    hits = get("/search", q="payment service")["hits"]
    assert any(h["symbol"]["path"] == "shop/payments.py" for h in hits)
    card = get("/symbols/Cart")
    assert card["symbol"]["qualname"] == "shop.models.Cart"
    callers = get("/symbols/Cart.total/callers")
    assert callers["items"] and callers["next_cursor"] is None
    by_id = get(f"/symbols/{quote(card['symbol']['id'], safe='')}")  # ids hold '#'

    assert by_id["symbol"]["id"] == card["symbol"]["id"]
    assert get("/symbols/place_order/trace", depth=2)["steps"]
    assert get("/repos/shop/stats")["files"] == 5
    assert "packages" in get("/repos/shop/overview")
    assert "items" in get("/repos/shop/dead-code")
    files = get("/repos/shop/files", limit=2)
    assert files["total"] == 5 and len(files["items"]) == 2 and files["next_cursor"]
    under = get("/repos/shop/files", under="shop")["items"]
    assert under and all(f["path"].startswith("shop/") for f in under)

    # a page at a time: the cursors walk the whole list once
    seen, cursor = [], None
    while True:
        page = get("/search", q="shop", limit=2, **({"cursor": cursor} if cursor else {}))
        seen += [h["symbol"]["id"] for h in page["hits"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) > 2


def test_errors_are_problem_documents(api):
    url, reader, _agent = api
    missing = httpx.get(f"{url}/api/v1/symbols/NoSuchThing", headers=reader)
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")
    body = missing.json()
    assert (
        body["status"] == 404 and body["title"] == "Not found" and "NoSuchThing" in body["detail"]
    )
    assert (
        httpx.get(
            f"{url}/api/v1/search", params={"q": "x", "limit": 10_000}, headers=reader
        ).status_code
        == 422
    )
    assert (
        httpx.get(
            f"{url}/api/v1/search", params={"q": "x", "cursor": "bogus!"}, headers=reader
        ).status_code
        == 400
    )
    hostile = "'; MATCH (n) DETACH DELETE n; --\"/../../etc/passwd"
    for route in ("/search", "/history", "/owners"):
        params = {"q": hostile} if route == "/search" else {"target": hostile}
        answer = httpx.get(f"{url}/api/v1{route}", params=params, headers=reader)
        assert answer.status_code in (200, 400, 404), (route, answer.status_code)
    assert httpx.get(f"{url}/api/v1/symbols/Cart", headers=reader).status_code == 200  # still there


def test_scopes(api):
    url, reader, agent = api
    assert httpx.get(f"{url}/api/v1/search", params={"q": "Cart"}).status_code == 401
    bad = {"Authorization": "Bearer cgt_wrong"}
    assert httpx.get(f"{url}/api/v1/search", params={"q": "Cart"}, headers=bad).status_code == 401
    session = httpx.post(f"{url}/api/v1/sessions", json={"agent": "a", "task": "t"}, headers=reader)
    assert session.status_code == 403
    assert httpx.get(f"{url}/api/v1/repos", headers=agent).status_code == 403  # admin only


def test_sessions_claims_and_lessons(api):
    url, _reader, agent = api
    alice = httpx.post(
        f"{url}/api/v1/sessions",
        json={"agent": "alice-laptop", "task": "fix refund rounding"},
        headers=agent,
    ).json()["id"]
    bob = httpx.post(
        f"{url}/api/v1/sessions", json={"agent": "bob", "task": "docs"}, headers=agent
    ).json()["id"]
    claim = {"session": alice, "repo": "shop", "path": "shop/payments.py"}
    won = httpx.post(f"{url}/api/v1/claims", json=claim, headers=agent)
    assert won.status_code == 200 and won.json()["granted"] is True
    lost = httpx.post(f"{url}/api/v1/claims", json={**claim, "session": bob}, headers=agent)
    assert lost.status_code == 409 and "alice-laptop" in lost.json()["detail"]
    check = httpx.get(
        f"{url}/api/v1/check-edit",
        params={"session": bob, "repo": "shop", "path": "shop/payments.py"},
        headers=agent,
    ).json()
    assert check["granted"] is False
    assert [c["path"] for c in httpx.get(f"{url}/api/v1/claims", headers=agent).json()] == [
        "shop/payments.py"
    ]
    lesson = httpx.post(
        f"{url}/api/v1/lessons",
        json={"session": alice, "text": "Refunds round half-even.", "about": ["shop/"]},
        headers=agent,
    )
    assert lesson.status_code == 201
    found = httpx.get(
        f"{url}/api/v1/lessons", params={"about": "shop/payments.py"}, headers=agent
    ).json()
    assert [x["text"] for x in found] == ["Refunds round half-even."]
    context = httpx.get(f"{url}/api/v1/symbols/PaymentService", headers=agent).json()
    assert [x["text"] for x in context["lessons"]] == ["Refunds round half-even."]
    touched = httpx.post(
        f"{url}/api/v1/activity",
        json={"session": alice, "repo": "shop", "path": "shop/payments.py", "kind": "edit"},
        headers=agent,
    )
    assert touched.status_code == 204
    released = httpx.delete(f"{url}/api/v1/claims", params=claim, headers=agent)
    assert released.status_code == 204
    assert (
        httpx.post(
            f"{url}/api/v1/claims", json={**claim, "session": bob}, headers=agent
        ).status_code
        == 200
    )
    assert httpx.post(f"{url}/api/v1/sessions/{alice}/heartbeat", headers=agent).status_code == 200
    assert httpx.delete(f"{url}/api/v1/sessions/{alice}", headers=agent).status_code == 204
    assert httpx.post(f"{url}/api/v1/sessions/{alice}/heartbeat", headers=agent).status_code == 409
    assert httpx.post(f"{url}/api/v1/sessions/424242/heartbeat", headers=agent).status_code == 404
