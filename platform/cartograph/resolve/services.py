"""A Python module's HTTP routes, routers, mounts and client calls, resolved
(`FileResolution.http`; the row layouts are in `cartograph.resolve.http`).

The parser keeps every call whose callee's last name may be one (`parsing.services`); here
the callee is evaluated, and a row is made only when it is what the name suggests: a
decorator of a FastAPI, Starlette or Flask object, Django's `path`/`re_path`/`url`, a
request of requests, httpx, aiohttp or urllib, or of a client OpenAPI Generator wrote. Nothing
is made of a callee the resolver cannot place (a `get` of a dictionary is not a request).

A generated Python client (openapi-generator's `python` client, old and new) sends every
operation through its `ApiClient`: `self.api_client.call_api("/pets/{petId}", "GET", ...)` or
`self.api_client.param_serialize(method="GET", resource_path="/pets/{petId}", ...)`, in the
operation's method of the generated `PetApi`. Such a call with a literal path and method is a
request; its base is the client package's configured host, named `openapi:PACKAGE`
(`openapi:petstore_client`), which a repository maps to the service in `.cartograph.toml`
`[services]`. The user's code reaches the route through the generated method's ordinary calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cartograph.parsing.facts import BINDING_VALUE
from cartograph.parsing.templates import PATH_PARAMETER
from cartograph.resolve.http import (
    ANY_METHOD,
    METHODS,
    dotted,
    join_paths,
    last_name,
    plain_text,
    request_row,
    route_path,
)
from cartograph.resolve.values import Class, Definition, External, Instance, Module

if TYPE_CHECKING:
    from cartograph.resolve.python import ModuleFacts, Program

WEB_FRAMEWORKS = {
    "fastapi": "fastapi",
    "starlette": "starlette",
    "flask": "flask",
    "quart": "flask",
}
TEST_CLIENT_OWNERS = frozenset({*WEB_FRAMEWORKS, "django"})  # a test client's requests
CLIENT_LIBRARIES = frozenset({"requests", "httpx", "aiohttp", "urllib", "urllib3"})
ROUTER_CLASSES = frozenset({"FastAPI", "APIRouter", "Starlette", "Router", "Flask", "Blueprint"})
CLIENT_CLASSES = frozenset({"Client", "AsyncClient", "Session", "ClientSession", "PoolManager"})
ROUTE_DECORATORS = {m.lower(): m for m in METHODS} | {"websocket": "WS"}
CLIENT_METHODS = {m.lower(): m for m in METHODS}
# the generated ApiClient's methods that send an operation, and the name its API classes keep it
GENERATED_SENDS = frozenset({"call_api", "param_serialize"})
GENERATED_CLIENT = "api_client"
MAX_CONST_DEPTH = 4


def http_rows(program: Program, mod: ModuleFacts) -> list[list]:
    """The module's resolved HTTP rows, sorted (they are stored with the file)."""
    facts = mod.facts.get("http")
    if not facts:
        return []
    reader = _Reader(program, mod)
    rows: list[list] = []
    for row in facts:
        if row[0] == "call":
            made = reader.call(row)
            if made is not None:
                rows.append(made)
                if made[0] == "router":
                    rows.extend(reader.listed_routes(made[1], made[2], row))
    return sorted(rows, key=repr)


class _Reader:
    def __init__(self, program: Program, mod: ModuleFacts) -> None:
        self.program = program
        self.mod = mod
        # (scope, name) or ("self", attribute) → the call whose value is bound to it
        self.constructed: dict[tuple, list] = {}
        for r in mod.facts["http"]:
            if r[0] == "call" and r[9]:
                self.constructed.setdefault(_holder(r[1], r[9]), r)

    # ------------------------------------------------------------ what a callee is
    def library(self, scope: int, expr: list | None, pos: int) -> str | None:
        """The top-level package an expression's value comes from: outside the repository
        (an `External` value), or a framework's or library's own code indexed with it."""
        value = self.program.evaluate(self.mod, scope, expr, pos).value
        if isinstance(value, External):
            return value.top
        if isinstance(value, (Definition, Instance, Module)):  # the framework's own, indexed
            top = value.module.name.split(".")[0]
            if top in WEB_FRAMEWORKS or top in CLIENT_LIBRARIES or top == "django":
                return top
        return None

    def call(self, row: list) -> list | None:
        _, lookup, source, expr, positional, keywords, pos, line, decorates, target = row
        name = expr[2] if expr[0] == "a" else expr[1]
        ids = self.mod.symbol_ids
        if name in GENERATED_SENDS and expr[0] == "a" and last_name(expr[1]) == GENERATED_CLIENT:
            return (
                self._generated(name, positional, keywords, line, ids[source])
                if decorates < 0
                else None
            )
        if expr[0] == "a":
            owner = self.library(lookup, expr[1], pos)
            if owner is None:
                owner = self._constructed_library(expr[1], lookup, pos)
        else:
            owner = self.library(lookup, expr, pos)
        if owner is None:
            return None
        in_test = self.mod.is_test
        if in_test and decorates < 0 and name in CLIENT_METHODS and owner in TEST_CLIENT_OWNERS:
            return self._test_request(row, name, owner)
        framework = WEB_FRAMEWORKS.get(owner)
        if framework is not None:
            if name in ROUTER_CLASSES and target and "." not in target:
                prefix = plain_text(keywords.get("prefix") or keywords.get("url_prefix"))
                prefix = route_path(framework, prefix or "")
                return ["router", self._local_key(lookup, target), framework, prefix]
            if expr[0] != "a":
                return None
            router = self.identity(lookup, expr[1], pos)
            if router is None:
                return None
            if decorates > 0 and (name in ROUTE_DECORATORS or name in ("route", "api_route")):
                path = plain_text(positional[0] if positional else keywords.get("path"))
                if path is None:
                    return None
                methods = self._methods(name, keywords)
                handler = ids[decorates]
                return ["route", router, methods, route_path(framework, path), handler, line,
                        framework]  # fmt: skip
            if name in ("add_url_rule", "add_api_route", "add_route"):
                return self._added_route(router, framework, name, positional, keywords, line)
            if name in ("include_router", "register_blueprint", "mount"):
                return self._mount(router, framework, name, positional, keywords, line, lookup, pos)
            return None
        if owner == "django" and name in ("path", "re_path", "url") and lookup == 0:
            return self._django(name, positional, line, pos)
        if owner in CLIENT_LIBRARIES and decorates < 0:
            return self._client(row, name, owner, ids[source])
        return None

    def _made(self, receiver: list, scope: int) -> list | None:
        """The constructor call a receiver's name was bound to, in its scope or the module."""
        name = dotted(receiver)
        if name is None:
            return None
        return self.constructed.get(_holder(scope, name)) or self.constructed.get((0, name))

    def _constructed_library(self, receiver: list, scope: int, pos: int) -> str | None:
        made = self._made(receiver, scope)
        if made is None:
            return None
        return self.library(made[1], made[3], made[6])

    # ------------------------------------------------------------ routers and routes
    def identity(self, scope: int, expr: list, pos: int) -> str | None:
        """Where the object an expression names is bound (`path::name` at module level,
        through imports; `path::function.name` in a function): how routes, routers and
        mounts find each other across files."""
        program, mod = self.program, self.mod
        if expr[0] == "n":
            found = program.visible_rows(mod, scope, expr[1], pos)
            if found is None:
                return None
            where, rows, _ = found
            if where != 0:  # an application made in a function (a Flask app factory)
                if rows[-1][BINDING_VALUE][0] in ("val", "ann"):
                    return self._local_key(where, expr[1])
                return None
            return self._module_identity(mod, expr[1], 0)
        if expr[0] == "a":
            base = program.evaluate(mod, scope, expr[1], pos).value
            if isinstance(base, Module):
                return self._module_identity(base.module, expr[2], 0)
        return None

    def _local_key(self, scope: int, name: str) -> str:
        if scope == 0:
            return f"{self.mod.path}::{name}"
        return f"{self.mod.path}::{self.mod.qualname(scope)}.{name}"

    def _module_identity(self, mod: ModuleFacts, name: str, depth: int) -> str | None:
        rows = self.program.module_rows(mod, name)
        if not rows or depth > MAX_CONST_DEPTH:
            return None
        binding = rows[-1][BINDING_VALUE]
        if binding[0] in ("val", "ann"):
            return f"{mod.path}::{name}"
        if binding[0] == "from":
            other = self._from_module(mod, binding)
            if other is not None:
                return self._module_identity(other, binding[3], depth + 1)
        return None

    def _from_module(self, mod: ModuleFacts, binding: list) -> ModuleFacts | None:
        base = self.program.resolve_relative(mod, binding[1], binding[2])
        return self.program.module(base) if base is not None else None

    def listed_routes(self, router: str, framework: str, row: list) -> list[list]:
        """The routes of an application's route table (`Starlette(routes=[Route(...),
        Mount("/api", routes=[...])])`, the table given in place or by a name, here or
        imported); a Mount's routes take its path as a prefix."""
        _, lookup, _source, _expr, positional, keywords, pos, line, _decorates, _target = row
        table = keywords.get("routes") or (positional[1] if len(positional) > 1 else None)
        if framework != "starlette" or table is None:
            return []
        return self._table(router, "", table, self.mod, lookup, pos, line, 0)

    def _table(self, router, prefix, table, mod, scope, pos, line, depth) -> list[list]:
        """The routes of a table (a value in `mod`), under `prefix`."""
        if table is None or depth > MAX_CONST_DEPTH:
            return []
        if table[0] == "e":
            found = self._listed(mod, table[1], scope, pos)
            if found is None:
                return []
            mod, table = found
            scope, pos = 0, 1 << 62  # a table bound to a name is module-level
        if table[0] != "l":
            return []
        rows: list[list] = []
        for entry in table[1]:
            if entry is None or entry[0] != "c" or not entry[2]:
                continue
            kind, positional, keywords = last_name(entry[1]), entry[2], entry[3]
            path = plain_text(positional[0])
            if path is None:
                continue
            full = join_paths(prefix, route_path("starlette", path))
            if kind == "Mount":
                inner = keywords.get("routes")
                if inner is not None:
                    rows.extend(self._table(router, full, inner, mod, scope, pos, line, depth + 1))
                    continue
                child = keywords.get("app") or (positional[1] if len(positional) > 1 else None)
                key = self.identity(scope, child[1], pos) if child and child[0] == "e" else None
                if key is not None and mod is self.mod:
                    rows.append(["mount", router, key, full, line])
            elif kind in ("Route", "WebSocketRoute"):
                endpoint = keywords.get("endpoint") or (
                    positional[1] if len(positional) > 1 else None
                )  # fmt: skip
                handler = self._handler(endpoint, scope, pos, mod)
                if handler is None:
                    continue
                methods = ["WS"] if kind == "WebSocketRoute" else self._methods("route", keywords)
                rows.append(["route", router, methods, full, handler, line, "starlette"])
        return rows

    def _listed(self, mod: ModuleFacts, expr: list, scope: int, pos: int):
        """The module and route table a name is bound to: a module-level list of `mod`, or
        of the module it is imported from."""
        name = last_name(expr)
        if expr[0] == "a":
            base = self.program.evaluate(mod, scope, expr[1], pos).value
            if not isinstance(base, Module):
                return None
            mod = base.module
        for _ in range(MAX_CONST_DEPTH):
            for row in mod.facts.get("http") or ():
                if row[0] == "list" and row[1] == 0 and row[2] == name:
                    return mod, row[3]
            rows = self.program.module_rows(mod, name)
            if not rows or rows[-1][BINDING_VALUE][0] != "from":
                return None
            binding = rows[-1][BINDING_VALUE]
            other = self._from_module(mod, binding)
            if other is None:
                return None
            mod, name = other, binding[3]
        return None

    def _methods(self, name: str, keywords: dict) -> list[str]:
        if name in ROUTE_DECORATORS:
            return [ROUTE_DECORATORS[name]]
        listed = keywords.get("methods")
        if listed is not None and listed[0] == "l":
            methods = [plain_text(v) for v in listed[1]]
            if methods and all(methods):
                return sorted({m.upper() for m in methods if m})
        return ["GET"]

    def _handler(
        self, value: list | None, line_scope: int, pos: int, mod: ModuleFacts | None = None
    ) -> str | None:
        """The symbol id of a view or endpoint given as a value (in `mod`, this module unless
        told): a function, a class, a class-based view's `View.as_view()`."""
        if value is None:
            return None
        if value[0] == "c" and value[1][0] == "a" and value[1][2] == "as_view":
            value = ["e", value[1][1]]
        if value[0] != "e":
            return None
        found = self.program.evaluate(mod or self.mod, line_scope, value[1], pos).value
        if isinstance(found, Definition):
            return found.symbol_id
        return None

    def _added_route(self, router, framework, name, positional, keywords, line) -> list | None:
        path = plain_text(
            positional[0] if positional else keywords.get("rule") or keywords.get("path")
        )
        if path is None:
            return None
        if name == "add_url_rule":
            view = keywords.get("view_func") or (positional[2] if len(positional) > 2 else None)
        else:
            view = keywords.get("endpoint") or (positional[1] if len(positional) > 1 else None)
        handler = self._handler(view, 0, 0)
        if handler is None:
            return None
        methods = self._methods("route", keywords)
        return ["route", router, methods, route_path(framework, path), handler, line, framework]

    def _mount(self, router, framework, name, positional, keywords, line, scope, pos):
        if name == "mount":  # app.mount("/sub", other_app)
            prefix = plain_text(positional[0]) if positional else None
            child = positional[1] if len(positional) > 1 else keywords.get("app")
        else:
            prefix = plain_text(keywords.get("prefix") or keywords.get("url_prefix")) or ""
            child = positional[0] if positional else None
        if prefix is None or child is None or child[0] != "e":
            return None
        key = self.identity(scope, child[1], pos)
        if key is None:
            return None
        return ["mount", router, key, route_path(framework, prefix), line]

    def _django(self, name: str, positional: list, line: int, pos: int) -> list | None:
        if len(positional) < 2:
            return None
        raw = plain_text(positional[0])
        if raw is None:
            return None
        framework = "django" if name == "path" else "django-re"
        here = f"urls:{self.mod.path}"
        view = positional[1]
        if view is not None and view[0] == "c" and last_name(view[1]) == "include":
            included = self._included(view, pos)
            if included is None:
                return None
            return ["mount", here, included, route_path(framework, raw), line]
        handler = self._handler(view, 0, pos)
        if handler is None:
            return None
        return ["route", here, [ANY_METHOD], route_path(framework, raw), handler, line, "django"]

    def _included(self, call: list, pos: int) -> str | None:
        """`include("app.urls")`, `include(app.urls)`: the URL module's key."""
        argument = call[2][0] if call[2] else None
        if argument is None:
            return None
        if argument[0] == "t":
            name = plain_text(argument)
            found = self.program.module(name) if name else None
        elif argument[0] == "e":
            value = self.program.evaluate(self.mod, 0, argument[1], pos).value
            found = value.module if isinstance(value, Module) else None
        else:
            return None
        return f"urls:{found.path}" if found is not None else None

    # ------------------------------------------------------------ clients
    def _client(self, row: list, name: str, library: str, source_id: str) -> list | None:
        _, lookup, _source, expr, positional, keywords, _pos, line, _decorates, _target = row
        if name in CLIENT_CLASSES or name == "Request":
            return None  # a client object or a request object: its base is read at its uses
        if name in CLIENT_METHODS:
            method = CLIENT_METHODS[name]
            url = positional[0] if positional else keywords.get("url")
        elif name in ("request", "stream"):
            method = (plain_text(positional[0]) or "").upper() if positional else ""
            method = method or (plain_text(keywords.get("method")) or "").upper()
            url = positional[1] if len(positional) > 1 else keywords.get("url")
        elif name == "urlopen":
            url = positional[0] if positional else keywords.get("url")
            if url is not None and url[0] == "e":  # a Request made before: `urlopen(request)`
                made = self._made(url[1], lookup)
                if made is not None and last_name(made[3]) == "Request":
                    url = ["c", made[3], made[4], made[5]]
            method = "GET"
            if url is not None and url[0] == "c" and last_name(url[1]) == "Request":
                request_method = plain_text(url[3].get("method"))
                method = (request_method or ("POST" if "data" in url[3] else "GET")).upper()
                url = url[2][0] if url[2] else url[3].get("url")
        else:
            return None
        if method not in METHODS or url is None:
            return None
        parts = self._parts(url, lookup, 0)
        base_parts = self._client_base(expr, lookup)
        return request_row(source_id, method, parts, base_parts, line, library)

    def _test_request(self, row: list, name: str, framework: str) -> list | None:
        """A request a test sends through a web framework's test client (Flask's
        `app.test_client()`, Starlette's and FastAPI's `TestClient(app)`, Django's
        `self.client`): `client.get("/items/1")` runs the application in the test's own
        process, so its URL is relative — the repository's own routes."""
        _, lookup, source, _expr, positional, keywords, _pos, line, _decorates, _target = row
        url = positional[0] if positional else keywords.get("path") or keywords.get("url")
        parts = self._parts(url, lookup, 0)
        if not parts or not isinstance(parts[0], str) or not parts[0].startswith("/"):
            return None  # a full URL, or one whose start is not known: not the app's own
        library = f"{framework} test client"
        return request_row(self.mod.symbol_ids[source], CLIENT_METHODS[name], parts, None, line,
                           library)  # fmt: skip

    def _generated(
        self, name: str, positional: list, keywords: dict, line: int, source_id: str
    ) -> list | None:
        """A request of a client OpenAPI Generator wrote (see the module's docstring)."""
        if name == "call_api":  # (path, method, ...) before version 7, (method, url, ...) since
            path = positional[0] if positional else keywords.get("resource_path")
            method = positional[1] if len(positional) > 1 else keywords.get("method")
            if (plain_text(path) or "").upper() in METHODS:
                path, method = method, path
        else:
            path, method = keywords.get("resource_path"), keywords.get("method")
        path_text, method_text = plain_text(path), (plain_text(method) or "").upper()
        if path_text is None or not path_text.startswith("/") or method_text not in METHODS:
            return None
        package = self.mod.name.split(".")[0]
        base = ["v", None, f"openapi:{package}"]
        parts = [base, PATH_PARAMETER.sub("{}", path_text)]
        return request_row(source_id, method_text, parts, None, line, "openapi-generator")

    def _client_base(self, expr: list, scope: int) -> list | None:
        """The base URL of the client object a request is sent through (`httpx.Client(
        base_url=...)`, `aiohttp.ClientSession(base)`), as template parts."""
        if expr[0] != "a":
            return None
        made = self._made(expr[1], scope)
        if made is None:
            return None
        positional, keywords = made[4], made[5]
        value = keywords.get("base_url") or (positional[0] if positional else None)
        if value is None:
            return None
        return self._parts(value, made[1], 0)

    def _parts(self, value: list | None, scope: int, depth: int) -> list | None:
        """A value as template parts, holes that name a string constant filled in."""
        if value is None or depth > MAX_CONST_DEPTH:
            return None
        if value[0] == "e":
            value = ["t", [["v", value[1], dotted(value[1]) or "?"]]]
        if value[0] != "t":
            return None
        parts: list = []
        for part in value[1]:
            if isinstance(part, str) or part[1] is None:
                parts.append(part)
                continue
            constant = self._constant(part[1], scope, depth)
            if constant is None:
                parts.append(part)
            else:
                parts.extend(constant)
        return parts

    def _constant(self, expr: list, scope: int, depth: int) -> list | None:
        """The template a name holds when it is a module-level string constant, here or
        imported, or a class-level one read through the class or an instance (a settings
        object: `settings.users_url` of `class Settings(BaseSettings): users_url: str =
        "http://users:8000"`)."""
        if expr[0] != "n":
            if expr[0] == "a":
                base = self.program.evaluate(self.mod, scope, expr[1], 0).value
                if isinstance(base, Module):
                    return self._module_constant(base.module, expr[2], depth + 1)
                if isinstance(base, (Instance, Class)):
                    return _declared_constant(base.module, base.scope, expr[2])
            return None
        return self._module_constant(self.mod, expr[1], depth)

    def _module_constant(self, mod: ModuleFacts, name: str, depth: int) -> list | None:
        if depth > MAX_CONST_DEPTH:
            return None
        declared = _declared_constant(mod, 0, name)
        if declared is not None:
            return declared
        rows = self.program.module_rows(mod, name)
        if rows and rows[-1][BINDING_VALUE][0] == "from":
            other = self._from_module(mod, rows[-1][BINDING_VALUE])
            if other is not None:
                return self._module_constant(other, rows[-1][BINDING_VALUE][3], depth + 1)
        return None


def _declared_constant(mod: ModuleFacts, scope: int, name: str) -> list | None:
    """A string a module or a class declares at its own level (`BASE = "http://..."`,
    `users_url: str = "http://..."`)."""
    for row in mod.facts.get("http") or ():
        if row[0] == "const" and row[1] == scope and row[2] == name:
            return row[3]
    return None


def _holder(scope: int, name: str) -> tuple:
    if name.startswith("self."):
        return ("self", name[5:])
    return (scope, name)
