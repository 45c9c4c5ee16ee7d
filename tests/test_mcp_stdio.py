"""The MCP server over stdio, driven by the official MCP SDK client — as an agent would — on
both stores (a SQLite file and a real Neo4j server, given by URL)."""

from __future__ import annotations

import asyncio
import json
import os
import sys

from cartograph.model import Repo
from mcp import Client, StdioServerParameters
from sample_repo import make_sample_repo

TOOLS = {
    "search_symbols",
    "get_context",
    "find_callers",
    "trace_calls",
    "find_path",
    "find_dead_code",
    "get_overview",
    "get_schema",
    "index_repository",
}


def _text(result) -> str:
    assert not result.is_error, result.content
    return "".join(block.text for block in result.content if getattr(block, "text", None))


async def _session(store_url: str, cwd: str, calls):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "cartograph.cli", "--store", store_url, "mcp", "--profile", "all"],
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        cwd=cwd,
    )
    async with Client(params, read_timeout_seconds=60) as client:
        return await calls(client)


def test_every_tool_through_the_sdk_client(tmp_path, stores):
    root = make_sample_repo(tmp_path / "shop")
    store_url = stores.url()

    async def calls(client):
        listed = await client.list_tools()
        names = {tool.name for tool in listed.tools}
        descriptions = {tool.name: tool.description for tool in listed.tools}
        out = {"names": names, "descriptions": descriptions}
        out["index"] = _text(
            await client.call_tool("index_repository", {"path": str(root), "name": "shop"})
        )
        out["search"] = _text(
            await client.call_tool("search_symbols", {"query": "payment service"})
        )
        out["search_json"] = _text(
            await client.call_tool("search_symbols", {"query": "Cart", "as_json": True})
        )
        out["context"] = _text(await client.call_tool("get_context", {"symbol": "Cart.total"}))
        out["callers"] = _text(await client.call_tool("find_callers", {"symbol": "price_of"}))
        out["trace"] = _text(
            await client.call_tool("trace_calls", {"symbol": "place_order", "depth": 4})
        )
        out["trace_in"] = _text(
            await client.call_tool("trace_calls", {"symbol": "price_of", "direction": "in"})
        )
        out["path"] = _text(
            await client.call_tool("find_path", {"source": "place_order", "target": "price_of"})
        )
        out["dead"] = _text(await client.call_tool("find_dead_code", {"repo": "shop"}))
        out["overview"] = _text(await client.call_tool("get_overview", {"repo": "shop"}))
        out["schema"] = _text(await client.call_tool("get_schema", {}))
        missing = await client.call_tool("get_context", {"symbol": "NoSuchThing"})
        out["missing"] = (missing.is_error, "".join(b.text for b in missing.content))
        return out

    out = asyncio.run(_session(store_url, str(tmp_path), calls))
    assert out["names"] >= TOOLS
    assert "open the file before" in out["descriptions"]["get_context"]
    assert "indexed shop" in out["index"] and "5 files" in out["index"]
    assert "shop.payments.PaymentService" in out["search"]
    hits = json.loads(out["search_json"])["hits"]
    assert hits[0]["symbol"]["qualname"] == "shop.models.Cart"
    assert "method shop.models.Cart.total" in out["context"] and "shop/models.py" in out["context"]
    assert "shop.models.Cart.total" in out["callers"]
    assert "shop.payments.Gateway.charge" in out["trace"]
    assert "shop.orders.place_order" in out["trace_in"]
    assert "3 call(s)" in out["path"]
    assert "shop.models.unused_helper" in out["dead"]
    assert "most called" in out["overview"]
    assert "CALLS" in out["schema"] and "via" in out["schema"]
    is_error, message = out["missing"]
    assert is_error and "no symbol named 'NoSuchThing'" in message


def test_reindex_after_an_edit_refreshes_answers(tmp_path, stores):
    root = make_sample_repo(tmp_path / "shop")
    store_url = stores.url()

    async def calls(client):
        await client.call_tool("index_repository", {"path": str(root), "name": "shop"})
        models = root / "shop" / "models.py"
        models.write_text(models.read_text() + "\n\ndef brand_new():\n    return price_of('x')\n")
        stale = _text(await client.call_tool("get_context", {"symbol": "price_of"}))
        summary = _text(
            await client.call_tool("index_repository", {"path": str(root), "name": "shop"})
        )
        fresh = _text(await client.call_tool("find_callers", {"symbol": "price_of"}))
        return stale, summary, fresh

    stale, summary, fresh = asyncio.run(_session(store_url, str(tmp_path), calls))
    assert "changed on disk since indexed" in stale
    assert "1 parsed" in summary
    assert "shop.models.brand_new" in fresh and "changed on disk" not in fresh


def test_team_tools_sessions_claims_and_lessons(tmp_path, stores):
    """Two agents through the SDK client: one claims a file, the other is told who holds it,
    may not edit it, and reads the lesson the first left."""
    store_url = stores.url()
    stores.open().repos.upsert_repo(Repo(name="shop"))  # claims name a known repository

    async def calls(client):
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {
            "start_session",
            "heartbeat",
            "claim_file",
            "release_file",
            "list_claims",
            "check_edit",
            "remember",
            "recall",
        } <= names

        async def tool(name, **arguments):
            return _text(await client.call_tool(name, arguments))

        alice = json.loads(
            await tool(
                "start_session", agent="alice-laptop", task="fix refund rounding", as_json=True
            )
        )["id"]
        bob = json.loads(await tool("start_session", agent="bob", task="docs", as_json=True))["id"]
        out = {
            "won": await tool("claim_file", session=alice, repo="shop", path="api/payments.py"),
            "lost": await tool("claim_file", session=bob, repo="shop", path="api/payments.py"),
            "check": await tool("check_edit", session=bob, repo="shop", path="api/payments.py"),
            "claims": await tool("list_claims", repo="shop"),
            "lesson": await tool(
                "remember",
                session=alice,
                text="Refund amounts are Decimal; run pytest tests/payments.",
                about=["api/"],
            ),
            "recall": await tool("recall", about=["api/payments.py"]),
            "released": await tool(
                "release_file", session=alice, repo="shop", path="api/payments.py"
            ),
            "after": await tool("claim_file", session=bob, repo="shop", path="api/payments.py"),
        }
        bad = await client.call_tool("claim_file", {"session": 999999, "repo": "shop", "path": "x"})
        out["bad"] = (bad.is_error, "".join(b.text for b in bad.content))
        return out

    out = asyncio.run(_session(store_url, str(tmp_path), calls))
    assert out["won"].startswith("api/payments.py is yours")
    assert "is being edited by session" in out["lost"] and "alice-laptop" in out["lost"]
    assert "fix refund rounding" in out["check"]
    assert "api/payments.py  edit by session" in out["claims"]
    assert "Decimal" in out["recall"] and "alice-laptop" in out["recall"]
    assert out["released"] == "released api/payments.py"
    assert out["after"].startswith("api/payments.py is yours")
    assert out["bad"][0] and "no session 999999" in out["bad"][1]
