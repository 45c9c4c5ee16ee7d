"""A session's overlay: the files an agent edited and has not pushed are seen by that session's
reads — callers, callees, search, dead code, files — and by no other session's; they go with
the session, and stop counting once the push is indexed. On both stores, and over REST,
GraphQL and MCP (a `session` argument or the X-Cartograph-Session header)."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from api_support import serve_in_thread
from cartograph.agents.overlay import drop_overlay, overlay_edit, overlay_files, session_view
from cartograph.agents.sessions import AgentError, claim, end_session, start_session
from cartograph.api.app import Settings, create_app
from cartograph.auth import create_token
from cartograph.errors import ErrorKind, Forbidden
from cartograph.index import index_repository
from cartograph.query import callees, callers, search
from cartograph.query.common import SymbolNotFound
from cartograph.query.deadcode import dead_code
from cartograph.query.listing import list_files
from cartograph.store import open_store
from indexing_support import write_tree
from mcp import Client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from sample_repo import make_sample_repo

# the edit: unused_helper now calls price_of, a new function calls unused_helper, _maybe_used
# is gone, and a new module appears
OLD_HELPER = "def unused_helper():\n    return 42\n"
NEW_HELPER = (
    "def unused_helper():\n    return price_of('x') + 1\n\n\n"
    "def brand_new_total(cart):\n    return cart.total() + unused_helper()\n"
)
REMOVED = "def _maybe_used():\n    return 1\n"
NEW_MODULE = (
    "from shop.models import price_of\n\n\ndef shipping_quote(sku):\n    return price_of(sku)\n"
)


def edited_models(root) -> str:
    text = (root / "shop/models.py").read_text()
    assert OLD_HELPER in text and REMOVED in text
    return text.replace(OLD_HELPER, NEW_HELPER).replace(REMOVED, "")


def qualnames(page) -> list[str]:
    return sorted(n.symbol.qualname for n in page.items)


@pytest.fixture
def shop(tmp_path, stores):
    root = make_sample_repo(tmp_path / "shop")
    store = stores.open()
    index_repository(store, root, "shop")
    return store, root


def test_a_session_sees_its_edits_and_no_other_session_does(shop):
    store, root = shop
    alice = start_session(store, "alice", "refunds")
    bob = start_session(store, "bob", "docs")
    overlay_edit(store, alice.id, "shop", "shop/models.py", edited_models(root))
    overlay_edit(store, alice.id, "shop", "shop/shipping.py", NEW_MODULE)
    overlay_edit(store, alice.id, "shop", "shop/orders.py", deleted=True)
    assert [(f.path, f.gone) for f in overlay_files(store, alice.id)] == [
        ("shop/models.py", False),
        ("shop/orders.py", True),
        ("shop/shipping.py", False),
    ]

    mine = session_view(store, alice.id)
    assert qualnames(callers(mine, "price_of")) == [
        "shop.models.Cart.total",
        "shop.models.unused_helper",
        "shop.shipping.shipping_quote",
    ]
    assert qualnames(callers(mine, "unused_helper")) == ["shop.models.brand_new_total"]
    # an edited file's symbol keeps its callers in files the session did not edit
    assert "shop.payments.PaymentService.pay" in qualnames(callers(mine, "Cart.total"))
    assert qualnames(callees(mine, "brand_new_total")) == ["shop.models.unused_helper"]
    assert search(mine, "brand new total").hits[0].symbol.qualname == (
        "shop.models.brand_new_total"
    )
    with pytest.raises(SymbolNotFound):
        callers(mine, "_maybe_used")
    # orders.py is deleted in the overlay: place_order and its calls are gone
    with pytest.raises(SymbolNotFound):
        callees(mine, "place_order")
    assert "shop.orders.place_order" not in qualnames(callers(mine, "Cart.add"))
    dead = {d.symbol.qualname for d in dead_code(mine, "shop").items}
    assert "shop.models.unused_helper" not in dead and "shop.models.brand_new_total" in dead
    paths = [f.path for f in list_files(mine, "shop").items]
    assert "shop/shipping.py" in paths and "shop/orders.py" not in paths

    # bob, and a read in no session, see the shared graph
    for shared in (session_view(store, bob.id), store):
        assert qualnames(callers(shared, "price_of")) == ["shop.models.Cart.total"]
        assert qualnames(callers(shared, "_maybe_used")) == []  # there, and called by name only
        with pytest.raises(SymbolNotFound):
            callers(shared, "brand_new_total")
        assert "shop.orders.place_order" in qualnames(callers(shared, "Cart.add"))
        assert "shop/shipping.py" not in [f.path for f in list_files(shared, "shop").items]


def test_the_overlay_goes_with_the_session_and_once_the_push_is_indexed(shop):
    store, root = shop
    alice = start_session(store, "alice", "refunds")
    overlay_edit(store, alice.id, "shop", "shop/models.py", edited_models(root))
    assert qualnames(callers(session_view(store, alice.id), "unused_helper"))
    # the push is indexed: the shared graph holds the same text, the overlay adds nothing
    (root / "shop/models.py").write_text(edited_models(root))
    index_repository(store, root, "shop")
    assert session_view(store, alice.id) is store
    assert qualnames(callers(store, "unused_helper")) == ["shop.models.brand_new_total"]
    assert drop_overlay(store, alice.id).files == 1 and overlay_files(store, alice.id) == []

    overlay_edit(store, alice.id, "shop", "shop/payments.py", "def charge():\n    return 1\n")
    end_session(store, alice.id)
    assert store.team.overlay_files(alice.id) == []  # dropped with the session
    assert session_view(store, alice.id) is store


def test_an_overlay_edit_of_a_file_another_session_holds_is_refused(shop):
    store, root = shop
    alice = start_session(store, "alice", "refunds")
    bob = start_session(store, "bob", "docs")
    assert claim(store, bob.id, "shop", "shop/models.py").granted
    with pytest.raises(AgentError, match="being edited by session"):
        overlay_edit(store, alice.id, "shop", "shop/models.py", edited_models(root))
    assert overlay_files(store, alice.id) == []
    with pytest.raises(AgentError, match="content"):
        overlay_edit(store, bob.id, "shop", "shop/models.py")  # neither text nor deleted


def _mcp(url: str, token: str, session: int | None = None) -> Client:
    headers = {"Authorization": f"Bearer {token}"}
    if session is not None:
        headers["X-Cartograph-Session"] = str(session)
    http = create_mcp_http_client(headers=headers)
    return Client(streamable_http_client(f"{url}/mcp/", http_client=http), read_timeout_seconds=60)


def test_rest_graphql_and_mcp_reads_see_the_overlay_of_the_session_they_name(
    shop, stores, tmp_path
):
    store, root = shop
    tokens = {name: create_token(store, name, ["read", "claims"])[0] for name in ("alice", "bob")}
    settings = Settings(store_url=stores.url("graph"), broker_url=None,
                        data_dir=tmp_path / "data", require_tokens=True)  # fmt: skip
    with serve_in_thread(create_app(settings)) as url:
        api = f"{url}/api/v1"

        def auth(name: str, **headers: str) -> dict:
            return {"Authorization": f"Bearer {tokens[name]}", **headers}

        session = httpx.post(f"{api}/sessions", json={"agent": "alice", "task": "refunds"},
                             headers=auth("alice")).json()["id"]  # fmt: skip
        put = httpx.post(f"{api}/sessions/{session}/overlay", headers=auth("alice"),
                         json={"repo": "shop", "path": "shop/models.py",
                               "content": edited_models(root)})  # fmt: skip
        assert put.status_code == 201 and put.json()["sha256"]

        def callers_of(name: str, **given) -> list[str]:
            answer = httpx.get(f"{api}/symbols/{name}/callers", **given)
            assert answer.status_code == 200, answer.text
            return [item["symbol"]["qualname"] for item in answer.json()["items"]]

        assert callers_of("unused_helper", headers=auth("alice"), params={"session": session})
        by_header = callers_of(
            "unused_helper", headers=auth("alice", **{"X-Cartograph-Session": str(session)})
        )
        assert by_header == ["shop.models.brand_new_total"]
        assert callers_of("unused_helper", headers=auth("alice")) == []  # no session named
        assert callers_of("unused_helper", headers=auth("bob")) == []
        refused = httpx.get(f"{api}/symbols/unused_helper/callers", headers=auth("bob"),
                            params={"session": session})  # fmt: skip
        assert refused.status_code == 403 and "another token" in refused.json()["detail"]
        bad = httpx.get(f"{api}/symbols/price_of/callers",
                        headers=auth("alice", **{"X-Cartograph-Session": "me"}))  # fmt: skip
        assert bad.status_code == 422

        query = '{ symbol(name: "unused_helper") { callers { qualname } } }'
        seen = httpx.post(f"{url}/graphql", json={"query": query},
                          headers=auth("alice", **{"X-Cartograph-Session": str(session)}))  # fmt: skip
        assert seen.json()["data"]["symbol"]["callers"] == [
            {"qualname": "shop.models.brand_new_total"}
        ]
        shared = httpx.post(f"{url}/graphql", json={"query": query}, headers=auth("bob"))
        assert shared.json()["data"]["symbol"]["callers"] == []

        async def over_mcp() -> tuple[str, str, str]:
            async with _mcp(url, tokens["alice"]) as client:
                argued = await client.call_tool(
                    "find_callers", {"symbol": "unused_helper", "session": session}
                )
                plain = await client.call_tool("find_callers", {"symbol": "unused_helper"})
            async with _mcp(url, tokens["alice"], session) as client:
                headed = await client.call_tool("find_callers", {"symbol": "unused_helper"})
            return tuple(  # type: ignore[return-value]
                r.content[0].text for r in (argued, plain, headed)
            )

        argued, plain, headed = asyncio.run(over_mcp())
        assert "brand_new_total" in argued and "brand_new_total" in headed
        assert "brand_new_total" not in plain

        gone = httpx.delete(f"{api}/sessions/{session}", headers=auth("alice"))
        assert gone.status_code == 204
        ended = httpx.get(f"{api}/symbols/unused_helper/callers", headers=auth("alice"),
                          params={"session": session})  # fmt: skip
        assert ended.json()["items"] == []


def test_a_session_of_another_token_is_not_seen_through(shop):
    store, root = shop
    alice_token = create_token(store, "alice", ["read", "claims"])[1]
    bob_token = create_token(store, "bob", ["read", "claims"])[1]
    alice = start_session(store, "alice", "refunds", alice_token)
    overlay_edit(store, alice.id, "shop", "shop/models.py", edited_models(root), caller=alice_token)
    with pytest.raises(Forbidden):
        session_view(store, alice.id, bob_token)
    assert session_view(store, alice.id, alice_token) is not store


def _text(size: int) -> str:
    return ("# a line\n" * (size // 9 + 1))[:size]


def test_overlaid_text_has_a_budget_per_file_session_and_token(shop, stores, tmp_path):
    """One file at most 1 MiB, one session 4 MiB, one token's live sessions 16 MiB together:
    an edit past a budget is refused (413 over REST) and says which; replacing a file counts
    its new size only, and dropping an overlay gives its room back."""
    store, _root = shop
    secret, alice = create_token(store, "alice", ["read", "claims"])
    bob = create_token(store, "bob", ["read", "claims"])[1]
    first = start_session(store, "alice", "big", alice)
    with pytest.raises(AgentError, match="an overlaid file holds at most 1,048,576") as raised:
        overlay_edit(store, first.id, "shop", "shop/huge.py", _text(1_100_000), caller=alice)
    assert raised.value.kind is ErrorKind.TOO_LARGE
    for k in range(4):
        overlay_edit(store, first.id, "shop", f"shop/big{k}.py", _text(1_000_000), caller=alice)
    overlay_edit(store, first.id, "shop", "shop/big0.py", _text(1_000_000), caller=alice)
    with pytest.raises(AgentError, match="would overlay 5,000,000 bytes: a session overlays"):
        overlay_edit(store, first.id, "shop", "shop/big4.py", _text(1_000_000), caller=alice)

    settings = Settings(store_url=stores.url("graph"), broker_url=None,
                        data_dir=tmp_path / "data", require_tokens=True)  # fmt: skip
    with serve_in_thread(create_app(settings)) as url:
        refused = httpx.post(
            f"{url}/api/v1/sessions/{first.id}/overlay",
            headers={"Authorization": f"Bearer {secret}"},
            json={"repo": "shop", "path": "shop/big4.py", "content": _text(1_000_000)},
        )
    assert refused.status_code == 413, refused.text
    assert "a session overlays at most 4,194,304" in refused.json()["detail"]

    others = [start_session(store, "alice", f"more {n}", alice) for n in range(4)]
    for session in others[:3]:
        for k in range(4):
            overlay_edit(store, session.id, "shop", f"shop/b{k}.py", _text(1_000_000), caller=alice)
    with pytest.raises(AgentError, match="the sessions of token 'alice' would overlay 17,000,000"):
        overlay_edit(store, others[3].id, "shop", "shop/c.py", _text(1_000_000), caller=alice)
    # another token has its own budget; a dropped overlay gives the room back
    theirs = start_session(store, "bob", "docs", bob)
    overlay_edit(store, theirs.id, "shop", "shop/c.py", _text(1_000_000), caller=bob)
    drop_overlay(store, first.id, alice)
    overlay_edit(store, others[3].id, "shop", "shop/d.py", _text(1_000_000), caller=alice)


def test_a_resolved_overlay_is_held_within_budgets_and_let_go(shop, monkeypatch):
    """The layers resolved for a session's reads are kept by weight (the least recently used
    go first past CACHE_WEIGHT), replaced when the session edits again, and let go when its
    overlay is dropped or the session ends; resolving past LAYER_WEIGHT or LAYER_SECONDS is
    refused with TOO_LARGE, and the refusal is kept so a repeated read answers at once."""
    from cartograph.agents import overlay
    from cartograph.team import end_session as end_team_session

    store, root = shop
    alice = start_session(store, "alice", "refunds")
    bob = start_session(store, "bob", "shipping")
    overlay_edit(store, alice.id, "shop", "shop/models.py", edited_models(root))
    assert qualnames(callers(session_view(store, alice.id), "unused_helper"))
    held = overlay.cached_weight(store, alice.id)
    assert held > 0
    overlay_edit(store, alice.id, "shop", "shop/shipping.py", NEW_MODULE)
    session_view(store, alice.id)
    both = overlay.cached_weight(store, alice.id)
    assert both > held
    overlay.forget_session(store, alice.id)
    session_view(store, alice.id)
    assert overlay.cached_weight(store, alice.id) == both  # the new layers only, not the old
    drop_overlay(store, alice.id)
    assert overlay.cached_weight(store, alice.id) == 0

    overlay_edit(store, alice.id, "shop", "shop/models.py", edited_models(root))
    session_view(store, alice.id)
    monkeypatch.setattr(overlay, "CACHE_WEIGHT", overlay.cached_weight(store, alice.id))
    overlay_edit(store, bob.id, "shop", "shop/shipping.py", NEW_MODULE)
    assert qualnames(callers(session_view(store, bob.id), "price_of")) == [
        "shop.models.Cart.total",
        "shop.shipping.shipping_quote",
    ]
    assert overlay.cached_weight(store, alice.id) == 0  # the least recently used went
    assert overlay.cached_weight(store, bob.id) > 0
    end_team_session(store, bob.id)
    assert overlay.cached_weight(store, bob.id) == 0

    monkeypatch.setattr(overlay, "LAYER_WEIGHT", 1_000)
    for _ in range(2):
        with pytest.raises(AgentError, match="would hold more than 1,000 bytes") as raised:
            callers(session_view(store, alice.id), "unused_helper")
        assert raised.value.kind is ErrorKind.TOO_LARGE
        assert "the overlay of session" in str(raised.value) and "drop the overlay" in str(
            raised.value
        )
    monkeypatch.setattr(overlay, "LAYER_WEIGHT", 128 << 20)
    monkeypatch.setattr(overlay, "LAYER_SECONDS", 0)
    overlay_edit(store, alice.id, "shop", "shop/shipping.py", NEW_MODULE)
    with pytest.raises(AgentError, match="took longer than 0 s to resolve"):
        session_view(store, alice.id)


def test_an_overlaid_typescript_file_imports_through_the_path_aliases_of_tsconfig(tmp_path):
    """An agent's edit of a TypeScript file is resolved with the repository's tsconfig.json:
    a call through an alias binds (it was taken for another package's before)."""
    root = write_tree(
        tmp_path / "web",
        {
            "tsconfig.json": (
                '{"compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": ["src/lib/*"]}}}'
            ),
            "src/lib/money.ts": "export function formatPrice(cents: number): string {\n"
            "  return (cents / 100).toFixed(2);\n}\n",
            "src/app.ts": "export function show(cents: number): string {\n  return '';\n}\n",
        },
    )
    store = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    index_repository(store, root, "web", workers=1, history=False)
    alice = start_session(store, "alice", "prices")
    edited = (
        'import { formatPrice } from "@lib/money";\n'
        "export function show(cents: number): string {\n  return formatPrice(cents);\n}\n"
    )
    overlay_edit(store, alice.id, "web", "src/app.ts", edited)
    assert qualnames(callers(session_view(store, alice.id), "formatPrice")) == ["show"]
