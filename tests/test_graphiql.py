"""GraphiQL at /graphql on a closed network: its files come from the package (unchanged from the
npm registry's tarballs, as recorded), the page loads with no token and no request leaves this
machine, a person pastes a token into the page and runs a query; only a query without a valid
token is refused."""

from __future__ import annotations

import fnmatch
import hashlib
import json
import tomllib
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from browser_support import cartograph
from playwright.sync_api import Page, Route, expect
from sample_repo import make_sample_repo

ROOT = Path(__file__).resolve().parent.parent
IDE = ROOT / "api" / "cartograph" / "api" / "graphiql"
QUERY = '{ search(query: "price_of") { nodes { qualname file { path } } } }'


def test_graphiql_runs_a_query_with_a_pasted_token(
    page: Page, page_errors: list[str], cartograph_server, tmp_path
):
    shop = make_sample_repo(tmp_path / "shop")
    server = cartograph_server(env={"CARTOGRAPH_REQUIRE_TOKENS": "true"}, repos=[shop])
    made = cartograph(
        "token", "create", "--name", "graphiql", "--scopes", "read", "--json", env=server.env
    )
    token = json.loads(made.stdout)["token"]

    # the page needs no token (a browser cannot give one to a GET it navigates to); a query does
    assert httpx.get(f"{server.url}/graphql", headers={"Accept": "text/html"}).status_code == 200
    query = {"query": QUERY}
    assert httpx.post(f"{server.url}/graphql", json=query).status_code == 401
    asked = httpx.get(f"{server.url}/graphql", params=query, headers={"Accept": "text/html"})
    assert asked.status_code == 401  # a GET with a query is a query, not the page

    # no network but this machine: a request for anything else is recorded and refused
    elsewhere: list[str] = []

    def only_here(route: Route) -> None:
        if urlsplit(route.request.url).hostname in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", only_here)
    opened = page.goto(f"{server.url}/graphql")
    assert opened is not None and opened.status == 200
    expect(page.get_by_text("Paste an API token above")).to_be_visible()

    page.get_by_label("API token").fill(token)
    page.get_by_role("button", name="Use token").click()
    editor = page.locator(".graphiql-query-editor .CodeMirror")
    expect(editor).to_be_visible()
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(QUERY)
    page.locator(".graphiql-execute-button").click()
    response = page.locator(".graphiql-response")
    expect(response).to_contain_text('"qualname": "shop.models.price_of"')
    expect(response).to_contain_text('"path": "shop/models.py"')
    assert elsewhere == []
    assert page_errors == []


def test_the_page_says_when_a_token_is_refused(page: Page, page_errors, cartograph_server):
    server = cartograph_server(env={"CARTOGRAPH_REQUIRE_TOKENS": "true"})
    page.goto(f"{server.url}/graphql")
    page.get_by_label("API token").fill("cgt_not-a-token")
    page.get_by_role("button", name="Use token").click()
    expect(page.get_by_role("status")).to_have_text("That token was refused: paste another.")
    # the browser's own report of the 401 to the schema query is the one console error
    assert page_errors and all("401" in error for error in page_errors), page_errors


def test_graphiql_files_ship_as_recorded():
    """The vendored files are the tarballs' own (SOURCES.txt, written by
    tools/graphiql/update.sh), with their licences, and pyproject's package-data ships every
    file of the page."""
    sources = (IDE / "vendor" / "SOURCES.txt").read_text().splitlines()
    recorded = dict(line.split() for line in sources if line and not line.startswith("#"))
    files = {p.name: p for p in (IDE / "vendor").iterdir() if p.name != "SOURCES.txt"}
    assert {"graphiql.min.js", "react.production.min.js", "LICENSE.graphiql"} <= set(files)
    for name, path in files.items():
        assert hashlib.sha256(path.read_bytes()).hexdigest() == recorded[name], name
    assert {"graphiql@3.9.0", "react@18.3.1", "react-dom@18.3.1"} <= set(recorded)

    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = setuptools["package-data"]["cartograph.api"]
    package = IDE.parent
    for path in IDE.rglob("*"):
        if path.is_file():
            relative = path.relative_to(package).as_posix()
            assert any(fnmatch.fnmatch(relative, p) for p in patterns), relative
