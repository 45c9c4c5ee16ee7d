"""A TypeScript or JavaScript file's HTTP routes, routers, mounts and requests, resolved
(`FileResolution.http`, in the row layouts of `cartograph.resolve.http`, the same as Python's).

The parser keeps every call and decorator whose last name may be one
(`parsing.ecma_services`); here the callee is evaluated, and a row is made only when it is
what the name suggests:

- Express: `express()` and `express.Router()` are routers; `app.get(path, ...handlers)` (and
  the other methods, `all`) a route whose handler is its last argument; `app.use(path,
  router)` a mount, `require("./routes/x")` and imported routers followed to where they are
  bound.
- Koa: `new Router({prefix})` of `@koa/router` or `koa-router`, its methods (`del` too), and
  `router.use(path, other.routes())`.
- NestJS: a class decorated `@Controller(prefix)` of `@nestjs/common` is a router, its methods
  decorated `@Get(path)` and the others routes; `app.setGlobalPrefix(prefix)` of the
  application `NestFactory.create` made is the prefix of every controller.
- Requests: the global `fetch` (and `node-fetch`, `undici`, `cross-fetch`) with its `method`
  option; `axios(url | config)`, `axios.get(url)` and the other methods, `axios.request(
  config)`, and the same through an instance made by `axios.create({baseURL})`; and
  typescript-fetch's generated `this.request({path, method})` of `BaseAPI` (docs/services.md).

A handler written in place (`app.get("/x", (req, res) => ...)`) has no symbol of its own: its
code belongs to the enclosing scope, and the route goes to that scope's symbol (the module,
for a route declared at the top of a file), as the calls made in it do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cartograph.parsing.facts import ECMA_BINDING_VALUE, ECMA_SCOPE_KIND, ECMA_SCOPE_PARENT
from cartograph.resolve.http import (
    ANY_METHOD,
    METHODS,
    dotted,
    last_name,
    plain_text,
    request_row,
    route_path,
)

if TYPE_CHECKING:
    from cartograph.resolve.ecma import EcmaProgram, _File

# the package a router's or a request's callee comes from → the framework it is
ROUTER_PACKAGES = {"express": "express", "koa-router": "koa", "@koa/router": "koa", "koa": "koa"}
NEST_PACKAGE = "@nestjs/common"
NEST_CORE = "@nestjs/core"  # `NestFactory.create(...)`: the application
FETCH_PACKAGES = frozenset({"node-fetch", "cross-fetch", "undici", "isomorphic-fetch"})
CLIENT_PACKAGES = FETCH_PACKAGES | {"axios"}
KNOWN_PACKAGES = frozenset(ROUTER_PACKAGES) | CLIENT_PACKAGES | {NEST_PACKAGE}
GLOBAL_OBJECTS = frozenset({"window", "globalThis", "self", "global"})
ROUTE_METHODS = {m.lower(): m for m in METHODS} | {"all": ANY_METHOD, "del": "DELETE"}
NEST_METHODS = {m.capitalize(): m for m in METHODS} | {"All": ANY_METHOD}
CLIENT_METHODS = {m.lower(): m for m in METHODS}
GENERATED_BASE = "BaseAPI"  # the class typescript-fetch's API classes derive from
MAX_DEPTH = 6
END = 1 << 60


def http_rows(program: EcmaProgram, f: _File) -> list[list]:
    """The file's resolved HTTP rows, sorted (they are stored with the file)."""
    facts = f.facts.get("http")
    if not facts:
        return []
    reader = _Reader(program, f)
    rows: list[list] = []
    for row in facts:
        made = None
        if row[0] == "call":
            made = reader.call(row)
        elif row[0] == "dec":
            made = reader.decorator(row)
        if made is not None:
            rows.append(made)
    return sorted(rows, key=repr)


class _Reader:
    def __init__(self, program: EcmaProgram, f: _File) -> None:
        self.program = program
        self.f = f
        # (scope, name) or ("this", field) → the call whose value is bound to it
        self.constructed: dict[tuple, list] = {}
        for r in f.facts["http"]:
            if r[0] == "call" and r[6]:
                self.constructed.setdefault(_holder(r[1], r[6]), r)

    def symbol(self, scope: int) -> str:
        return self.program.symbol(self.f.path, scope)

    # ------------------------------------------------------------ what a callee is
    def package(self, scope: int, expr: list | None, pos: int) -> str | None:
        """The external package an expression's value comes from, or None."""
        value = self.program.evaluate(self.f, scope, expr, pos)[0]
        if value is not None and value[0] == "ext":
            return value[1]
        if value is not None and value[0] in ("def", "inst", "mod", "this"):
            own = self._own_package(value[1])  # the framework's own code, indexed too
            if own is not None:
                return own
        if value is None and expr is not None and expr[0] == "a":
            made = self._made(expr[1], scope)  # `this.http = axios.create(...)`
            if made is not None:
                return self.package(made[1], made[2], made[4])
            # what a package's function carries (`express.Router` in Express's own code)
            return self.package(scope, expr[1], pos)
        return None

    def _own_package(self, path: str) -> str | None:
        """The framework or client library a file of the repository belongs to (the
        repository's own `package.json` names it: Express's examples use Express's code)."""
        for name, (folder, _manifest) in self.program.modules.packages().items():
            if name in KNOWN_PACKAGES and (not folder or path.startswith(folder + "/")):
                return name
        return None

    def _made(self, receiver: list, scope: int) -> list | None:
        """The call a receiver's name (or `this.x`) was bound to, in its scope or outside."""
        if receiver[0] == "a" and receiver[1] == ["this"]:
            return self.constructed.get(("this", receiver[2]))
        if receiver[0] != "n":
            return None
        current = scope
        while current >= 0:
            made = self.constructed.get((current, receiver[1]))
            if made is not None:
                return made
            current = self.f.scopes[current][ECMA_SCOPE_PARENT] if current else -1
        return None

    def _is_global(self, scope: int, name: str) -> bool:
        """No binding of `name` is visible from `scope` (`fetch` is the runtime's)."""
        current = scope
        while current >= 0:
            if (current, name) in self.f.bindings:
                return False
            current = self.f.scopes[current][ECMA_SCOPE_PARENT] if current else -1
        return True

    def _global_fetch(self, scope: int, expr: list) -> bool:
        """`fetch(...)`, `window.fetch(...)`: the runtime's, no binding of the name in sight."""
        if expr[0] == "n":
            return self._is_global(scope, "fetch")
        holder = expr[1]
        return (
            holder[0] == "n" and holder[1] in GLOBAL_OBJECTS and self._is_global(scope, holder[1])
        )

    def call(self, row: list) -> list | None:
        _, scope, expr, args, pos, line, target = row
        name = last_name(expr)
        if expr == ["a", ["this"], "request"] and args and args[0] is not None:
            return self._generated(scope, expr, args[0], pos, line)
        if name == "fetch" and self._global_fetch(scope, expr):
            return self._fetch(scope, args, line, "fetch")
        owner = self.package(scope, expr, pos)
        if owner is None:
            return None
        if owner in FETCH_PACKAGES and (name == "fetch" or expr[0] == "n"):
            return self._fetch(scope, args, line, owner)  # `import fetch from "node-fetch"`
        if owner == "axios":
            return self._axios(row)
        if owner == NEST_CORE and name == "setGlobalPrefix" and args:
            prefix = plain_text(args[0])
            return ["global", "nest", route_path("express", prefix), line] if prefix else None
        framework = ROUTER_PACKAGES.get(owner)
        if framework is None:
            return None
        if target and "." not in target and name in ("express", "Router"):
            options = args[0] if args else None
            prefix = ""
            if options is not None and options[0] == "o":
                prefix = plain_text(options[1].get("prefix")) or ""
            return ["router", self._key(scope, target), framework, route_path("express", prefix)]
        if expr[0] != "a":
            return None
        router = self.identity(scope, expr[1], pos)
        if router is None:
            return None
        if name in ROUTE_METHODS and len(args) >= 2:
            path = plain_text(args[0])
            handler = self._handler(args[-1], scope, pos)
            if path is None or handler is None:
                return None
            return ["route", router, [ROUTE_METHODS[name]], route_path("express", path),
                    handler, line, framework]  # fmt: skip
        if name == "use":
            return self._mount(router, scope, args, line, pos)
        return None

    # ------------------------------------------------------------ routers and routes
    def identity(self, scope: int, expr: list, pos: int, depth: int = 0) -> str | None:
        """Where the object an expression names is bound (`path::name` at module level,
        through imports and `require`; `path::function.name` in a function): how routes,
        routers and mounts find each other across files."""
        if depth > MAX_DEPTH:
            return None
        f = self.f
        if expr[0] == "n":
            return self._bound_identity(f, scope, expr[1], pos, depth)
        if expr[0] == "a":
            base = self.program.evaluate(f, scope, expr[1], pos)[0]
            if base is not None and base[0] == "mod":
                return self._export_identity(base[1], expr[2], depth + 1)
        return None

    def _bound_identity(self, f: _File, scope: int, name: str, pos: int, depth: int):
        from cartograph.resolve.ecma import _visible

        current = scope
        while current >= 0:
            rows = f.bindings.get((current, name))
            row = _visible(rows, pos) if rows else None
            if row is not None:
                binding = row[ECMA_BINDING_VALUE]
                if binding[0] == "val":
                    if current == 0:
                        return f"{f.path}::{name}"
                    return f"{f.path}::{f.qualname(current)}.{name}"
                if binding[0] in ("imp", "req"):
                    path, _external = self.program.target(f.path, binding[1])
                    if path is None or binding[2] == "*":
                        return None
                    if binding[2] is None:
                        return self._module_identity(path, depth + 1)
                    return self._export_identity(path, binding[2], depth + 1)
                return None
            current = f.scopes[current][ECMA_SCOPE_PARENT] if current else -1
        return None

    def _export_identity(self, path: str, name: str, depth: int) -> str | None:
        f = self.program.file(path)
        if f is None or depth > MAX_DEPTH:
            return None
        local = f.exports.get(name)
        if isinstance(local, str) and not local.startswith("="):
            return self._bound_identity(f, 0, local, END, depth + 1)
        if local is not None:
            return None
        for source, imported, exported in f.facts["reexports"]:
            if exported == name and imported != "*":
                target, _external = self.program.target(path, source)
                return self._export_identity(target, imported, depth + 1) if target else None
        if name == "default":  # an ES import of a CommonJS module: `module.exports = router`
            return self._module_identity(path, depth + 1)
        return None

    def _module_identity(self, path: str, depth: int) -> str | None:
        """What `require(path)` gives, when it is a bound object (`module.exports = router`)."""
        f = self.program.file(path)
        if f is None or depth > MAX_DEPTH:
            return None
        value = f.facts.get("module_value")
        if isinstance(value, str) and not value.startswith("="):
            return self._bound_identity(f, 0, value, END, depth + 1)
        for source, imported, exported in f.facts["reexports"]:
            if imported == "*" and exported == "=":
                target, _external = self.program.target(path, source)
                return self._module_identity(target, depth + 1) if target else None
        return None

    def _key(self, scope: int, name: str) -> str:
        if scope == 0:
            return f"{self.f.path}::{name}"
        return f"{self.f.path}::{self.f.qualname(scope)}.{name}"

    def _handler(self, value: list | None, scope: int, pos: int) -> str | None:
        """The symbol id of a route's handler: a function or method named, or the scope a
        function written in place belongs to."""
        if value is None:
            return None
        if value[0] == "f":
            return self.symbol(value[1] if value[1] >= 0 else scope)
        if value[0] != "e":
            return None
        found = self.program.evaluate(self.f, scope, value[1], pos)[0]
        if (
            found is not None
            and found[0] == "def"
            and self.program.kind(found)
            in (
                "function",
                "method",
            )
        ):
            return self.program.symbol(found[1], found[2])
        return None

    def _mount(self, router: str, scope: int, args: list, line: int, pos: int) -> list | None:
        """`app.use("/api", router)`, `app.use(require("./users"))`, `router.use("/v1",
        users.routes())`: the first argument that is a router bound somewhere."""
        prefix = plain_text(args[0]) if args else None
        rest = args[1:] if prefix is not None else args
        for value in rest:
            child = self._router_value(value, scope, pos)
            if child is not None:
                return ["mount", router, child, route_path("express", prefix or ""), line]
        return None

    def _router_value(self, value: list | None, scope: int, pos: int) -> str | None:
        if value is None:
            return None
        if value[0] == "e":
            return self.identity(scope, value[1], pos)
        if value[0] == "c":
            callee, inner = value[1], value[2]
            if callee == ["n", "require"] and inner and plain_text(inner[0]):
                path, _external = self.program.target(self.f.path, plain_text(inner[0]) or "")
                return self._module_identity(path, 0) if path else None
            if callee[0] == "a" and callee[2] in ("routes", "middleware"):  # Koa
                return self.identity(scope, callee[1], pos)
        return None

    def decorator(self, row: list) -> list | None:
        """NestJS: `@Controller(prefix)` on a class, `@Get(path)` on its methods."""
        _, scope, expr, args, line = row
        f = self.f
        parent = f.scopes[scope][ECMA_SCOPE_PARENT]
        if self.package(max(parent, 0), expr, END) != NEST_PACKAGE:
            return None
        name = last_name(expr)
        first = args[0] if args else None
        if first is not None and first[0] == "o":
            first = first[1].get("path")
        raw = plain_text(first) if first is not None else ""
        if raw is None:
            return None
        path = route_path("express", "/" + raw.lstrip("/"))
        kind = f.scopes[scope][ECMA_SCOPE_KIND]
        if name == "Controller" and kind == "class":
            return ["router", f"{f.path}::{f.qualname(scope)}", "nest", path]
        if name in NEST_METHODS and kind == "method" and parent > 0:
            router = f"{f.path}::{f.qualname(parent)}"
            return ["route", router, [NEST_METHODS[name]], path, self.symbol(scope), line, "nest"]
        return None

    # ------------------------------------------------------------ requests
    def _fetch(self, scope: int, args: list, line: int, library: str) -> list | None:
        options = args[1] if len(args) > 1 else None
        method = "GET"
        if options is not None and options[0] == "o" and "method" in options[1]:
            method = (plain_text(options[1]["method"]) or "").upper()
        return self._request(scope, method, args[0] if args else None, None, line, library)

    def _axios(self, row: list) -> list | None:
        _, scope, expr, args, _pos, line, _target = row
        name = last_name(expr)
        if expr[0] == "a" and name in CLIENT_METHODS:
            method, url, config = CLIENT_METHODS[name], args[0] if args else None, None
            base = self._instance_base(expr[1], scope)
        elif expr[0] == "n" or name == "request":  # axios(url, config), axios(config)
            first = args[0] if args else None
            if first is not None and first[0] == "o":
                config, url = first, first[1].get("url")
            else:
                config, url = (args[1] if len(args) > 1 else None), first
            method = "GET"
            if config is not None and config[0] == "o" and "method" in config[1]:
                method = (plain_text(config[1]["method"]) or "").upper()
            base = self._instance_base(expr[1], scope) if expr[0] == "a" else None
            if config is not None and config[0] == "o" and "baseURL" in config[1]:
                base = self._parts(config[1]["baseURL"], scope, 0)
        else:
            return None  # axios.create, interceptors: not requests
        return self._request(scope, method, url, base, line, "axios")

    def _generated(self, scope: int, expr: list, options: list, pos: int, line: int):
        """`this.request({path, method, ...})` in an API class OpenAPI Generator wrote
        (typescript-fetch: the method is its runtime's `BaseAPI.request`), a literal method and
        a path that starts with "/": a request based at `openapi:PACKAGE`, the package.json
        that holds the file (`[services]` maps it to the service)."""
        method = (plain_text(options[1].get("method")) or "").upper() if options[0] == "o" else ""
        if method not in METHODS:
            return None
        value = self.program.evaluate(self.f, scope, expr, pos)[0]
        if value is None or value[0] != "def":
            return None
        qualname = self.program.symbol(value[1], value[2]).rpartition("#")[2]
        if qualname.rpartition(".")[0].rpartition(".")[2] != GENERATED_BASE:
            return None
        parts = self._parts(options[1].get("path"), scope, 0)
        if not parts or not isinstance(parts[0], str) or not parts[0].startswith("/"):
            return None
        holder = [
            (len(folder), name)
            for name, (folder, _manifest) in self.program.modules.packages().items()
            if not folder or self.f.path.startswith(folder + "/")
        ]
        package = max(holder)[1] if holder else self.f.path.split("/")[0]
        base = [["v", None, f"openapi:{package}"]]
        return request_row(self.symbol(scope), method, parts, base, line, "openapi-generator")

    def _instance_base(self, receiver: list, scope: int) -> list | None:
        """The `baseURL` of the instance `axios.create({baseURL})` made, here or in the
        module it is imported from, as template parts."""
        where, made = self.f, self._made(receiver, scope)
        if made is None and receiver[0] == "n":
            found = self._imported_instance(receiver[1], scope)
            if found is not None:
                where, made = found
        if made is None or last_name(made[2]) != "create" or not made[3]:
            return None
        config = made[3][0]
        if config is None or config[0] != "o":
            return None
        return self._parts(config[1].get("baseURL"), made[1], 0, where)

    def _imported_instance(self, name: str, scope: int) -> tuple[_File, list] | None:
        """`import { api } from "./api-client"`: the file and the call `api` is bound to."""
        imported = self._imported(self.f, scope, name)
        if imported is None:
            return None
        other, _scope, local = imported
        for row in other.facts.get("http") or ():
            if row[0] == "call" and row[1] == 0 and row[6] == local:
                return other, row
        return None

    def _request(self, scope, method, url, base_parts, line, library) -> list | None:
        if method not in METHODS or url is None:
            return None
        parts = self._parts(url, scope, 0)
        return request_row(self.symbol(scope), method, parts, base_parts, line, library)

    def _parts(
        self, value: list | None, scope: int, depth: int, f: _File | None = None
    ) -> list | None:
        """A value as template parts (in `f`, this file unless told), holes that name a
        string constant filled in."""
        if value is None or depth > MAX_DEPTH:
            return None
        if value[0] == "e":
            value = ["t", [["v", value[1], dotted(value[1]) or "?"]]]
        if value[0] != "t":
            return None
        parts: list = []
        for part in value[1]:
            constant = None if isinstance(part, str) or part[1] is None else (
                self._constant(f or self.f, part[1], scope, depth)
            )  # fmt: skip
            if constant is None:
                parts.append(part)
            else:
                parts.extend(constant)
        return parts

    def _constant(self, f: _File, expr: list, scope: int, depth: int) -> list | None:
        """The template a name holds in `f` when it is a module-level string constant, there
        or imported."""
        if expr[0] == "n":
            return self._bound_constant(f, scope, expr[1], depth)
        if expr[0] == "a":
            base = self.program.evaluate(f, scope, expr[1], END)[0]
            if base is not None and base[0] == "mod":
                module = self.program.file(base[1])
                local = module.exports.get(expr[2]) if module is not None else None
                if module is not None and isinstance(local, str):
                    return self._bound_constant(module, 0, local, depth + 1)
        return None

    def _bound_constant(self, f: _File, scope: int, name: str, depth: int) -> list | None:
        if depth > MAX_DEPTH or _defining_scope(f, scope, name) != 0:
            return None  # a local variable: its value is not followed
        for row in f.facts.get("http") or ():
            if row[0] == "const" and row[2] == name:
                return row[3]
        imported = self._imported(f, 0, name)
        return self._bound_constant(*imported, depth + 1) if imported is not None else None

    def _imported(self, f: _File, scope: int, name: str) -> tuple[_File, int, str] | None:
        """`import { name } from "./m"` (or `require`) seen from `scope`: the module's file,
        its scope 0, and the local name it exports that under."""
        from cartograph.resolve.ecma import _visible

        defining = _defining_scope(f, scope, name)
        visible = _visible(f.bindings.get((defining, name)) or [], END)
        binding = visible[ECMA_BINDING_VALUE] if visible is not None else None
        if binding is None or binding[0] not in ("imp", "req") or not binding[2]:
            return None
        path, _external = self.program.target(f.path, binding[1])
        other = self.program.file(path) if path else None
        local = other.exports.get(binding[2]) if other is not None else None
        if other is None or not isinstance(local, str) or local.startswith("="):
            return None
        return other, 0, local


def _defining_scope(f: _File, scope: int, name: str) -> int:
    """The scope whose binding of `name` is seen from `scope` (0 when none is)."""
    current = scope
    while current > 0 and (current, name) not in f.bindings:
        current = f.scopes[current][ECMA_SCOPE_PARENT]
    return current


def _holder(scope: int, name: str) -> tuple:
    if name.startswith("this."):
        return ("this", name[5:])
    return (scope, name)
