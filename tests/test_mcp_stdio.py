"""The MCP server over stdio, driven by the official MCP SDK client — as an agent would — on
both stores (a SQLite file and a real Neo4j server, given by URL)."""

from __future__ import annotations

import asyncio
import json
import os
import sys

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
        args=["-m", "cartograph.cli", "--store", store_url, "mcp"],
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
