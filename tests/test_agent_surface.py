"""What an agent pays to use Cartograph, measured as an agent's client sees it (the MCP SDK):
the default tool list fits in a few thousand tokens, the other profiles are opt-in, and every
read's answer keeps within `max_tokens`, says what it left out and gives the rest by cursor
(over MCP, REST and the CLI alike)."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass

import httpx
import pytest
from api_support import serve_in_thread
from cartograph.api.app import Settings, create_app
from cartograph.budget import AGENT_MAX_TOKENS, compact_json, estimate_tokens, fit
from cartograph.index import index_repository
from cartograph.mcp_server import build_server
from cartograph.model import Review
from cartograph.operations import CATALOGUE
from cartograph.operations.base import PROFILES
from cartograph.render import to_data
from cartograph.store import open_store
from mcp import Client
from sample_repo import make_sample_repo
from test_mcp_schema import READ_CALLS

TOOL_LIST_TOKENS = 6000  # what the default tool list may cost an agent before its first question
CALLERS = 80


def _listed(server) -> list:
    async def run():
        async with Client(server) as client:
            return (await client.list_tools()).tools

    return asyncio.run(run())


def _tool_list_json(tools) -> str:
    """The tool list as the client holds it (what goes into the agent's context)."""
    return json.dumps([t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools])


def test_the_default_profile_is_a_dozen_tools_in_a_few_thousand_tokens(tmp_path):
    url = f"sqlite:///{tmp_path / 'graph.db'}"
    tools = _listed(build_server(url))
    names = {tool.name for tool in tools}
    assert names == {op.mcp for op in CATALOGUE if op.mcp_profile == "agent"}
    assert len(names) <= 12
    # what an investigating and editing agent reaches for is there
    assert {"locate", "search_symbols", "get_context", "find_callers", "impact"} <= names
    assert {"claim_file", "overlay_edit", "explain", "trace_calls", "find_path"} <= names
    cost = estimate_tokens(_tool_list_json(tools))
    assert cost <= TOOL_LIST_TOKENS, f"the default tool list costs {cost} tokens"
    # the whole catalogue is ~7x that: the profiles are what keeps an agent's context lean
    everything = _listed(build_server(url, profiles=PROFILES))
    assert len(everything) == sum(1 for op in CATALOGUE if op.mcp)
    assert estimate_tokens(_tool_list_json(everything)) > 4 * cost


def test_profiles_partition_the_tools_and_the_cli_takes_them(tmp_path):
    url = f"sqlite:///{tmp_path / 'graph.db'}"
    seen: dict[str, str] = {}
    for profile in PROFILES:
        for tool in _listed(build_server(url, profiles=[profile])):
            assert tool.name not in seen, (tool.name, profile, seen.get(tool.name))
            seen[tool.name] = profile
    assert set(seen) == {op.mcp for op in CATALOGUE if op.mcp}
    assert seen["create_token"] == "admin" and seen["index_repository"] == "admin"
    assert seen["release_file"] == "team" and seen["get_overview"] == "explore"
    refused = subprocess.run(
        [sys.executable, "-m", "cartograph.cli", "--store", url, "mcp", "--profile", "agent,x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode != 0 and "no MCP profile 'x'" in refused.stderr


# ---------------------------------------------------------------- answers within a budget


def _hub_repo(root):
    """A repository whose `hub` has CALLERS callers, each with a docstring."""
    callers = "\n\n".join(
        f'def caller_{n:03d}(value):\n    """Feeds the hub with value number {n}."""\n'
        f"    return hub(value) + {n}\n"
        for n in range(CALLERS)
    )
    files = {
        "app/__init__.py": "",
        "app/core.py": 'def hub(value):\n    """Where everything goes."""\n    return value\n',
        "app/users.py": f"from app.core import hub\n\n\n{callers}",
    }
    return make_sample_repo(root, files)


@pytest.fixture(scope="module")
def hub_store(tmp_path_factory):
    work = tmp_path_factory.mktemp("hub")
    url = f"sqlite:///{work / 'graph.db'}"
    index_repository(open_store(url), _hub_repo(work / "app"), "app")
    return url


def _caller_names(text: str) -> list[str]:
    return re.findall(r"caller_\d{3}", text)


def test_an_agents_answer_is_cut_to_its_budget_and_the_cursor_gives_the_rest(hub_store):
    async def run():
        async with Client(build_server(hub_store)) as client:
            pages = []
            arguments = {"symbol": "hub", "limit": 100, "max_tokens": 400}
            while True:
                result = await client.call_tool("find_callers", arguments)
                assert not result.is_error, result.content
                pages.append(result.content[0].text)
                cursor = re.search(r'cursor="([^"]+)"', pages[-1].splitlines()[0])
                if not cursor:
                    break
                arguments = {**arguments, "cursor": cursor.group(1)}
            whole = await client.call_tool("find_callers", {"symbol": "hub", "limit": 100})
            wrong = await client.call_tool(
                "find_callers", {"symbol": "caller_001", "cursor": arguments["cursor"]}
            )
            return pages, whole.content[0].text, wrong

    pages, whole, wrong = asyncio.run(run())
    assert len(pages) > 2
    for page in pages:
        assert estimate_tokens(page) <= 400, page
    first = pages[0].splitlines()[0]
    assert first.startswith("[cut to 400 tokens — items: ") and "more" in first
    # every caller once, in the order the whole answer ranks them
    shown = [name for page in pages for name in _caller_names(page)]
    assert shown == _caller_names(whole) and len(set(shown)) == CALLERS
    # the default budget holds the whole answer here; a cursor is for the question it came from
    assert estimate_tokens(whole) <= AGENT_MAX_TOKENS and "[cut" not in whole
    assert wrong.is_error and "not one a cut answer to this question gave" in wrong.content[0].text


def test_a_cut_call_tree_names_every_step_across_its_pages(tmp_path):
    """A continued page's steps hang under callers an earlier page showed, also under one this
    page shows again only as "shown above" (each middle calls the next one too)."""
    middles = "\n\n".join(
        f"def middle_{m}():\n    middle_{(m + 1) % 6}()\n    return hub()\n" for m in range(6)
    )
    tops = "\n\n".join(
        f"def top_{m}_{t}():\n    return middle_{m}()\n" for m in range(6) for t in range(6)
    )
    files = {
        "app/__init__.py": "",
        "app/core.py": f"def hub():\n    return 1\n\n\n{middles}\n\n{tops}",
    }
    url = f"sqlite:///{tmp_path / 'graph.db'}"
    index_repository(open_store(url), make_sample_repo(tmp_path / "app", files), "app")

    arguments = {"symbol": "hub", "direction": "in", "depth": 2, "max_tokens": 300}
    pages = _every_page(url, "trace_calls", arguments)
    assert len(pages) > 2
    named = [name for page in pages for name in re.findall(r"top_\d_\d", page)]
    assert len(named) == len(set(named)) == 36  # every caller's caller, each once


def test_every_test_to_run_is_named_on_some_page(tmp_path):
    """Impact's text names 60 tests at most and counts the rest: within a budget it stops
    where its text stops naming them, and the cursor goes on, even when the text would fit."""
    tests = "\n\n".join(f"def test_{n:03d}():\n    assert hub({n}) == {n}\n" for n in range(150))
    files = {
        "app/__init__.py": "",
        "app/core.py": "def hub(value):\n    return value\n",
        "tests/__init__.py": "",
        "tests/test_hub.py": f"from app.core import hub\n\n\n{tests}",
    }
    url = f"sqlite:///{tmp_path / 'graph.db'}"
    root = make_sample_repo(tmp_path / "app", files)
    index_repository(open_store(url), root, "app")
    patch = "--- a/app/core.py\n+++ b/app/core.py\n@@ -1,2 +1,2 @@\n def hub(value):\n"
    patch += "-    return value\n+    return value + 0\n"
    pages = _every_page(url, "impact", {"repo": "app", "patch": patch, "max_tokens": 10_000})
    named = [
        n for page in pages for n in re.findall(r"^  tests/test_hub.py::(test_\d+)  \(", page, re.M)
    ]
    assert len(pages) == 3 and sorted(named) == [f"test_{n:03d}" for n in range(150)]
    assert all(estimate_tokens(page) <= 10_000 for page in pages)
    assert not any("more (--json lists them all)" in page for page in pages)


def _every_page(url: str, tool: str, arguments: dict) -> list[str]:
    """The text of every page of a cut answer, its cursors followed to the end."""

    async def run():
        async with Client(build_server(url)) as client:
            asked, pages = arguments, []
            while True:
                result = await client.call_tool(tool, asked)
                assert not result.is_error, result.content
                pages.append(result.content[0].text)
                cursor = re.search(r'cursor="([^"]+)"', pages[-1].splitlines()[0])
                if not cursor:
                    return pages
                asked = {**arguments, "cursor": cursor.group(1)}

    return asyncio.run(run())


def test_every_read_keeps_to_the_smallest_budget(tmp_path):
    root = make_sample_repo(tmp_path / "shop")
    url = f"sqlite:///{tmp_path / 'graph.db'}"
    index_repository(open_store(url), root, "shop")
    budgeted = {op.mcp for op in CATALOGUE if op.mcp and op.budgeted}
    assert set(READ_CALLS) <= budgeted

    async def run():
        async with Client(build_server(url, profiles=PROFILES)) as client:
            out = {}
            for name, arguments in READ_CALLS.items():
                result = await client.call_tool(name, {**arguments, "max_tokens": 200})
                assert not result.is_error, (name, result.content)
                out[name] = result.content[0].text
            return out

    for name, text in asyncio.run(run()).items():
        assert estimate_tokens(text) <= 200, (name, text)


def test_rest_and_the_cli_cut_the_same_way(hub_store):
    settings = Settings(store_url=hub_store, broker_url=None)
    with serve_in_thread(create_app(settings)) as url:
        route = f"{url}/api/v1/symbols/hub/callers"
        # JSON says more per caller than text: a larger budget for a page of it
        first = httpx.get(route, params={"limit": 100, "max_tokens": 2000})
        assert first.status_code == 200
        cut = first.json()["cut_to_budget"]
        assert cut["max_tokens"] == 2000 and cut["left_out"][0]["field"] == "items"
        assert estimate_tokens(first.text) <= 2000
        rest = httpx.get(route, params={"limit": 100, "max_tokens": 2000, "cursor": cut["cursor"]})
        assert rest.status_code == 200
        shown = {item["symbol"]["name"] for item in first.json()["items"]}
        more = {item["symbol"]["name"] for item in rest.json()["items"]}
        assert shown and more and not shown & more
        text = httpx.get(
            route, params={"limit": 100, "max_tokens": 400}, headers={"Accept": "text/plain"}
        )
        assert text.text.startswith("[cut to 400 tokens") and "Cartograph-Cut" in text.headers
    command = [sys.executable, "-m", "cartograph.cli", "--store", hub_store, "callers", "hub"]
    printed = subprocess.run(
        [*command, "--limit", "100", "--max-tokens", "400"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout.startswith("[cut to 400 tokens") and 'cursor="cut.' in printed.stdout


def test_graphql_says_what_it_cut_in_the_responses_extensions(hub_store):
    """The typed answer fields take `maxTokens`; a cut answer is said in `extensions`, by the
    field's place in the response, with the cursor that answers the rest."""
    query = """query($cursor: String) {
      dead: deadCode(repo: "app", first: 100, maxTokens: 500, cursor: $cursor) {
        items { symbol { name } } } }"""
    settings = Settings(store_url=hub_store, broker_url=None)
    with serve_in_thread(create_app(settings)) as url:

        def ask(cursor: str | None) -> dict:
            answer = httpx.post(
                f"{url}/graphql", json={"query": query, "variables": {"cursor": cursor}}
            )
            assert answer.status_code == 200 and "errors" not in answer.json(), answer.text
            return answer.json()

        pages = [ask(None)]
        while "extensions" in pages[-1]:
            cut = pages[-1]["extensions"]["cutToBudget"]["dead"]
            assert cut["max_tokens"] == 500 and cut["left_out"][0]["field"] == "items"
            pages.append(ask(cut["cursor"]))
    # the budget counts what the query selects (a name per item), not the whole answer
    names = [item["symbol"]["name"] for page in pages for item in page["data"]["dead"]["items"]]
    assert 2 < len(pages) < 10 and sorted(names) == [f"caller_{n:03d}" for n in range(CALLERS)]


# ---------------------------------------------------------------- the cut itself


@dataclass
class _Report:
    title: str
    commands: list[str]
    items: list[str]


def _written(report: _Report) -> str:
    return "\n".join([report.title, *report.commands, *report.items])


def test_a_long_text_is_cut_short_rather_than_everything_around_it():
    """A command line running 2,000 tests would otherwise leave no room for the rest."""
    affected = [f"may be affected: function_{n}" for n in range(60)]
    report = _Report("impact", ["pytest " + "tests/test_a.py::test_b " * 2000], affected)
    fitted = fit(report, _written, 600)
    assert estimate_tokens(fitted.text) + estimate_tokens(fitted.note()) <= 600
    assert fitted.texts_cut == 1 and "characters cut]" in fitted.answer.commands[0]
    assert len(fitted.answer.items) >= 10  # the ranked list keeps its head
    assert "1 long texts cut short" in fitted.note() and fitted.cursor


@dataclass
class _Stream:
    items: Iterable[str]


def test_a_streamed_answer_is_cut_like_a_list():
    fitted = fit(
        _Stream(iter([f"node {n}" for n in range(500)])), lambda a: "\n".join(a.items), 300
    )
    assert fitted.left_out[0].field == "items" and fitted.cursor
    assert estimate_tokens(fitted.text) + estimate_tokens(fitted.note()) <= 300


def test_indentation_counts():
    assert estimate_tokens("if x:\n        return y") > estimate_tokens("if x: return y")


def test_a_stored_report_is_left_out_whole_not_cut_into_broken_json():
    """A pull request's stored impact report is JSON: cut short it would not parse."""
    report = json.dumps({"tests": [f"tests/test_{n}.py::test_it" for n in range(5000)]})
    review = Review(repo="shop", number=7, head_sha="a" * 40, report=report)
    fitted = fit(review, lambda each: compact_json(to_data(each)), 1000, lines=False)
    assert fitted.cut and fitted.texts_cut == 1
    assert json.loads(fitted.text)["report"] is None
