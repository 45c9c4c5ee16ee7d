"""OpenAPI documents as services, on both stores: a repository's `openapi.yaml` (or Swagger 2
`swagger.json`) contributes a route per operation under its servers' base path, so the
requests of another repository reach a service whose code is not read; a route the code
declares too is the code's, once; an operation removed from the document takes its clients'
edges with it."""

from __future__ import annotations

from cartograph.languages import language_of
from cartograph.query.services import service_map
from indexing_support import write, write_tree
from services_support import http_edges, index, located, routes

BILLING = {  # a service whose code is not read (Go, say): its document is what is known
    "main.go": "package main\n\nfunc main() {}\n",
    "api/openapi.yaml": (
        "openapi: 3.0.3\n"
        "info:\n"
        "  title: Billing\n"
        "  version: '1'\n"
        "servers:\n"
        "  - url: https://billing.internal/v2\n"
        "paths:\n"
        "  /invoices:\n"
        "    get:\n"
        "      operationId: listInvoices\n"
        "    post:\n"
        "      operationId: createInvoice\n"
        "  /invoices/{invoiceId}:\n"
        "    parameters:\n"
        "      - name: invoiceId\n"
        "        in: path\n"
        "    get:\n"
        "      operationId: getInvoice\n"
        "    delete:\n"
        "      operationId: voidInvoice\n"
    ),
    "legacy/swagger.json": (
        '{"swagger": "2.0", "basePath": "/v1",\n'
        ' "paths": {"/refunds/{id}": {"put": {"operationId": "refund"}}}}\n'
    ),
    "config/settings.yaml": "paths:\n  /not-an-api:\n    get: {}\n",
}
BILLING_ROUTES = {
    "GET /v2/invoices",
    "POST /v2/invoices",
    "GET /v2/invoices/{invoiceId}",
    "DELETE /v2/invoices/{invoiceId}",
    "PUT /v1/refunds/{id}",
}
SHOP = {
    "shop/__init__.py": "",
    "shop/billing.py": (
        "import httpx\n"
        "\n"
        'BILLING = "https://billing.internal/v2"\n'
        "\n\n"
        "def invoice(invoice_id: str) -> dict:\n"
        '    return httpx.get(f"{BILLING}/invoices/{invoice_id}").json()\n'
        "\n\n"
        "def void(invoice_id: str) -> None:\n"
        '    httpx.delete(f"{BILLING}/invoices/{invoice_id}")\n'
    ),
    ".cartograph.toml": '[services]\n"billing.internal" = "billing"\n',
}
SHOP_EDGES = {
    ("shop/billing.py#shop.billing.invoice", "GET /v2/invoices/{invoiceId}", "http"),
    ("shop/billing.py#shop.billing.void", "DELETE /v2/invoices/{invoiceId}", "http"),
}

# a FastAPI service that also commits the document its framework generates
USERS = {
    "users/__init__.py": "",
    "users/main.py": (
        "from fastapi import FastAPI\n"
        "\n"
        "app = FastAPI()\n"
        "\n\n"
        '@app.get("/users/{user_id}")\n'
        "def get_user(user_id: int):\n"
        '    return {"id": user_id}\n'
    ),
    "openapi.json": (
        '{"openapi": "3.1.0", "info": {"title": "users", "version": "1"},\n'
        ' "paths": {"/users/{user_id}": {"get": {"operationId": "get_user"}},\n'
        '           "/users/{user_id}/avatar": {"get": {}}}}\n'
    ),
}


def _located(store, sid: str) -> str:
    return located(sid)


def test_documents_are_known_by_their_names():
    assert language_of("api/openapi.yaml") == "openapi"
    assert language_of("docs/users.openapi.yml") == "openapi"
    assert language_of("Swagger.json") == "openapi"
    assert language_of("config/settings.yaml") is None
    assert language_of("openapi.py") == "python"


def test_a_document_s_operations_are_routes_its_clients_reach(tmp_path, stores):
    store = stores.open()
    billing = write_tree(tmp_path / "billing", BILLING)
    index(store, billing, "billing")
    served = service_map(store, "billing", limit=100)
    assert {r.route.name for r in served.routes} == BILLING_ROUTES
    assert routes(store, "billing") == {}  # no handler: a document names no code
    index(store, write_tree(tmp_path / "shop", SHOP), "shop")
    assert http_edges(store, "shop", _located) == SHOP_EDGES

    # the operation leaves the document: the request reaches nothing, the other stays
    text = BILLING["api/openapi.yaml"].replace("    delete:\n      operationId: voidInvoice\n", "")
    write(billing, "api/openapi.yaml", text)
    index(store, billing, "billing")
    assert http_edges(store, "shop", _located) == {
        ("shop/billing.py#shop.billing.invoice", "GET /v2/invoices/{invoiceId}", "http")
    }


def test_a_route_the_code_declares_too_is_the_code_s(tmp_path, stores):
    store = stores.open()
    index(store, write_tree(tmp_path / "users", USERS), "users")
    served = {(r.route.name, r.route.path) for r in service_map(store, "users").routes}
    assert served == {
        ("GET /users/{user_id}", "users/main.py"),
        ("GET /users/{user_id}/avatar", "openapi.json"),
    }
    assert routes(store, "users") == {"GET /users/{user_id}": "users.main.get_user"}
