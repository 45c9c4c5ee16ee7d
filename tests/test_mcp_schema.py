"""What an MCP client learns before it calls anything, and what it gets back: every tool carries
annotations from its declaration; outside the `agent` profile a real output schema (the
answer's fields) and every answer comes back as structured content valid against it beside the
text; the agent profile's tools answer text alone. The index summary is a resource and a
prompt."""

from __future__ import annotations

import asyncio

import jsonschema
from cartograph.index import index_repository
from cartograph.mcp_server import build_server
from cartograph.operations import CATALOGUE
from cartograph.operations.base import PROFILES
from cartograph.store import open_store
from mcp import Client
from sample_repo import make_sample_repo

# one call of each tool that reads, on the sample shop
READ_CALLS = {
    "search_symbols": {"query": "cart total"},
    "locate": {"text": "the cart total sums price_of per sku and quantity"},
    "get_context": {"symbol": "Cart.total"},
    "find_callers": {"symbol": "price_of"},
    "find_callees": {"symbol": "place_order"},
    "trace_calls": {"symbol": "place_order"},
    "find_path": {"source": "place_order", "target": "price_of"},
    "find_dead_code": {"repo": "shop"},
    "get_overview": {"repo": "shop"},
    "get_stats": {"repo": "shop"},
    "history": {"target": "shop/models.py", "repo": "shop"},
    "co_changes": {"target": "shop/models.py", "repo": "shop"},
    "owners": {"target": "shop/models.py", "repo": "shop"},
    "explain": {"symbol": "Cart.total"},
    "list_repos": {},
    "list_files": {"repo": "shop"},
    "get_schema": {},
    "list_claims": {},
    "recall": {"about": ["shop/models.py"]},
    "export_graph": {"repo": "shop"},
    "impact": {"repo": "shop", "patch": ""},
}


def test_every_tool_is_annotated_and_answers_structured_content_valid_for_its_schema(tmp_path):
    root = make_sample_repo(tmp_path / "shop")
    url = f"sqlite:///{tmp_path / 'graph.db'}"
    index_repository(open_store(url), root, "shop")
    declared = {op.mcp: op for op in CATALOGUE if op.mcp}

    async def run() -> None:
        async with Client(build_server(url, profiles=PROFILES)) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == set(declared)
            for name, tool in tools.items():
                op = declared[name]
                hints = tool.annotations
                assert hints is not None and hints.title == op.help, name
                assert hints.read_only_hint is op.changes_nothing, name
                if op.changes_nothing:  # said of tools that change something only
                    assert hints.idempotent_hint is hints.destructive_hint is None, name
                else:
                    assert hints.idempotent_hint is op.repeatable, name
                if op.mcp_profile == "agent":
                    assert tool.output_schema is None, name
                    continue
                assert tool.output_schema is not None, name
                assert tool.output_schema.get("type") == "object", name
                assert tool.output_schema.get("properties"), name
            assert tools["end_session"].annotations.destructive_hint is True
            assert tools["claim_file"].annotations.read_only_hint is False
            assert tools["sync_repo"].annotations.open_world_hint is True
            for name, arguments in READ_CALLS.items():
                result = await client.call_tool(name, arguments)
                assert not result.is_error, (name, result.content)
                assert result.content[0].text  # the compact text is still there
                if declared[name].mcp_profile == "agent":
                    assert result.structured_content is None, name
                else:
                    jsonschema.validate(result.structured_content, tools[name].output_schema)
            located = await client.call_tool("locate", READ_CALLS["locate"])
            assert "shop/models.py" in located.content[0].text
            assert "Cart.total" in located.content[0].text

            templates = (await client.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["cartograph://repos/{repo}/summary"]
            summary = await client.read_resource("cartograph://repos/shop/summary")
            assert "Cartograph index of shop" in summary.contents[0].text
            prompt = await client.get_prompt("start_here", {"repo": "shop", "task": "cart total"})
            text = prompt.messages[0].content.text
            assert "Cartograph index of shop" in text and "The task: cart total" in text

    asyncio.run(run())
