"""The real-browser harness itself (tests/browser_support.py): headless Chromium reaches a
running `cartograph serve`, collects console errors, renders a screenshot, and axe-core runs."""

from __future__ import annotations

from browser_support import axe_violations, format_violations

REPOSITORIES = """async (headers) => {
    const response = await fetch("/graphql", {
        method: "POST",
        headers: {"Content-Type": "application/json", ...headers},
        body: JSON.stringify({query: "{ repositories { name } }"}),
    });
    return {status: response.status, body: await response.json()};
}"""


def test_the_browser_reaches_the_served_graph(page, page_errors, shop_server):
    response = page.goto(f"{shop_server.url}/healthz")
    assert response is not None and response.ok
    assert '"ok"' in page.inner_text("body")
    answer = page.evaluate(REPOSITORIES, {})
    assert answer["status"] == 200, answer
    assert answer["body"]["data"]["repositories"] == [{"name": "shop"}]
    assert page_errors == []


def test_a_server_that_requires_a_token(page, page_errors, cartograph_server):
    server = cartograph_server(env={"CARTOGRAPH_ADMIN_TOKEN": "s3cret"})
    page.goto(f"{server.url}/healthz")
    assert page.evaluate(REPOSITORIES, {})["status"] == 401
    page_errors.clear()  # the browser logs the refused fetch
    answer = page.evaluate(REPOSITORIES, {"Authorization": "Bearer s3cret"})
    assert answer == {"status": 200, "body": {"data": {"repositories": []}}}
    assert page_errors == []


def test_axe_passes_a_clean_page_and_catches_a_bad_one(page, page_errors):
    page.set_content(
        '<html lang="en"><head><title>t</title></head><body><main><h1>ok</h1></main></body></html>'
    )
    violations = axe_violations(page)
    assert violations == [], format_violations(violations)
    page.set_content(
        '<html lang="en"><head><title>t</title></head><body><main><button></button></main></body></html>'
    )
    assert [v["id"] for v in axe_violations(page)] == ["button-name"]
    assert page_errors == []


def test_pages_render(page, page_errors, tmp_path):
    page.set_content('<html lang="en"><body><h1 style="color: #c00">rendered</h1></body></html>')
    shot = tmp_path / "page.png"
    page.screenshot(path=shot)
    assert shot.read_bytes().startswith(b"\x89PNG") and shot.stat().st_size > 1000
    assert page_errors == []
