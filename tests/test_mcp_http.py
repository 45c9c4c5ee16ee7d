"""The MCP gateway at /mcp over streamable HTTP, driven by the MCP SDK's own client, on both
stores: every tool answers, tokens and scopes are enforced (no token, a wrong or revoked one,
a missing scope), and 20 agents claiming one file at once through the gateway: exactly one
wins."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from api_support import serve_in_thread
from cartograph.api.app import Settings, create_app
from cartograph.auth import create_token
from cartograph.index import index_repository
from cartograph.operations import CATALOGUE
from mcp import Client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from sample_repo import make_sample_repo

READ_TOOLS = {
    "search_symbols",
    "get_context",
    "find_callers",
    "trace_calls",
    "find_path",
    "find_dead_code",
    "get_overview",
    "history",
    "co_changes",
    "owners",
    "explain",
    "get_schema",
}
TEAM_TOOLS = {
    "start_session",
    "heartbeat",
    "claim_file",
    "release_file",
    "list_claims",
    "check_edit",
    "remember",
    "recall",
}


def _client(url: str, token: str | None, profile: str | None = None) -> Client:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    http = create_mcp_http_client(headers=headers)
    where = f"{url}/mcp/" + (f"?profile={profile}" if profile else "")
    return Client(streamable_http_client(where, http_client=http), read_timeout_seconds=60)


def _text(result) -> str:
    return "".join(block.text for block in result.content if getattr(block, "text", None))


@pytest.fixture
def gateway(tmp_path, stores):
    store = stores.open()
    root = make_sample_repo(tmp_path / "shop")
    index_repository(store, root, name="shop", workers=1)
    tokens = {
        name: create_token(store, f"{name}-token", scopes)[0]
        for name, scopes in (
            ("reader", ["read"]),
            ("agent", ["read", "claims"]),
            ("admin", ["admin"]),
        )
    }
    revoked = create_token(store, "gone", ["read", "claims"])[0]
    store.tokens.revoke_token("gone", "2026-01-01T00:00:00+00:00")
    settings = Settings(
        store_url=stores.url("graph"),
        broker_url=None,
        data_dir=tmp_path / "data",
        require_tokens=True,
    )
    with serve_in_thread(create_app(settings)) as url:
        yield url, tokens, revoked


def test_every_tool_over_http_with_scopes(gateway):
    url, tokens, _revoked = gateway

    async def run():
        async with _client(url, tokens["agent"]) as client:  # the server's default: agent
            out = {"default": {tool.name for tool in (await client.list_tools()).tools}}
        async with _client(url, tokens["agent"], "all") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert names >= READ_TOOLS | TEAM_TOOLS
            assert "create_token" not in names and "index_repository" not in names  # admin
            for name, arguments in (
                ("search_symbols", {"query": "payment service"}),
                ("get_context", {"symbol": "Cart"}),
                ("find_callers", {"symbol": "Cart.total"}),
                ("trace_calls", {"symbol": "place_order", "depth": 3}),
                ("find_dead_code", {"repo": "shop"}),
                ("get_overview", {"repo": "shop"}),
                ("get_schema", {}),
                ("find_path", {"source": "place_order", "target": "Cart.total"}),
                ("explain", {"symbol": "Cart"}),
                ("history", {"target": "shop/models.py"}),
                ("co_changes", {"target": "shop/models.py"}),
                ("owners", {"target": "shop/models.py"}),
            ):
                result = await client.call_tool(name, arguments)
                assert not result.is_error, (name, _text(result))
                out[name] = _text(result)
            session = json.loads(
                _text(
                    await client.call_tool(
                        "start_session", {"agent": "alice", "task": "refunds", "as_json": True}
                    )
                )
            )["id"]
            claimed = await client.call_tool(
                "claim_file", {"session": session, "repo": "shop", "path": "shop/payments.py"}
            )
            out["claim"] = _text(claimed)
            for name, arguments in (
                ("heartbeat", {"session": session}),
                ("check_edit", {"session": session, "repo": "shop", "path": "shop/payments.py"}),
                ("list_claims", {"repo": "shop"}),
                (
                    "remember",
                    {"session": session, "text": "Totals are Decimal.", "about": ["shop/"]},
                ),
                ("recall", {"about": ["shop/models.py"]}),
                ("release_file", {"session": session, "repo": "shop", "path": "shop/payments.py"}),
            ):
                result = await client.call_tool(name, arguments)
                assert not result.is_error, (name, _text(result))
                out[name] = _text(result)
            indexing = await client.call_tool("index_repository", {"path": "/etc"})
            out["index"] = (indexing.is_error, _text(indexing))
        async with _client(url, tokens["reader"], "agent,team") as client:
            out["reader_tools"] = {tool.name for tool in (await client.list_tools()).tools}
            reading = await client.call_tool("search_symbols", {"query": "Cart"})
            out["reader_search"] = (reading.is_error, _text(reading))
            refused = await client.call_tool("start_session", {"agent": "eve", "task": "x"})
            out["reader_session"] = (refused.is_error, _text(refused))
        async with _client(url, tokens["agent"]) as client:  # a tool of another profile
            hidden = await client.call_tool("get_overview", {"repo": "shop"})
            out["hidden"] = (hidden.is_error, _text(hidden))
        return out

    out = asyncio.run(run())
    assert out["default"] == {op.mcp for op in CATALOGUE if op.mcp_profile == "agent"}
    assert len(out["default"]) <= 12
    # a reader lists the reads of the profiles it asked for, not what needs another scope
    assert "search_symbols" in out["reader_tools"] and "list_claims" not in out["reader_tools"]
    assert "start_session" not in out["reader_tools"]
    assert out["hidden"][0] and "not in this server's profiles" in out["hidden"][1]
    assert "shop/payments.py" in out["search_symbols"]
    assert "class shop.models.Cart" in out["get_context"]
    assert out["claim"].startswith("shop/payments.py is yours")
    assert (
        "Totals are Decimal." in out["recall"]
        and out["release_file"] == "released shop/payments.py"
    )
    assert out["index"][0] and "lacks the 'admin' scope" in out["index"][1]
    assert not out["reader_search"][0]
    assert out["reader_session"][0] and "lacks the 'claims' scope" in out["reader_session"][1]


def test_the_gateway_refuses_a_profile_it_does_not_know(gateway):
    url, tokens, _revoked = gateway
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {
        "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {tokens['agent']}",
    }
    answer = httpx.post(f"{url}/mcp/?profile=agent,everything", json=body, headers=headers)
    assert answer.status_code == 400
    assert "no MCP profile 'everything'" in answer.json()["detail"]


@pytest.mark.parametrize("who", ["none", "wrong", "revoked"])
def test_the_gateway_refuses_callers_without_a_valid_token(gateway, who):
    url, _tokens, revoked = gateway
    token = {"none": None, "wrong": "cgt_not-a-real-token", "revoked": revoked}[who]
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    answer = httpx.post(f"{url}/mcp/", json=body, headers=headers)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == "Bearer"


def test_rest_admin_routes_need_the_admin_scope(gateway):
    url, tokens, _revoked = gateway
    assert httpx.get(f"{url}/api/v1/repos").status_code == 401
    read = {"Authorization": f"Bearer {tokens['reader']}"}
    assert httpx.get(f"{url}/api/v1/repos", headers=read).status_code == 403
    admin = {"Authorization": f"Bearer {tokens['admin']}"}
    assert httpx.get(f"{url}/api/v1/repos", headers=admin).status_code == 200
    assert httpx.get(f"{url}/healthz").status_code == 200  # health needs nothing


def test_twenty_agents_claim_one_file_through_the_gateway(gateway):
    url, tokens, _revoked = gateway

    async def agent(n: int) -> tuple[int, str]:
        async with _client(url, tokens["agent"]) as client:
            session = json.loads(
                _text(
                    await client.call_tool(
                        "start_session",
                        {"agent": f"agent-{n}", "task": f"task {n}", "as_json": True},
                    )
                )
            )["id"]
            result = await client.call_tool(
                "claim_file",
                {"session": session, "repo": "shop", "path": "shop/models.py", "as_json": True},
            )
            return session, _text(result)

    async def run():
        return await asyncio.gather(*(agent(n) for n in range(20)))

    outcomes = [(session, json.loads(text)) for session, text in asyncio.run(run())]
    winners = [session for session, result in outcomes if result["granted"]]
    assert len(winners) == 1
    assert all(result["claim"]["session"] == winners[0] for _, result in outcomes)
    losers = [result["message"] for _, result in outcomes if not result["granted"]]
    assert len(losers) == 19 and all(f"by session {winners[0]} of agent" in m for m in losers)
