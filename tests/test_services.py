"""Service boundaries, on both stores: HTTP routes of FastAPI, Flask and Django with their
routers' prefixes, requests of requests/httpx/aiohttp/urllib with their URLs normalised to
path templates, and the HTTP_CALLS edge that joins a request to the route it reaches — in
another repository too — so `callers` of a handler lists the function that sends the request,
a handler reached only through its route is live, and a provider's changed route moves its
clients' edges."""

from __future__ import annotations

import difflib

import pytest
from cartograph.query import callers, dead_code, trace
from cartograph.query.services import service_map
from cartograph.resolve.http import Route, match_call, route_path, split_url
from indexing_support import write, write_tree
from services_support import http_edges, index, routes

FASTAPI = {
    "users/__init__.py": "",
    "users/routers/__init__.py": "",
    "users/main.py": (
        "from fastapi import FastAPI\n"
        "from users.routers import accounts\n"
        "from users.routers.admin import router as admin_router\n"
        "\n"
        "app = FastAPI()\n"
        'app.include_router(accounts.router, prefix="/api")\n'
        'app.include_router(admin_router, prefix="/api/admin")\n'
        "\n\n"
        '@app.get("/health")\n'
        "def health():\n"
        '    return {"ok": True}\n'
        "\n\n"
        "def metrics():\n"
        "    return {}\n"
        "\n\n"
        'app.add_api_route("/metrics", metrics, methods=["GET"])\n'
    ),
    "users/routers/accounts.py": (
        "from fastapi import APIRouter\n"
        "\n"
        'router = APIRouter(prefix="/users")\n'
        "\n\n"
        '@router.get("/{user_id}")\n'
        "def get_user(user_id: int):\n"
        '    return {"id": user_id}\n'
        "\n\n"
        '@router.post("")\n'
        "def create_user(body: dict):\n"
        "    return body\n"
        "\n\n"
        '@router.api_route("/{user_id}/avatar", methods=["PUT", "DELETE"])\n'
        "def avatar(user_id: int):\n"
        "    return None\n"
        "\n\n"
        "def unused():\n"
        "    return 1\n"
    ),
    "users/routers/admin.py": (
        "from fastapi import APIRouter\n"
        "\n"
        "router = APIRouter()\n"
        "\n\n"
        '@router.delete("/users/{user_id}")\n'
        "def purge(user_id: int):\n"
        "    return None\n"
    ),
}
FASTAPI_ROUTES = {
    "GET /health": "users.main.health",
    "GET /metrics": "users.main.metrics",
    "GET /api/users/{user_id}": "users.routers.accounts.get_user",
    "POST /api/users": "users.routers.accounts.create_user",
    "PUT /api/users/{user_id}/avatar": "users.routers.accounts.avatar",
    "DELETE /api/users/{user_id}/avatar": "users.routers.accounts.avatar",
    "DELETE /api/admin/users/{user_id}": "users.routers.admin.purge",
}

FLASK = {
    "app/__init__.py": (
        "from flask import Flask\n"
        "\n"
        "from app.api import bp\n"
        "\n\n"
        "def create_app():\n"
        "    app = Flask(__name__)\n"
        '    app.register_blueprint(bp, url_prefix="/v1")\n'
        "    return app\n"
    ),
    "app/api.py": (
        "from flask import Blueprint\n"
        "\n"
        'bp = Blueprint("api", __name__, url_prefix="/api")\n'
        "\n\n"
        '@bp.route("/items/<int:item_id>", methods=["GET", "DELETE"])\n'
        "def item(item_id):\n"
        "    return {}\n"
        "\n\n"
        '@bp.post("/items")\n'
        "def create():\n"
        "    return {}\n"
        "\n\n"
        "def ping():\n"
        "    return {}\n"
        "\n\n"
        'bp.add_url_rule("/ping", view_func=ping)\n'
    ),
}
FLASK_ROUTES = {
    # registered with a url_prefix, a blueprint takes it instead of its own
    "GET /v1/items/{item_id}": "app.api.item",
    "DELETE /v1/items/{item_id}": "app.api.item",
    "POST /v1/items": "app.api.create",
    "GET /v1/ping": "app.api.ping",
}

DJANGO = {
    "shop/__init__.py": "",
    "shop/orders/__init__.py": "",
    "shop/urls.py": (
        "from django.urls import include, path, re_path\n"
        "\n"
        "from shop import views\n"
        "\n"
        "urlpatterns = [\n"
        '    path("", views.home),\n'
        '    path("orders/", include("shop.orders.urls")),\n'
        '    re_path(r"^legacy/(?P<slug>[-\\w]+)/$", views.legacy),\n'
        '    path("about/", views.AboutView.as_view()),\n'
        "]\n"
    ),
    "shop/views.py": (
        "from django.views import View\n"
        "\n\n"
        "def home(request):\n"
        "    return None\n"
        "\n\n"
        "def legacy(request, slug):\n"
        "    return None\n"
        "\n\n"
        "def forgotten(request):\n"
        "    return None\n"
        "\n\n"
        "class AboutView(View):\n"
        "    def get(self, request):\n"
        "        return None\n"
    ),
    "shop/orders/urls.py": (
        "from django.urls import path\n"
        "\n"
        "from . import views\n"
        "\n"
        'urlpatterns = [path("<int:pk>/", views.detail, name="detail")]\n'
    ),
    "shop/orders/views.py": "def detail(request, pk):\n    return None\n",
}
DJANGO_ROUTES = {
    "ANY /": "shop.views.home",
    "ANY /orders/{pk}": "shop.orders.views.detail",
    "ANY /legacy/{slug}": "shop.views.legacy",
    "ANY /about": "shop.views.AboutView",
}

CLIENTS = {
    "client/__init__.py": "",
    "client/settings.py": (
        "import os\n\nUSERS_URL = os.environ.get('USERS_URL', 'http://users:8000')\n"
    ),
    "client/api.py": (
        "import urllib.request\n"
        "\n"
        "import aiohttp\n"
        "import httpx\n"
        "import requests\n"
        "\n"
        "from client import settings\n"
        "\n"
        'BASE = "http://users:8000/api"\n'
        "\n\n"
        "def fetch_user(user_id: int) -> dict:\n"
        '    return httpx.get(f"{BASE}/users/{user_id}").json()\n'
        "\n\n"
        "def avatar(user_id):\n"
        '    requests.put(BASE + "/users/" + str(user_id) + "/avatar?size=2")\n'
        "\n\n"
        "def legacy(user_id):\n"
        '    requests.request("DELETE", "%s/users/%d/avatar" % (BASE, user_id))\n'
        "\n\n"
        "def purge(user_id):\n"
        "    request = urllib.request.Request(\n"
        '        f"{BASE}/admin/users/{user_id}", method="DELETE"\n'
        "    )\n"
        "    return urllib.request.urlopen(request)\n"
        "\n\n"
        "def purge_inline(user_id):\n"
        '    urllib.request.urlopen(urllib.request.Request(f"{BASE}/admin/users/{user_id}", '
        'method="DELETE"))\n'
        "\n\n"
        "async def health():\n"
        '    async with aiohttp.ClientSession("http://users:8000") as session:\n'
        '        return await session.get("/health")\n'
        "\n\n"
        "def weather():\n"
        '    return requests.get("https://api.weather.example/v2/today")\n'
        "\n\n"
        "class Users:\n"
        "    def __init__(self) -> None:\n"
        "        self.http = httpx.Client(base_url=settings.USERS_URL)\n"
        "\n"
        "    def create(self, body: dict) -> dict:\n"
        '        return self.http.post("/api/users", json=body).json()\n'
        "\n"
        "    def lookup(self, user_id: int) -> dict:\n"
        '        return self.http.get(f"/api/users/{user_id}").json()\n'
        "\n\n"
        "def not_http(table: dict):\n"
        '    return table.get("/api/users")\n'
    ),
}
# (function, method, base, path) of every request, as `services` lists them
CLIENT_REQUESTS = {
    ("client.api.fetch_user", "GET", "users:8000", "/api/users/{}"),
    ("client.api.avatar", "PUT", "users:8000", "/api/users/{}/avatar"),
    ("client.api.legacy", "DELETE", "users:8000", "/api/users/{}/avatar"),
    ("client.api.purge", "DELETE", "users:8000", "/api/admin/users/{}"),
    ("client.api.purge_inline", "DELETE", "users:8000", "/api/admin/users/{}"),
    ("client.api.health", "GET", "users:8000", "/health"),
    ("client.api.weather", "GET", "api.weather.example", "/v2/today"),
    ("client.api.Users.create", "POST", "settings.USERS_URL", "/api/users"),
    ("client.api.Users.lookup", "GET", "settings.USERS_URL", "/api/users/{}"),
}
# the function sending a request → the route it reaches, and how
CLIENT_EDGES = {
    ("client.api.fetch_user", "GET /api/users/{user_id}", "http"),
    ("client.api.avatar", "PUT /api/users/{user_id}/avatar", "http"),
    ("client.api.legacy", "DELETE /api/users/{user_id}/avatar", "http"),
    ("client.api.purge", "DELETE /api/admin/users/{user_id}", "http"),
    ("client.api.purge_inline", "DELETE /api/admin/users/{user_id}", "http"),
    ("client.api.health", "GET /health", "http"),
    ("client.api.Users.create", "POST /api/users", "http"),
    ("client.api.Users.lookup", "GET /api/users/{user_id}", "http"),
}
# the two base URLs of the client, configured to the service that serves them
SERVICES_CONFIG = '[services]\n"users:8000" = "users"\n"settings.USERS_URL" = "users"\n'


@pytest.mark.parametrize(
    "tree, name, expected",
    [(FASTAPI, "users", FASTAPI_ROUTES), (FLASK, "flaskapp", FLASK_ROUTES),
     (DJANGO, "shop", DJANGO_ROUTES)],
    ids=["fastapi", "flask", "django"],
)  # fmt: skip
def test_routes_of_each_framework_with_their_prefixes(tmp_path, stores, tree, name, expected):
    store = stores.open()
    index(store, write_tree(tmp_path / name, tree), name)
    assert routes(store, name) == expected
    served = service_map(store, name, limit=100)
    assert {r.route.name for r in served.routes} == set(expected)
    assert all(r.route.kind == "route" for r in served.routes)


def test_requests_are_normalised_to_path_templates(tmp_path, stores):
    store = stores.open()
    index(store, write_tree(tmp_path / "client", CLIENTS), "client")
    found = service_map(store, "client", limit=100)
    assert {
        (r.source.qualname, r.method, r.base, r.path) for r in found.requests if r.source
    } == CLIENT_REQUESTS
    # nothing serves them yet: every one is unmatched, listed by where it goes
    assert found.unmatched_by_base == {
        "api.weather.example": 1,
        "settings.USERS_URL": 2,
        "users:8000": 6,
    }
    assert http_edges(store, "client") == set()


def test_two_services_callers_trace_dead_code(tmp_path, stores):
    store = stores.open()
    users = write_tree(tmp_path / "users", FASTAPI)
    client = write_tree(tmp_path / "client", {**CLIENTS, ".cartograph.toml": SERVICES_CONFIG})
    index(store, client, "client")  # the client first: the service's run matches it
    index(store, users, "users")
    assert http_edges(store, "client") == CLIENT_EDGES

    page = callers(store, "users.routers.accounts.get_user")
    reached = {(n.symbol.qualname, n.type, n.via, n.through, n.crosses) for n in page.items}
    assert reached == {
        ("GET /api/users/{user_id}", "ROUTES_TO", "route", "", False),
        ("client.api.fetch_user", "HTTP_CALLS", "http", "GET /api/users/{user_id}", True),
        ("client.api.Users.lookup", "HTTP_CALLS", "http", "GET /api/users/{user_id}", True),
    }
    tree = trace(store, "client.api.Users.create", direction="out", depth=3)
    assert [(s.symbol.qualname, s.depth) for s in tree.steps][:2] == [
        ("POST /api/users", 1),
        ("users.routers.accounts.create_user", 2),
    ]
    # a handler nothing calls but its route is live; the same module's unused function is not
    report = dead_code(store, "users", verdicts=["dead"])
    assert [item.symbol.qualname for item in report.items] == ["users.routers.accounts.unused"]
    unmatched = service_map(store, "client").unmatched_by_base
    assert unmatched == {"api.weather.example": 1}
    # the service's map: who calls it, by repository (each matched request once)
    assert service_map(store, "users").clients == {"client": len(CLIENT_EDGES)}
    assert service_map(store, "client").clients == {}


def test_a_changed_route_moves_its_clients_edges(tmp_path, stores):
    store = stores.open()
    users = write_tree(tmp_path / "users", FASTAPI)
    client = write_tree(tmp_path / "client", {**CLIENTS, ".cartograph.toml": SERVICES_CONFIG})
    index(store, users, "users")
    index(store, client, "client")
    assert ("client.api.health", "GET /health", "http") in http_edges(store, "client")

    # an edit of a file without routes or requests does not run the services stage
    write(users, "users/__init__.py", "# the users service\n")
    assert index(store, users, "users").routes is None
    # a body edit in the handler's file keeps the route and its clients' edges
    text = FASTAPI["users/main.py"].replace('{"ok": True}', '{"ok": False}')
    write(users, "users/main.py", text)
    index(store, users, "users")
    assert http_edges(store, "client") == CLIENT_EDGES

    # the route moves: the client's request reaches nothing now, the others stay
    write(users, "users/main.py", text.replace('"/health"', '"/healthz"'))
    index(store, users, "users")
    assert "GET /healthz" in routes(store, "users")
    assert http_edges(store, "client") == CLIENT_EDGES - {
        ("client.api.health", "GET /health", "http")
    }
    # and back: the edge is found again, from the provider's run alone
    write(users, "users/main.py", text)
    index(store, users, "users")
    assert http_edges(store, "client") == CLIENT_EDGES
    if stores.kind == "neo4j":  # BM25's table sizes, kept per file and route set, stay exact
        from cartograph.store.neo4j.graph import REPO_SEARCH_SIZE

        for repo in ("users", "client"):
            kept = store.graph.read("MATCH (z:SearchSize {repo: $repo}) RETURN z", repo=repo)
            counted = store.graph.read(REPO_SEARCH_SIZE, repo=repo)[0]
            assert dict(kept[0]["z"]) == {"repo": repo, **dict(counted)}


def test_django_views_reached_only_through_urls_are_live(tmp_path, stores):
    store = stores.open()
    index(store, write_tree(tmp_path / "shop", DJANGO), "shop")
    report = dead_code(store, "shop", verdicts=["dead"])
    assert [item.symbol.qualname for item in report.items] == ["shop.views.forgotten"]


# ------------------------------------------------------------------ the rules, one by one
def test_path_templates_of_each_syntax():
    assert route_path("flask", "/items/<int:item_id>/<name>") == "/items/{item_id}/{name}"
    assert route_path("fastapi", "/files/{path:path}") == "/files/{path}"
    assert route_path("django", "orders/<int:pk>/") == "orders/{pk}/"
    assert route_path("django-re", r"^legacy/(?P<slug>[-\w]+)/$") == "legacy/{slug}/"
    assert route_path("express", "/users/:id/posts/:post?") == "/users/{id}/posts/{post}"
    assert route_path("express", "/:name.:format/:from-:to") == "/{name}.{format}/{from}-{to}"
    # Express 5: a named wildcard, optional groups
    assert route_path("express", "/files/*path") == "/files/{path}"
    assert route_path("express", "/user/:id{/:op}") == "/user/{id}/{op}"
    assert split_url(["http://users:8000/api/users/", ["v", None, "id"], "?x=1"]) == (
        "users:8000",
        "/api/users/{}",
    )
    assert split_url([["v", None, "settings.API"], "/users/"]) == ("settings.API", "/users")
    # a host or port given by a variable stays in the base
    host_and_port = ["http://", ["v", None, "host"], ":", ["v", None, "port"], "/healthz"]
    assert split_url(host_and_port) == ("{}:{}", "/healthz")
    assert split_url(["https://api.example:8443"]) == ("api.example:8443", "/")
    assert split_url(["/relative/", ["v", None, "x"], "#top"]) == ("", "/relative/{}")


def test_matching_never_guesses():
    known = [
        Route("a", "a:x.py#GET /users/{id}", "GET", "/users/{id}"),
        Route("a", "a:x.py#GET /users/me", "GET", "/users/me"),
        Route("b", "b:y.py#GET /users/{uid}", "GET", "/users/{uid}"),
        Route("b", "b:y.py#ANY /files/{name}", "ANY", "/files/{name}"),
    ]
    # a literal segment is the better fit, in the configured service
    found = match_call("GET", "api", "/users/me", known, "c", {"api": "a"})
    assert found is not None and found.route.path == "/users/me" and found.via == "http"
    # two services fit as well and the base says nothing: no edge
    assert match_call("GET", "somewhere", "/users/{}", known, "c", {}) is None
    # a hole matches a parameter only: /users/me is not a guess for /users/{}
    found = match_call("GET", "api", "/users/{}", known, "c", {"api": "a"})
    assert found is not None and found.route.path == "/users/{id}"
    # a route of every method; the method must match otherwise
    assert match_call("DELETE", "b", "/files/{}", known, "c", {"b": "b"}) is not None
    assert match_call("POST", "api", "/users/me", known, "c", {"api": "a"}) is None
    # a prefix the base URL adds: matched as a prefix, less sure
    found = match_call("GET", "gw", "/gateway/v1/files/{}", known, "c", {"gw": "b"})
    assert found is not None and found.via == "http_prefix" and found.confidence == 0.6
    # a base nobody configured: only a route no other service shares
    found = match_call("PUT", "unknown", "/files/{}", known, "c", {})
    assert found is not None and found.via == "http_base"


def test_impact_of_a_moved_route_lists_its_clients_as_breaking(tmp_path, stores):
    from cartograph.impact.report import impact

    store = stores.open()
    users = write_tree(tmp_path / "users", FASTAPI)
    client = write_tree(tmp_path / "client", {**CLIENTS, ".cartograph.toml": SERVICES_CONFIG})
    index(store, users, "users")
    index(store, client, "client")
    old = FASTAPI["users/routers/accounts.py"]
    new = old.replace('@router.get("/{user_id}")', '@router.get("/by-id/{user_id}")')
    answer = impact(store, "users", patch=_patch("users/routers/accounts.py", old, new))
    assert answer.verdict == "breaking"
    broken = {(b.caller.qualname, b.target_qualname, b.edge, b.crosses) for b in answer.will_break}
    assert broken == {
        ("client.api.fetch_user", "GET /api/users/{user_id}", "HTTP_CALLS", True),
        ("client.api.Users.lookup", "GET /api/users/{user_id}", "HTTP_CALLS", True),
    }
    # a body edit moves no route: nothing breaks
    body = old.replace('return {"id": user_id}', 'return {"id": int(user_id)}')
    patch = _patch("users/routers/accounts.py", old, body)
    assert impact(store, "users", patch=patch).will_break == []


def _patch(path: str, old: str, new: str) -> str:
    """A unified diff of one file, as `git diff` writes it."""
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{path}", f"b/{path}"
        )
    )


def test_a_view_renamed_away_takes_its_route_with_it(tmp_path, stores):
    store = stores.open()
    shop = write_tree(tmp_path / "shop", DJANGO)
    index(store, shop, "shop")
    # only the view's module changes: the URL module is re-resolved as its dependent
    write(shop, "shop/orders/views.py", "def show(request, pk):\n    return None\n")
    index(store, shop, "shop")
    assert routes(store, "shop") == {
        k: v for k, v in DJANGO_ROUTES.items() if k != "ANY /orders/{pk}"
    }
    write(shop, "shop/orders/views.py", DJANGO["shop/orders/views.py"])
    index(store, shop, "shop")
    assert routes(store, "shop") == DJANGO_ROUTES


def test_removing_a_service_unmatches_the_requests_that_reached_it(tmp_path, stores):
    from cartograph.tracking import add_tracked, remove_tracked

    store = stores.open()
    client = write_tree(tmp_path / "client", {**CLIENTS, ".cartograph.toml": SERVICES_CONFIG})
    add_tracked(store, "users", "file:///nowhere", "main")
    index(store, write_tree(tmp_path / "users", FASTAPI), "users")
    index(store, client, "client")
    assert http_edges(store, "client") == CLIENT_EDGES
    remove_tracked(store, "users", tmp_path / "data", keep_graph=False)
    # no edge into routes that are gone, and every request is listed as unmatched again
    assert http_edges(store, "client") == set()
    assert sum(service_map(store, "client").unmatched_by_base.values()) == len(CLIENT_REQUESTS)


def test_a_base_url_held_by_a_settings_object_is_followed(tmp_path, stores):
    """`settings.users_url` of a settings class (pydantic's BaseSettings, or any class whose
    attribute holds the URL): the base is the URL's host, not the attribute's name."""
    store = stores.open()
    tree = {
        "shop/__init__.py": "",
        "shop/config.py": (
            "from pydantic_settings import BaseSettings\n"
            "\n\n"
            "class Settings(BaseSettings):\n"
            '    users_url: str = "http://users:8000/api"\n'
            "\n\n"
            "settings = Settings()\n"
        ),
        "shop/profiles.py": (
            "import httpx\n"
            "\n"
            "from shop.config import Settings, settings\n"
            "\n\n"
            "def profile(user_id: int) -> dict:\n"
            '    return httpx.get(f"{settings.users_url}/users/{user_id}").json()\n'
            "\n\n"
            "def avatar(user_id: int):\n"
            '    return httpx.put(Settings.users_url + f"/users/{user_id}/avatar")\n'
        ),
        ".cartograph.toml": '[services]\n"users:8000" = "users"\n',
    }
    index(store, write_tree(tmp_path / "shop", tree), "shop")
    index(store, write_tree(tmp_path / "users", FASTAPI), "users")
    found = service_map(store, "shop")
    assert {(r.source.qualname, r.base, r.path) for r in found.requests if r.source} == {
        ("shop.profiles.profile", "users:8000", "/api/users/{}"),
        ("shop.profiles.avatar", "users:8000", "/api/users/{}/avatar"),
    }
    assert http_edges(store, "shop") == {
        ("shop.profiles.profile", "GET /api/users/{user_id}", "http"),
        ("shop.profiles.avatar", "PUT /api/users/{user_id}/avatar", "http"),
    }


STARLETTE = {
    "web/__init__.py": "",
    "web/views.py": (
        "async def home(request):\n"
        "    return None\n"
        "\n\n"
        "async def user(request):\n"
        "    return None\n"
        "\n\n"
        "async def feed(websocket):\n"
        "    return None\n"
    ),
    "web/api.py": (
        "from starlette.routing import Mount, Route\n"
        "\n"
        "from web.views import user\n"
        "\n"
        "routes = [\n"
        '    Route("/users/{user_id:int}", user, methods=["GET", "DELETE"]),\n'
        "]\n"
    ),
    "web/app.py": (
        "from starlette.applications import Starlette\n"
        "from starlette.routing import Mount, Route, WebSocketRoute\n"
        "\n"
        "from web import api\n"
        "from web.views import feed, home\n"
        "\n"
        "app = Starlette(\n"
        "    routes=[\n"
        '        Route("/", home),\n'
        '        Mount("/api", routes=api.routes),\n'
        '        WebSocketRoute("/feed", feed),\n'
        "    ]\n"
        ")\n"
    ),
}


def test_a_starlette_route_table_with_mounts(tmp_path, stores):
    store = stores.open()
    web = write_tree(tmp_path / "web", STARLETTE)
    index(store, web, "web")
    expected = {
        "GET /": "web.views.home",
        "GET /api/users/{user_id}": "web.views.user",
        "DELETE /api/users/{user_id}": "web.views.user",
        "WS /feed": "web.views.feed",
    }
    assert routes(store, "web") == expected
    # the table's module changes alone: the application's routes follow
    write(web, "web/api.py", STARLETTE["web/api.py"].replace('"/users/', '"/people/'))
    index(store, web, "web")
    assert set(routes(store, "web")) == {
        "GET /",
        "GET /api/people/{user_id}",
        "DELETE /api/people/{user_id}",
        "WS /feed",
    }


# a client OpenAPI Generator wrote (python, version 7 and the older call_api), the code using
# it, and the service it was generated from
GENERATED_CLIENT = {
    "petstore_client/__init__.py": "",
    "petstore_client/api_client.py": """
        class ApiClient:
            def __init__(self, configuration=None):
                self.configuration = configuration

            @classmethod
            def get_default(cls):
                return cls()

            def param_serialize(self, method, resource_path, path_params=None, body=None):
                return method, resource_path, path_params, body

            def call_api(self, *args, **kwargs):
                return args, kwargs
    """,
    "petstore_client/api/__init__.py": "",
    "petstore_client/api/pet_api.py": """
        from petstore_client.api_client import ApiClient


        class PetApi:
            def __init__(self, api_client=None) -> None:
                if api_client is None:
                    api_client = ApiClient.get_default()
                self.api_client = api_client

            def get_pet_by_id(self, pet_id: int):
                _param = self._get_pet_by_id_serialize(pet_id=pet_id)
                return self.api_client.call_api(*_param)

            def _get_pet_by_id_serialize(self, pet_id):
                _path_params = {"petId": pet_id}
                return self.api_client.param_serialize(
                    method="GET",
                    resource_path="/pet/{petId}",
                    path_params=_path_params,
                )

            def add_pet(self, pet):
                return self.api_client.call_api("/pet", "POST", body=pet)

            def delete_pet(self, pet_id):
                return self.api_client.call_api("DELETE", "/pet/{petId}")
    """,
    "shop/views.py": """
        from petstore_client.api.pet_api import PetApi


        def show_pet(pet_id):
            return PetApi().get_pet_by_id(pet_id)


        def lookup(table, key):
            return table.call_api("/not/a/request", "GET")
    """,
    ".cartograph.toml": '[services]\n"openapi:petstore_client" = "petstore"\n',
}
PETSTORE = {
    "petstore/main.py": """
        from fastapi import FastAPI

        app = FastAPI()


        @app.get("/pet/{pet_id}")
        def read_pet(pet_id: int):
            return {"id": pet_id}


        @app.post("/pet")
        def create_pet(pet: dict):
            return pet


        @app.delete("/pet/{pet_id}")
        def remove_pet(pet_id: int):
            return None
    """,
}


def test_a_generated_openapi_client_reaches_the_service_it_was_generated_from(tmp_path, stores):
    store = stores.open()
    index(store, write_tree(tmp_path / "shopclient", GENERATED_CLIENT), "shopclient")
    found = service_map(store, "shopclient", limit=100)
    api = "petstore_client.api.pet_api.PetApi."
    assert {(r.source.qualname, r.method, r.base, r.path) for r in found.requests} == {
        (api + "_get_pet_by_id_serialize", "GET", "openapi:petstore_client", "/pet/{}"),
        (api + "add_pet", "POST", "openapi:petstore_client", "/pet"),
        (api + "delete_pet", "DELETE", "openapi:petstore_client", "/pet/{}"),
    }  # `table.call_api(...)` of shop.views is no generated client's: no request
    index(store, write_tree(tmp_path / "petstore", PETSTORE), "petstore")
    assert http_edges(store, "shopclient") == {
        (api + "_get_pet_by_id_serialize", "GET /pet/{pet_id}", "http"),
        (api + "add_pet", "POST /pet", "http"),
        (api + "delete_pet", "DELETE /pet/{pet_id}", "http"),
    }
    # the code using the client reaches the handler: through the generated method's calls
    tree = trace(store, "petstore.main.read_pet", direction="in", depth=5)
    assert [(s.symbol.qualname, s.depth) for s in tree.steps] == [
        ("GET /pet/{pet_id}", 1),
        (api + "_get_pet_by_id_serialize", 2),
        (api + "get_pet_by_id", 3),
        ("shop.views.show_pet", 4),
    ]


def test_a_session_that_edits_a_service_or_its_client_still_sees_the_http_edges(tmp_path, stores):
    """An agent session's view (its overlay) of a routes file it edited keeps the routes there
    and the requests that reach them; a route the edit moves loses its clients in that view
    (they would break), and a request the session writes reaches its route at once."""
    from cartograph.agents.overlay import overlay_edit, session_view
    from cartograph.agents.sessions import start_session

    store = stores.open()
    users = write_tree(tmp_path / "users", FASTAPI)
    client = write_tree(tmp_path / "client", {**CLIENTS, ".cartograph.toml": SERVICES_CONFIG})
    index(store, users, "users")
    index(store, client, "client")
    handler = "users.routers.accounts.get_user"
    expected = {
        ("GET /api/users/{user_id}", "ROUTES_TO"),
        ("client.api.fetch_user", "HTTP_CALLS"),
        ("client.api.Users.lookup", "HTTP_CALLS"),
    }

    def callers_seen(view) -> set[tuple[str, str]]:
        return {(n.symbol.qualname, n.type) for n in callers(view, handler).items}

    assert callers_seen(store) == expected
    session = start_session(store, "agent", "users: tidy the accounts router")
    accounts = FASTAPI["users/routers/accounts.py"]
    body_edit = accounts.replace('return {"id": user_id}', 'return {"id": int(user_id)}')
    overlay_edit(store, session.id, "users", "users/routers/accounts.py", body_edit)
    view = session_view(store, session.id)
    assert callers_seen(view) == expected
    served = {r.route.name: r.requests for r in service_map(view, "users", limit=100).routes}
    assert served["GET /api/users/{user_id}"] == 2

    # the route moves in the session's edit: no request reaches it any more (in that view only)
    moved = body_edit.replace('@router.get("/{user_id}")', '@router.get("/by-id/{user_id}")')
    overlay_edit(store, session.id, "users", "users/routers/accounts.py", moved)
    view = session_view(store, session.id)
    assert callers_seen(view) == {("GET /api/users/by-id/{user_id}", "ROUTES_TO")}
    assert callers_seen(store) == expected

    # a request the session adds to the client reaches its route in the session's view
    added = CLIENTS["client/api.py"] + (
        '\n\ndef create_again(body):\n    return httpx.post(f"{BASE}/users", json=body)\n'
    )
    overlay_edit(store, session.id, "client", "client/api.py", added)
    view = session_view(store, session.id)
    create = {
        (n.symbol.qualname, n.type)
        for n in callers(view, "users.routers.accounts.create_user").items
    }
    assert ("client.api.create_again", "HTTP_CALLS") in create
    assert ("client.api.Users.create", "HTTP_CALLS") in create


@pytest.mark.parametrize(
    "tree",
    [FASTAPI, FLASK, DJANGO, {**CLIENTS, ".cartograph.toml": SERVICES_CONFIG}, STARLETTE],
    ids=["fastapi", "flask", "django", "clients", "starlette"],
)
def test_a_files_http_rows_found_alone_are_those_of_its_whole_resolution(tmp_path, tree):
    # impact asks for the HTTP rows of a change's files alone (a tenth of resolving them)
    from cartograph.index.whatif import Versions
    from cartograph.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 'graph.db'}")
    root = write_tree(tmp_path / "repo", tree)
    index(store, root, "repo")
    paths = {p for p in tree if p.endswith(".py")}
    versions = Versions(store, "repo", {p: (root / p).read_bytes() for p in paths})
    whole = {path: resolution.http for path, resolution in versions.resolve(paths).items()}
    assert sum(len(rows) for rows in whole.values()) >= 2
    assert versions.http_rows(paths) == whole
