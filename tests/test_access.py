"""Who may reach the team endpoint, tried as a hostile and a careless user would: the app started
every way it can be (bound to 0.0.0.0, behind a proxy, through `uvicorn --factory`), DNS
rebinding and cross-site requests from a web page, oversized, streamed and deeply nested
bodies on every route that takes one, settings spelled every way, and every REST route,
MCP tool and GraphQL field with each token scope.

Most checks call the app as ASGI with a scope of our making (any client, server and Host
address, deterministic); the start-up paths run real uvicorn servers."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest
from api_support import serve_in_process, serve_in_thread
from cartograph.api.app import Settings, create_app
from cartograph.api.guard import BODY_LIMITS, MAX_JSON_DEPTH, json_too_deep
from cartograph.auth import create_token
from cartograph.config import parse_bool
from cartograph.errors import Invalid
from cartograph.index import index_repository
from cartograph.operations import CATALOGUE
from cartograph.tracking import add_tracked
from redis_server import free_port
from sample_repo import make_sample_repo

LOOPBACK = ("127.0.0.1", 8000)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """A SQLite store with the sample repository, a tracked repository and a token per scope."""
    from cartograph.store import open_store

    folder = tmp_path_factory.mktemp("access")
    url = f"sqlite:///{folder / 'graph.db'}"
    store = open_store(url)
    index_repository(store, make_sample_repo(folder / "shop"), name="shop", workers=1)
    add_tracked(store, "shop", f"file://{folder / 'nowhere.git'}", "main", "s" * 24)
    tokens = {
        scope: create_token(store, scope, [scope])[0] for scope in ("read", "claims", "admin")
    }
    store.close()
    return url, folder, tokens


def app_for(indexed, **settings):
    url, folder, _tokens = indexed
    return create_app(
        Settings(store_url=url, broker_url=None, data_dir=folder / "data", **settings)
    )


class Answer:
    def __init__(self, status: int, headers: dict[str, str], body: bytes, read: int) -> None:
        self.status, self.headers, self.body, self.read = status, headers, body, read

    def json(self):
        return json.loads(self.body)


def call(
    app,
    method: str = "GET",
    path: str = "/api/v1/indexed-repos",
    *,
    headers: dict[str, str] | None = None,
    body: bytes = b"",
    chunks: list[bytes] | None = None,
    client: tuple[str, int] = ("127.0.0.1", 50000),
    server: tuple[str, int] = LOOPBACK,
    host: str | None = "127.0.0.1:8000",
    query: str = "",
) -> Answer:
    """One request through the ASGI app, with the addresses and headers given; `read` says how
    many body bytes the app pulled from the client."""
    raw = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    if host is not None:
        raw.append((b"host", host.encode()))
    parts = chunks if chunks is not None else [body]
    if chunks is None and body:
        raw.append((b"content-length", str(len(body)).encode()))
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": query.encode(),
        "root_path": "", "headers": raw, "client": client, "server": server,
    }  # fmt: skip
    pending = list(parts)
    read = 0
    sent: list[dict] = []

    async def receive() -> dict:
        nonlocal read
        if pending:
            chunk = pending.pop(0)
            read += len(chunk)
            return {"type": "http.request", "body": chunk, "more_body": bool(pending)}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    async def run() -> None:
        async with contextlib.AsyncExitStack():
            await asyncio.wait_for(app(scope, receive, send), timeout=60)

    asyncio.run(run())
    start = next(m for m in sent if m["type"] == "http.response.start")
    body_out = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    out_headers = {k.decode(): v.decode() for k, v in start.get("headers", [])}
    return Answer(start["status"], out_headers, body_out, read)


def bearer(token: str, scheme: str = "Bearer") -> dict[str, str]:
    return {"Authorization": f"{scheme} {token}"}


# ---------------------------------------------------------------- who may go without a token


def test_only_this_machine_to_this_machine_goes_without_a_token(indexed, tmp_path):
    app = app_for(indexed)
    assert call(app).status == 200  # loopback to loopback, a loopback Host
    assert call(app, host="localhost:8000").status == 200
    assert call(app, client=("::1", 5), server=("::1", 8000), host="[::1]:8000").status == 200
    refused = [
        call(app, client=("192.0.2.9", 5)),  # from another machine
        call(app, server=("192.0.2.2", 8000), host="192.0.2.2:8000"),  # bound to 0.0.0.0
        call(app, headers={"X-Forwarded-For": "198.51.100.7"}),  # through a proxy
        call(app, headers={"Forwarded": "for=198.51.100.7"}),
        call(app, headers={"X-Real-IP": "198.51.100.7"}),
        call(app, host="evil.example:8000"),  # DNS rebinding: a page of evil.example
        call(app, client=None, server=None),  # a harness that says nothing
    ]
    for answer in refused:
        assert answer.status == 401, answer.body
        assert answer.headers["www-authenticate"] == "Bearer"
        assert "bearer token is required" in answer.json()["detail"]
    # the command the refusal names works as it is written (into a store of its own)
    command = answer.json()["detail"].split("`")[1].split()
    assert command[:3] == ["cartograph", "token", "create"], command
    made = subprocess.run(
        [sys.executable, "-m", "cartograph.cli", *command[1:], "--store", f"sqlite:///{tmp_path / 't.db'}"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert made.returncode == 0 and "cgt_" in made.stdout, made.stderr


def test_required_tokens_hold_for_loopback_too(indexed):
    _url, _folder, tokens = indexed
    for settings in ({"require_tokens": True}, {"admin_token": "x" * 40}):
        app = app_for(indexed, **settings)
        assert call(app).status == 401
        assert call(app, headers=bearer(tokens["read"])).status == 200


def test_bearer_scheme_is_case_insensitive(indexed):
    _url, _folder, tokens = indexed
    app = app_for(indexed, require_tokens=True)
    for scheme in ("Bearer", "bearer", "BEARER", "bEaReR"):
        assert call(app, headers=bearer(tokens["read"], scheme)).status == 200
    assert call(app, headers=bearer(tokens["read"], "Basic")).status == 401
    assert call(app, headers={"Authorization": "Bearer"}).status == 401


@pytest.mark.parametrize("value", ["True", "yes", "ON", "1", " true "])
def test_booleans_that_require_tokens(indexed, monkeypatch, value):
    monkeypatch.setenv("CARTOGRAPH_REQUIRE_TOKENS", value)
    assert call(app_for(indexed)).status == 401


@pytest.mark.parametrize("value", ["maybe", "enabled", "2", "tru"])
def test_unknown_booleans_are_refused_at_start(monkeypatch, value):
    monkeypatch.setenv("CARTOGRAPH_REQUIRE_TOKENS", value)
    with pytest.raises(Invalid, match="CARTOGRAPH_REQUIRE_TOKENS"):
        Settings()
    assert parse_bool("False", "x") is False and parse_bool("off", "x") is False


# ---------------------------------------------------------------- hosts and origins


def test_hosts_are_configuration(indexed):
    _url, _folder, tokens = indexed
    app = app_for(indexed, public_url="https://cartograph.example.com", require_tokens=True)
    read = bearer(tokens["read"])
    assert call(app, host="cartograph.example.com", headers=read).status == 200
    assert call(app, host="127.0.0.1:8000", headers=read).status == 200  # loopback always
    misdirected = call(app, host="other.example", headers=read)
    assert misdirected.status == 421 and "other.example" in misdirected.json()["detail"]
    # the MCP gateway answers for the configured host (it answered 421 to any but loopback)
    initialize = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}},
    }  # fmt: skip
    with serve_in_thread(app) as base:
        answer = httpx.post(
            f"{base}/mcp/", json=initialize,
            headers={**read, "Host": "cartograph.example.com",
                     "Accept": "application/json, text/event-stream"},
        )  # fmt: skip
        assert answer.status_code == 200, answer.text
        assert answer.json()["result"]["serverInfo"]["name"] == "cartograph"
        elsewhere = httpx.post(
            f"{base}/mcp/", json=initialize, headers={**read, "Host": "x.example"}
        )
        assert elsewhere.status_code == 421
    wildcard = app_for(indexed, allowed_hosts=("*.corp.example",), require_tokens=True)
    assert call(wildcard, host="cg.corp.example:443", headers=read).status == 200
    assert call(wildcard, host="corp.example.evil", headers=read).status == 421


def test_a_web_page_cannot_drive_a_local_server(indexed):
    """DNS rebinding and cross-site requests: a page of another origin gets nothing from an
    open local server, and cannot start work on it with a form or a text/plain post."""
    app = app_for(indexed)
    evil = {"Origin": "https://evil.example"}
    assert call(app, headers=evil).status == 403
    sync = "/api/v1/repos/shop/sync"
    assert (
        call(app, "POST", sync, headers={**evil, "Content-Type": "text/plain"}, body=b"{}").status
        == 403
    )
    assert (
        call(
            app, "POST", sync, headers={"Content-Type": "text/plain"}, body=b'{"sha": null}'
        ).status
        == 415
    )
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    assert call(app, "POST", "/api/v1/sessions", headers=form, body=b"agent=x&task=y").status == 415
    assert call(app, "POST", "/graphql", headers=evil, body=b"{}").status == 403
    assert call(app, headers={"Origin": "null"}).status == 403
    # the page of the server itself (GraphiQL, the dashboard) may call it
    same = {"Origin": "http://127.0.0.1:8000", "Content-Type": "application/json"}
    query = json.dumps({"query": "{ repositories { name } }"}).encode()
    assert call(app, "POST", "/graphql", headers=same, body=query).status == 200


def test_cross_origin_calls_with_a_token_need_an_allowed_origin(indexed):
    _url, _folder, tokens = indexed
    app = app_for(indexed, public_url="https://cg.example.com", require_tokens=True)
    read = bearer(tokens["read"])
    assert (
        call(
            app, host="cg.example.com", headers={**read, "Origin": "https://cg.example.com"}
        ).status
        == 200
    )
    assert (
        call(app, host="cg.example.com", headers={**read, "Origin": "https://evil.example"}).status
        == 403
    )
    other = app_for(indexed, allowed_origins=("https://dash.example.com",), require_tokens=True)
    assert call(other, headers={**read, "Origin": "https://dash.example.com"}).status == 200


def test_an_origin_matches_in_scheme_host_and_port(indexed):
    """Behind a TLS proxy the request itself arrives as http with the public Host: a page at
    `http://` + the public host (or another port) is another origin than the public URL's."""
    _url, _folder, tokens = indexed
    read = bearer(tokens["read"])
    app = app_for(indexed, public_url="https://cg.example.com", require_tokens=True)

    def status(origin: str, host: str = "cg.example.com") -> int:
        return call(app, host=host, headers={**read, "Origin": origin}).status

    assert status("https://cg.example.com") == 200
    assert status("https://CG.example.com:443") == 200  # the same origin, spelled otherwise
    assert status("http://cg.example.com") == 403
    assert status("https://cg.example.com:8443") == 403
    assert status("http://cg.example.com:443") == 403
    # a host no configured origin names: its own page (scheme, host and port as requested)
    assert status("http://127.0.0.1:8000", host="127.0.0.1:8000") == 200
    assert status("https://127.0.0.1:8000", host="127.0.0.1:8000") == 403
    assert status("http://127.0.0.1:8001", host="127.0.0.1:8000") == 403
    # an open local server: only its own loopback origin, scheme included
    open_app = app_for(indexed)
    same = call(open_app, headers={"Origin": "http://127.0.0.1:8000"})
    assert same.status == 200
    assert call(open_app, headers={"Origin": "https://127.0.0.1:8000"}).status == 403


# ---------------------------------------------------------------- bodies


def body_routes() -> list[tuple[str, str]]:
    """Every route that takes a body: the catalogue's POST/PUT/PATCH routes, GraphQL, MCP and
    the webhooks."""
    routes = [
        (op.rest.method, "/api/v1" + op.rest.path.replace("{repo}", "shop").replace("{session}", "1"))
        for op in CATALOGUE
        if op.rest is not None and op.rest.method in ("POST", "PUT", "PATCH")
    ]  # fmt: skip
    return [*routes, ("POST", "/graphql"), ("POST", "/mcp/"), ("POST", "/webhooks/github/shop")]


@pytest.mark.parametrize("method, path", body_routes())
def test_every_body_taking_route_refuses_oversized_and_deep_bodies(indexed, method, path):
    _url, _folder, tokens = indexed
    app = app_for(indexed, require_tokens=True)
    admin = {**bearer(tokens["admin"]), "Content-Type": "application/json"}
    area = "webhooks" if path.startswith("/webhooks") else path.split("/")[1]
    area = {"api": "api", "graphql": "graphql", "mcp": "mcp"}.get(area, area)
    limit = BODY_LIMITS[area if area in BODY_LIMITS else "api"]
    # declared too large: refused before a byte is read, authenticated or not
    for headers in (admin, {"Content-Type": "application/json"}):
        big = call(app, method, path, headers={**headers, "Content-Length": str(300 * 2**20)},
                   chunks=[b"x" * 1024])  # fmt: skip
        assert big.status in (413, 401) and big.read == 0, (big.status, big.body)
    # streamed without a length: cut as soon as it passes the limit
    chunk = b" " * (64 * 1024)
    streamed = call(app, method, path, headers=admin, chunks=[chunk] * (limit // len(chunk) + 8))
    assert streamed.status == 413 and streamed.read <= limit + len(chunk)
    # nested deeper than the parser's recursion allows: a 400, never a 500
    deep = b"[" * 100_000 + b"]" * 100_000
    nested = call(app, method, path, headers=admin, body=deep)
    assert nested.status == 400 and "nested" in nested.json()["detail"], nested.body
    obj = b'{"a":' * 5_000 + b"1" + b"}" * 5_000
    assert call(app, method, path, headers=admin, body=obj).status == 400


def test_an_unauthenticated_body_is_never_read(indexed):
    app = app_for(indexed, require_tokens=True)
    answer = call(app, "POST", "/api/v1/sessions", headers={"Content-Type": "application/json"},
                  chunks=[b'{"agent": "x", "task": "y"}'] * 10)  # fmt: skip
    assert answer.status == 401 and answer.read == 0


def test_json_depth_check_ignores_brackets_inside_strings():
    assert not json_too_deep(json.dumps({"text": "[" * 10_000}).encode())
    assert not json_too_deep(json.dumps([[[1]]] * 1000).encode())
    assert json_too_deep(b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1))
    assert not json_too_deep(b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH)


def test_a_signed_webhook_with_a_deep_body_is_a_clear_refusal(indexed):
    import hashlib
    import hmac

    app = app_for(indexed, require_tokens=True)
    body = b'{"ref": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"
    signature = "sha256=" + hmac.new(b"s" * 24, body, hashlib.sha256).hexdigest()
    headers = {"X-GitHub-Event": "push", "X-Hub-Signature-256": signature,
               "Content-Type": "application/json"}  # fmt: skip
    assert call(app, "POST", "/webhooks/github/shop", headers=headers, body=body).status == 400


# ---------------------------------------------------------------- scopes, everywhere


SCOPES = ("read", "claims", "admin")


def allowed(needed: str, held: str) -> bool:
    return held == "admin" or held == needed


@pytest.mark.parametrize(
    "op", [op for op in CATALOGUE if op.rest is not None], ids=lambda o: o.name
)
def test_every_rest_route_checks_its_scope(indexed, op):
    """Each route with a token of each scope. The probes change nothing when allowed: a body
    of the wrong shape (a list) is refused by validation after the scope check, and deletions
    name what does not exist."""
    _url, _folder, tokens = indexed
    app = app_for(indexed, require_tokens=True)
    path = "/api/v1" + op.rest.path
    repo = "nobody" if op.rest.method == "DELETE" else "shop"
    for name, value in (("{repo}", repo), ("{session}", "424242"), ("{symbol:path}", "Cart"),
                        ("{name}", "nobody")):  # fmt: skip
        path = path.replace(name, value)
    for held in SCOPES:
        headers = {**bearer(tokens[held]), "Content-Type": "application/json"}
        body = b"[]" if op.rest.method in ("POST", "PUT", "PATCH") else b""
        answer = call(app, op.rest.method, path, headers=headers, body=body)
        if allowed(op.scope, held):
            assert answer.status != 403, (op.name, held, answer.body)
        else:
            assert answer.status == 403, (op.name, held, answer.status, answer.body)
            assert f"lacks the {op.scope!r} scope" in answer.json()["detail"]


GRAPHQL_FIELDS = {
    "repositories": ("{ repositories { name } }", "read"),
    "search": ('{ search(query: "cart") { nodes { id } } }', "read"),
    "locate": ('{ locate(text: "cart total") { confidence } }', "read"),
    "symbol": ('{ symbol(name: "Cart") { id } }', "read"),
    "trace": ('{ trace(name: "Cart.total") { depth } }', "read"),
    "history": ('{ history(target: "shop/models.py") { sha } }', "read"),
    "impact": ('{ impact(repo: "shop", patch: "") { verdict } }', "read"),
    "pullRequestReport": ('{ pullRequestReport(repo: "shop", number: 1) { verdict } }', "read"),
    "session": ("{ session(id: 1) { id } }", "claims"),
    "claims": ("{ claims { path } }", "claims"),
    # made from the catalogue (cartograph.api.graphql_answers): the operation's scope
    "deadCode": ('{ deadCode(repo: "shop") { repo } }', "read"),
    "services": ('{ services(repo: "shop") { repo } }', "read"),
    "overview": ('{ overview(repo: "shop") { repo } }', "read"),
    "stats": ('{ stats(repo: "shop") { files } }', "read"),
    "hotspots": ('{ hotspots(repo: "shop") { repo } }', "read"),
    "coChanges": ('{ coChanges(target: "shop/models.py") { target } }', "read"),
    "owners": ('{ owners(target: "shop/models.py") { target } }', "read"),
    "explain": ('{ explain(name: "Cart.total") { symbol { id } } }', "read"),
    "source": ('{ source(name: "Cart.total") { lines } }', "read"),
    "team": ("{ team { claims } }", "claims"),
    "trackedRepositories": ("{ trackedRepositories { name } }", "admin"),
}


def test_every_graphql_field_checks_its_scope(indexed):
    """GraphQL needs `read` for the request; beyond it, each field its own scope (a claims-only
    token reaches nothing, a read token no session or claim, admin everything)."""
    from cartograph.api.graphql import schema

    fields = set(schema._schema.query_type.fields)
    assert set(GRAPHQL_FIELDS) == fields, "a new Query field needs its scope in this table"
    _url, _folder, tokens = indexed
    app = app_for(indexed, require_tokens=True)
    for field, (query, needed) in GRAPHQL_FIELDS.items():
        for held in SCOPES:
            answer = call(app, "POST", "/graphql", body=json.dumps({"query": query}).encode(),
                          headers={**bearer(tokens[held]), "Content-Type": "application/json"})  # fmt: skip
            if held == "claims":
                assert answer.status == 403, (field, held)  # no `read`: not even the request
                continue
            errors = answer.json().get("errors") or []
            forbidden = [
                e for e in errors if (e.get("extensions") or {}).get("kind") == "forbidden"
            ]
            if allowed(needed, held):
                assert not forbidden, (field, held, errors)
            else:
                assert forbidden and f"lacks the {needed!r} scope" in forbidden[0]["message"]


def test_negative_offsets_are_refused_on_graphql(indexed):
    _url, _folder, tokens = indexed
    app = app_for(indexed, require_tokens=True)
    headers = {**bearer(tokens["read"]), "Content-Type": "application/json"}
    for query in ('{ search(query: "cart", offset: -1) { nodes { id } } }',
                  '{ repositories { files(offset: -5) { path } } }'):  # fmt: skip
        answer = call(app, "POST", "/graphql", headers=headers,
                      body=json.dumps({"query": query}).encode()).json()  # fmt: skip
        assert answer["errors"] and "offset" in answer["errors"][0]["message"], answer


# ---------------------------------------------------------------- the ways the app starts


def _external_address() -> str | None:
    """This machine's address on a non-loopback interface (nothing is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_an_open_server_bound_to_every_interface_asks_the_network_for_tokens(indexed):
    address = _external_address()
    assert address, "this test needs a non-loopback interface (e.g. eth0)"
    import uvicorn

    app = app_for(indexed)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="0.0.0.0", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert httpx.get(f"http://127.0.0.1:{port}/api/v1/indexed-repos").status_code == 200
        assert httpx.get(f"http://{address}:{port}/api/v1/indexed-repos").status_code == 401
        assert httpx.get(f"http://{address}:{port}/healthz").status_code == 200
    finally:
        server.should_exit = True
        thread.join(timeout=15)


def test_the_documented_multi_worker_start_is_never_open_to_the_network(indexed, tmp_path):
    """`uvicorn --factory cartograph.api.app:app_from_environment --host 0.0.0.0` (the Docker
    image's command) with no token setting at all."""
    address = _external_address()
    assert address, "this test needs a non-loopback interface (e.g. eth0)"
    url, folder, tokens = indexed
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", "--factory",
               "cartograph.api.app:app_from_environment", "--host", "0.0.0.0",
               "--port", str(port), "--workers", "2", "--log-level", "warning"]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARTOGRAPH_")}
    env.update(CARTOGRAPH_STORE=url, CARTOGRAPH_DATA=str(folder / "data"))
    log = open(tmp_path / "uvicorn.log", "wb")  # noqa: SIM115 - closed below
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            time.sleep(0.1)
        remote = f"http://{address}:{port}"
        assert httpx.get(f"{remote}/api/v1/indexed-repos").status_code == 401
        assert httpx.get(f"{remote}/api/v1/tokens").status_code == 401
        assert (
            httpx.post(f"{remote}/graphql", json={"query": "{ repositories { name } }"}).status_code
            == 401
        )
        assert (
            httpx.get(f"{remote}/api/v1/indexed-repos", headers=bearer(tokens["read"])).status_code
            == 200
        )
    finally:
        process.terminate()
        process.wait(timeout=15)
        log.close()


def test_a_cli_served_app_behind_a_local_proxy_asks_for_tokens(indexed, tmp_path):
    url, folder, _tokens = indexed
    env = {"CARTOGRAPH_STORE": url, "CARTOGRAPH_DATA": str(folder / "data")}
    with serve_in_process(env, tmp_path / "api.log") as base:
        assert httpx.get(f"{base}/api/v1/indexed-repos").status_code == 200
        proxied = httpx.get(
            f"{base}/api/v1/indexed-repos", headers={"X-Forwarded-For": "203.0.113.4"}
        )
        assert proxied.status_code == 401


# ---------------------------------------------------------------- GraphQL: cost and event loop


def test_graphql_answers_are_bounded_before_anything_runs(indexed):
    _url, _folder, tokens = indexed
    app = app_for(indexed, require_tokens=True)
    headers = {**bearer(tokens["read"]), "Content-Type": "application/json"}
    nested = (
        "{ "
        + " ".join(
            f'a{n}: symbol(name: "Cart.total") {{ callers(first: 100) {{ callers(first: 100) '
            f"{{ callers(first: 100) {{ qualname }} }} }} }}"
            for n in range(5)
        )
        + " }"
    )
    answer = call(
        app, "POST", "/graphql", headers=headers, body=json.dumps({"query": nested}).encode()
    ).json()
    assert answer["data"] is None
    assert answer["errors"][0]["extensions"]["kind"] == "too_large"
    assert "at most" in answer["errors"][0]["message"]
    through_variables = 'query($n: Int!) { search(query: "x", first: $n) { nodes { callers(first: 100) { callers(first: 100) { id } } } } }'
    answer = call(app, "POST", "/graphql", headers=headers,
                  body=json.dumps({"query": through_variables, "variables": {"n": 100}}).encode()).json()  # fmt: skip
    assert answer["errors"][0]["extensions"]["kind"] == "too_large"
    fine = (
        '{ symbol(name: "Cart.total") { callers(first: 20) { callers(first: 20) { qualname } } } }'
    )
    answer = call(
        app, "POST", "/graphql", headers=headers, body=json.dumps({"query": fine}).encode()
    ).json()
    assert "errors" not in answer, answer


def test_a_slow_graphql_read_does_not_stall_other_requests(indexed):
    """Store work runs in worker threads: while one query waits on a slow read, health checks
    and other requests are answered at once."""
    app = app_for(indexed)
    real = app.state.stores.get

    class SlowRepos:
        """The repository catalogue, with a list that takes 3 s."""

        def __init__(self, repos) -> None:
            self._repos = repos

        def __getattr__(self, name):
            return getattr(self._repos, name)

        def list_repos(self):
            time.sleep(3)
            return self._repos.list_repos()

    class Slow:
        def __init__(self, store) -> None:
            self._store = store
            self.repos = SlowRepos(store.repos)

        def __getattr__(self, name):
            return getattr(self._store, name)

    app.state.stores.get = lambda: Slow(real())
    with serve_in_thread(app) as base:
        done = {}

        def slow_query() -> None:
            started = time.monotonic()
            httpx.post(f"{base}/graphql", json={"query": "{ repositories { name } }"}, timeout=30)
            done["slow"] = time.monotonic() - started

        thread = threading.Thread(target=slow_query)
        thread.start()
        time.sleep(0.5)
        for path in ("/healthz", "/api/v1/schema"):
            assert httpx.get(f"{base}{path}", timeout=10).status_code == 200
            assert thread.is_alive(), "the slow query ended before the other requests"
        thread.join()
    assert done["slow"] >= 3, done
