"""Service boundaries in TypeScript and JavaScript, on both stores: Express, Koa and NestJS
routes with their routers' prefixes, requests of fetch and axios with their URLs normalised
to path templates, and the HTTP_CALLS edges that join a web front end's requests to the
routes of the service it calls, so `callers` of a handler lists the function that sends the
request and a controller method reached only through its route is live."""

from __future__ import annotations

from cartograph.query import callers, dead_code
from cartograph.query.services import service_map
from indexing_support import write, write_tree
from services_support import http_edges, index, located, routes

EXPRESS = {
    "package.json": '{"name": "api", "dependencies": {"express": "^4"}}\n',
    "app.js": (
        "const express = require('express');\n"
        "const users = require('./routes/users');\n"
        "const orders = require('./routes/orders');\n"
        "\n"
        "const app = express();\n"
        "app.use(express.json());\n"
        "app.use('/api/users', users);\n"
        "app.use('/api', orders.router);\n"
        "app.get('/health', (req, res) => res.send('ok'));\n"
        "\n"
        "function metrics(req, res) {\n"
        "  res.json({});\n"
        "}\n"
        "app.get('/metrics', metrics);\n"
        "app.get('title');  // a setting, not a route\n"
        "module.exports = app;\n"
    ),
    "routes/users.js": (
        "const express = require('express');\n"
        "const { auth } = require('../auth');\n"
        "const router = express.Router();\n"
        "\n"
        "function show(req, res) {\n"
        "  res.json({ id: req.params.id });\n"
        "}\n"
        "function remove(req, res) {\n"
        "  res.status(204).end();\n"
        "}\n"
        "function unused() {\n"
        "  return 1;\n"
        "}\n"
        "router.get('/:id', auth, show);\n"
        "router.delete('/:id', auth, remove);\n"
        "router.post('/', (req, res) => res.json(req.body));\n"
        "module.exports = router;\n"
    ),
    "routes/orders.js": (
        "const { Router } = require('express');\n"
        "const router = Router();\n"
        "\n"
        "function list(req, res) {\n"
        "  res.json([]);\n"
        "}\n"
        "router.all('/orders', list);\n"
        "exports.router = router;\n"
    ),
    "auth.js": "exports.auth = function auth(req, res, next) {\n  next();\n};\n",
}
EXPRESS_ROUTES = {
    "GET /health": "app.js#app",  # a handler written in place: the scope it belongs to
    "GET /metrics": "app.js#metrics",
    "GET /api/users/{id}": "routes/users.js#show",
    "DELETE /api/users/{id}": "routes/users.js#remove",
    "POST /api/users": "routes/users.js#routes/users",
    "ANY /api/orders": "routes/orders.js#list",
}

KOA = {
    "src/server.ts": (
        "import Koa from 'koa';\n"
        "import Router from '@koa/router';\n"
        "import items from './items';\n"
        "\n"
        "const app = new Koa();\n"
        "const api = new Router({ prefix: '/api' });\n"
        "api.use('/v1', items.routes());\n"
        "app.use(api.routes());\n"
    ),
    "src/items.ts": (
        "import Router from '@koa/router';\n"
        "\n"
        "const router = new Router({ prefix: '/items' });\n"
        "\n"
        "export async function getItem(ctx: any) {\n"
        "  ctx.body = {};\n"
        "}\n"
        "export async function dropItem(ctx: any) {\n"
        "  ctx.status = 204;\n"
        "}\n"
        "router.get('/:itemId', getItem);\n"
        "router.del('/:itemId', dropItem);\n"
        "export default router;\n"
    ),
}
KOA_ROUTES = {
    "GET /api/v1/items/{itemId}": "src/items.ts#getItem",
    "DELETE /api/v1/items/{itemId}": "src/items.ts#dropItem",
}

NEST = {
    "src/main.ts": (
        "import { NestFactory } from '@nestjs/core';\n"
        "import { AppModule } from './app.module';\n"
        "\n"
        "async function bootstrap() {\n"
        "  const app = await NestFactory.create(AppModule);\n"
        "  app.setGlobalPrefix('api');\n"
        "  await app.listen(3000);\n"
        "}\n"
        "bootstrap();\n"
    ),
    "src/app.module.ts": "export class AppModule {}\n",
    "src/cats.controller.ts": (
        "import { Controller, Get, Post, Delete, Body, Param } from '@nestjs/common';\n"
        "\n"
        "@Controller('cats')\n"
        "export class CatsController {\n"
        "  @Get()\n"
        "  findAll() {\n"
        "    return [];\n"
        "  }\n"
        "\n"
        "  @Get(':id')\n"
        "  findOne(@Param('id') id: string) {\n"
        "    return { id };\n"
        "  }\n"
        "\n"
        "  @Post()\n"
        "  create(@Body() body: object) {\n"
        "    return body;\n"
        "  }\n"
        "\n"
        "  @Delete(':id/toys/:toy')\n"
        "  dropToy(@Param('id') id: string) {\n"
        "    return id;\n"
        "  }\n"
        "\n"
        "  helper() {\n"
        "    return 0;\n"
        "  }\n"
        "}\n"
    ),
    "src/health.controller.ts": (
        "import { Controller, Get } from '@nestjs/common';\n"
        "\n"
        "@Controller({ path: 'health' })\n"
        "export class HealthController {\n"
        "  @Get('live')\n"
        "  live() {\n"
        "    return 'ok';\n"
        "  }\n"
        "}\n"
    ),
}
NEST_ROUTES = {  # every controller under the application's global prefix
    "GET /api/cats": "CatsController.findAll",
    "GET /api/cats/{id}": "CatsController.findOne",
    "POST /api/cats": "CatsController.create",
    "DELETE /api/cats/{id}/toys/{toy}": "CatsController.dropToy",
    "GET /api/health/live": "HealthController.live",
}

WEB = {
    "package.json": '{"name": "web", "dependencies": {"axios": "^1"}}\n',
    "src/config.ts": "export const API = 'http://api:3000/api';\n",
    "src/users.ts": (
        "import axios from 'axios';\n"
        "import { API } from './config';\n"
        "\n"
        "const http = axios.create({ baseURL: process.env.API_URL });\n"
        "\n"
        "export async function loadUser(id: string) {\n"
        "  const response = await fetch(`${API}/users/${id}?full=1`);\n"
        "  return response.json();\n"
        "}\n"
        "\n"
        "export function deleteUser(id: string) {\n"
        "  return axios.delete(API + '/users/' + id);\n"
        "}\n"
        "\n"
        "export function createUser(body: object) {\n"
        "  return http.post('/api/users', body);\n"
        "}\n"
        "\n"
        "export function orders() {\n"
        "  return axios({ method: 'put', url: `${API}/orders` });\n"
        "}\n"
        "\n"
        "export function weather() {\n"
        "  return window.fetch('https://api.weather.example/v2/today');\n"
        "}\n"
        "\n"
        "export function notHttp(cache: Map<string, number>) {\n"
        "  cache.delete('/api/users');\n"
        "  return cache.get('/api/users');\n"
        "}\n"
    ),
    "src/api-client.ts": (
        "import Axios from 'axios';\n"
        "\n"
        "export const api = Axios.create({ baseURL: import.meta.env.VITE_API_URL });\n"
    ),
    "src/teams.ts": (
        "import { api } from './api-client';\n"
        "\n"
        "export function getTeams() {\n"
        "  return api.get('/teams');\n"
        "}\n"
    ),
    "src/health.ts": (
        "import axios from 'axios';\n"
        "\n"
        "export class Health {\n"
        "  private client = axios.create({ baseURL: 'http://api:3000' });\n"
        "\n"
        "  check() {\n"
        "    return this.client.get('/health');\n"
        "  }\n"
        "\n"
        "  save(body: object) {\n"
        "    return fetch('/api/users', { method: 'POST', body: JSON.stringify(body) });\n"
        "  }\n"
        "}\n"
        "\n"
        "function fetchLocal(fetch: (url: string) => void) {\n"
        "  fetch('/api/users');  // a parameter named fetch: not the runtime's\n"
        "}\n"
    ),
}
# (function, method, base, path) of every request, as `services` lists them
WEB_REQUESTS = {
    ("src/users.ts#loadUser", "GET", "api:3000", "/api/users/{}"),
    ("src/users.ts#deleteUser", "DELETE", "api:3000", "/api/users/{}"),
    ("src/users.ts#createUser", "POST", "env:API_URL", "/api/users"),
    ("src/users.ts#orders", "PUT", "api:3000", "/api/orders"),
    ("src/users.ts#weather", "GET", "api.weather.example", "/v2/today"),
    ("src/health.ts#Health.check", "GET", "api:3000", "/health"),
    ("src/health.ts#Health.save", "POST", "", "/api/users"),
    # an instance imported from the module that made it: its base URL comes along
    ("src/teams.ts#getTeams", "GET", "env:VITE_API_URL", "/teams"),
}
WEB_EDGES = {
    ("src/users.ts#loadUser", "GET /api/users/{id}", "http"),
    ("src/users.ts#deleteUser", "DELETE /api/users/{id}", "http"),
    ("src/users.ts#createUser", "POST /api/users", "http"),
    ("src/users.ts#orders", "ANY /api/orders", "http"),
    ("src/health.ts#Health.check", "GET /health", "http"),
    ("src/health.ts#Health.save", "POST /api/users", "http"),
}
# the front end's hosts and its relative URLs ("/") are the api's
WEB_CONFIG = '[services]\n"api:3000" = "api"\n"env:API_URL" = "api"\n"/" = "api"\n'


def _located(store, sid: str) -> str:
    return located(sid)


def test_routes_of_express_koa_and_nest_with_their_prefixes(tmp_path, stores):
    store = stores.open()
    for name, tree, expected, naming in [
        ("api", EXPRESS, EXPRESS_ROUTES, _located),
        ("koa", KOA, KOA_ROUTES, _located),
        ("nest", NEST, NEST_ROUTES, None),
    ]:
        index(store, write_tree(tmp_path / name, tree), name)
        found = routes(store, name, naming) if naming else routes(store, name)
        assert found == expected, name
        assert {r.route.name for r in service_map(store, name, limit=100).routes} == set(expected)


def test_fetch_and_axios_requests_are_normalised(tmp_path, stores):
    store = stores.open()
    index(store, write_tree(tmp_path / "web", WEB), "web")
    found = service_map(store, "web", limit=100)
    listed = {(located(r.source.id), r.method, r.base, r.path) for r in found.requests if r.source}
    assert listed == WEB_REQUESTS
    # without a configuration a relative URL is the front end's own: nothing serves it
    assert http_edges(store, "web") == set()


def test_a_front_end_and_its_api_callers_and_dead_code(tmp_path, stores):
    store = stores.open()
    index(store, write_tree(tmp_path / "web", {**WEB, ".cartograph.toml": WEB_CONFIG}), "web")
    api = write_tree(tmp_path / "api", EXPRESS)
    index(store, api, "api")  # the provider's run matches the front end's stored requests
    assert http_edges(store, "web", _located) == WEB_EDGES

    page = callers(store, "api:routes/users.js#show")
    reached = {(located(n.symbol.id), n.type, n.through, n.crosses) for n in page.items}
    assert ("src/users.ts#loadUser", "HTTP_CALLS", "GET /api/users/{id}", True) in reached
    assert ("routes/users.js#GET /api/users/{id}", "ROUTES_TO", "", False) in reached

    dead = {located(i.symbol.id) for i in dead_code(store, "api", verdicts=["dead"]).items}
    assert "routes/users.js#unused" in dead
    assert not dead & {"routes/users.js#show", "routes/users.js#remove", "app.js#metrics"}

    # the route moves: its clients' edges go, the others stay
    moved = EXPRESS["routes/users.js"].replace("router.get('/:id'", "router.get('/by-id/:id'")
    write(api, "routes/users.js", moved)
    index(store, api, "api")
    assert http_edges(store, "web", _located) == WEB_EDGES - {
        ("src/users.ts#loadUser", "GET /api/users/{id}", "http")
    }


def test_nest_controller_methods_reached_only_through_routes_are_live(tmp_path, stores):
    store = stores.open()
    index(store, write_tree(tmp_path / "nest", NEST), "nest")
    dead = {i.symbol.qualname for i in dead_code(store, "nest", verdicts=["dead"]).items}
    assert "CatsController.helper" in dead
    assert not dead & set(NEST_ROUTES.values())


# a client typescript-fetch (OpenAPI Generator) wrote, the code using it, and a class of the
# same shape that is no generated client's
GENERATED_TS_CLIENT = {
    ".cartograph.toml": '[services]\n"openapi:shop-web" = "petstore"\n',
    "package.json": '{"name": "shop-web", "version": "1.0.0", "dependencies": {}}\n',
    "src/app/pets.ts": 'import { PetApi } from \'../generated/apis/PetApi\';\n\nconst api = new PetApi();\n\nexport async function showPet(id: number) {\n    return api.getPetById({ petId: id });\n}\n\nclass Cache {\n    request(options: { path: string; method: string }) { return options; }\n    load() { return this.request({ path: "/pet/{petId}", method: "GET" }); }\n}\n',
    "src/generated/apis/PetApi.ts": "import * as runtime from '../runtime';\n\nexport class PetApi extends runtime.BaseAPI {\n    async getPetByIdRaw(requestParameters: { petId: number }, initOverrides?: RequestInit): Promise<Response> {\n        const headerParameters: Record<string, string> = {};\n        const response = await this.request({\n            path: `/pet/{petId}`.replace(`{${\"petId\"}}`, encodeURIComponent(String(requestParameters['petId']))),\n            method: 'GET',\n            headers: headerParameters,\n        }, initOverrides);\n        return response;\n    }\n\n    async getPetById(requestParameters: { petId: number }): Promise<unknown> {\n        const response = await this.getPetByIdRaw(requestParameters);\n        return await response.json();\n    }\n\n    async addPetRaw(body: unknown): Promise<Response> {\n        return await this.request({\n            path: `/pet`,\n            method: 'POST',\n            headers: {},\n            body: body,\n        });\n    }\n}\n",
    "src/generated/runtime.ts": 'export interface RequestOpts {\n    path: string;\n    method: string;\n    headers: Record<string, string>;\n    query?: Record<string, string>;\n    body?: unknown;\n}\n\nexport class BaseAPI {\n    constructor(protected basePath: string = "http://petstore.swagger.io/v2") {}\n\n    protected async request(context: RequestOpts, initOverrides?: RequestInit): Promise<Response> {\n        return fetch(this.basePath + context.path, { method: context.method, ...initOverrides });\n    }\n}\n',
}


def test_a_generated_typescript_client_reaches_the_service_it_was_generated_from(tmp_path, stores):
    from test_services import PETSTORE

    store = stores.open()
    index(store, write_tree(tmp_path / "web", GENERATED_TS_CLIENT), "web")
    found = service_map(store, "web", limit=100)
    assert {(r.source.qualname, r.method, r.base, r.path) for r in found.requests} == {
        ("PetApi.getPetByIdRaw", "GET", "openapi:shop-web", "/pet/{}"),
        ("PetApi.addPetRaw", "POST", "openapi:shop-web", "/pet"),
    }  # Cache.request of src/app/pets.ts is no BaseAPI's: no request
    index(store, write_tree(tmp_path / "petstore", PETSTORE), "petstore")
    assert http_edges(store, "web") == {
        ("PetApi.getPetByIdRaw", "GET /pet/{pet_id}", "http"),
        ("PetApi.addPetRaw", "POST /pet", "http"),
    }
    reached = {n.symbol.qualname for n in callers(store, "petstore.main.read_pet").items}
    assert "PetApi.getPetByIdRaw" in reached
