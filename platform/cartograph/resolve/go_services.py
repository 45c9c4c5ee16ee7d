"""A Go file's HTTP routes, routers, mounts and requests (`FileResolution.http`, in the row
layouts of `cartograph.resolve.http`), from the facts `parsing.go_services` keeps, asked of
the Go rules (`GoRules.http_rows`).

A call counts once its receiver is placed in a package, by name as the by-name tier does:
the file's import of `github.com/gin-gonic/gin`, `github.com/labstack/echo`,
`github.com/go-chi/chi`, `github.com/gorilla/mux` or `net/http`, directly (`http.HandleFunc`),
through a variable bound to one of their constructors (`r := gin.Default()`, `api :=
r.Group("/api")`), or through a parameter of one of their types, of a function (`func
Register(router *gin.RouterGroup)`, mounted where a group is passed to it) or of a function
literal (`r.Route("/v1", func(r chi.Router) {...})`).

- gin, echo: `GET`, `POST`, `PUT`, `PATCH`, `DELETE`, `HEAD`, `OPTIONS`, `Any`; `Group(prefix)`.
- chi: `Get` and the other methods, `Method(method, path, h)`, `Handle`/`HandleFunc` (every
  method), `Route(prefix, func(r chi.Router))`, `Mount(prefix, router)` of a router variable.
- net/http: `HandleFunc`/`Handle` on `http` (the default mux) or an `http.NewServeMux()`, with
  Go 1.22 patterns (`"GET /users/{id}"`, `{path...}`); gorilla/mux's `HandleFunc` (every
  method: a `.Methods(...)` chain is not read).
- Requests: `http.Get`, `http.Head`, `http.Post`, `http.PostForm`, `http.NewRequest(method,
  url, body)` and `NewRequestWithContext`; the URL's string constants of the package are
  substituted.

A handler is the route's last argument: a function of the package, an exported function of an
imported package of the repository, or a method value (`h.GetUser`: the one method of that
name in the package or the repository packages it imports); a function literal belongs to the
enclosing function.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from cartograph.parsing.facts import TAGS_DEF_KIND, TAGS_DEF_MEMBER, TAGS_DEF_START
from cartograph.resolve.generic import CALLABLE, Target, Unit, unique
from cartograph.resolve.http import (
    ANY_METHOD,
    METHODS,
    last_name,
    plain_text,
    request_row,
    route_path,
)

if TYPE_CHECKING:
    from cartograph.resolve.go import GoRules

# an import path (or the path a versioned one starts with) → the framework it is
FRAMEWORKS = {
    "github.com/gin-gonic/gin": "gin",
    "github.com/labstack/echo": "echo",
    "github.com/go-chi/chi": "chi",
    "github.com/gorilla/mux": "gorilla",
    "net/http": "net/http",
}
ROUTER_CONSTRUCTORS = {
    "gin": ("Default", "New"),
    "echo": ("New",),
    "chi": ("NewRouter", "NewMux"),
    "gorilla": ("NewRouter",),
    "net/http": ("NewServeMux",),
}
UPPER_METHODS = {m: m for m in METHODS} | {"Any": ANY_METHOD}  # gin, echo
TITLE_METHODS = {m.capitalize(): m for m in METHODS}  # chi
CLIENT_FUNCTIONS = {"Get": "GET", "Head": "HEAD", "Post": "POST", "PostForm": "POST"}
_PATTERN = re.compile(r"^(?:(?P<method>[A-Z]+)\s+)?(?P<path>/\S*)$")
_WILDCARD = re.compile(r"\{([A-Za-z_]\w*)\.\.\.\}")
MAX_DEPTH = 6


def framework_of(import_path: str) -> str | None:
    for known, name in FRAMEWORKS.items():
        if import_path == known or import_path.startswith(known + "/v"):
            return name
    return None


def http_rows(
    rules: GoRules, unit: Unit, target_id: Callable[[Target], str], source_id: Callable[[int], str]
) -> list[list]:
    """The file's resolved HTTP rows, sorted (they are stored with the file). `target_id`
    names a definition's symbol, `source_id` the symbol a call at a definition runs in."""
    facts = unit.facts.get("http")
    if not facts:
        return []
    reader = _Reader(rules, unit, target_id, source_id)
    rows: list[list] = []
    for row in facts:
        if row[0] == "call":
            rows.extend(reader.call(row))
    return sorted(rows, key=repr)


class _Reader:
    def __init__(self, rules: GoRules, unit: Unit, target_id, source_id) -> None:
        self.rules = rules
        self.unit = unit
        self.target_id = target_id
        self.source_id = source_id
        self.imports = rules.imports(unit)
        # (enclosing definition, name) → the call whose value it is bound to
        self.constructed: dict[tuple[int, str], list] = {}
        # function literals passed to these calls: (start, end, [[parameter, type]])
        self.literals: list[tuple[int, int, list]] = []
        for row in unit.facts["http"]:
            if row[0] != "call":
                continue
            if row[5]:
                self.constructed.setdefault((row[1], row[5]), row)
            for value in row[3]:
                if value is not None and value[0] == "f":
                    self.literals.append((value[2], value[3], value[1]))

    # ------------------------------------------------------------ what a receiver is
    def package(self, expr: list | None, enclosing: int, pos: int, depth: int = 0) -> str | None:
        """The import path an expression's value comes from, or None."""
        if expr is None or depth > MAX_DEPTH:
            return None
        if expr[0] == "n":
            typ = self._parameter_type(expr[1], pos)
            if typ is not None:
                return self._type_package(typ)
            made = self._made(expr[1], enclosing)
            if made is not None:
                return self.package(made[2], made[1], made[6], depth + 1)
            typ = parameters_of(self.unit, enclosing).get(expr[1])
            if typ is not None:
                return self._type_package(typ)
            found = self.imports.get(expr[1])
            return found[0] if found is not None else None
        if expr[0] in ("a", "c"):
            return self.package(expr[1], enclosing, pos, depth + 1)
        return None

    def _type_package(self, typ: str) -> str | None:
        """The import path of a qualified type's package (`*gin.RouterGroup`: gin's)."""
        qualifier, dot, _name = typ.lstrip("*[]").partition(".")
        found = self.imports.get(qualifier) if dot else None
        return found[0] if found is not None else None

    def _parameter_type(self, name: str, pos: int) -> str | None:
        """The type a function literal's parameter `name` is declared with, at `pos`."""
        best = None
        for start, end, params in self.literals:
            if start <= pos < end:
                for param, typ in params:
                    if param == name and (best is None or start > best[0]):
                        best = (start, typ)
        return best[1] if best is not None else None

    def _made(self, name: str, enclosing: int) -> list | None:
        return self.constructed.get((enclosing, name)) or self.constructed.get((-1, name))

    def identity(self, expr: list, enclosing: int, pos: int) -> str | None:
        """Where a router is bound: a variable of a function (`path::Func.r`), of the file
        (`path::r`), a function literal's router parameter (`path@start`), or net/http's
        default mux (`path::http.DefaultServeMux`)."""
        path = self.unit.path
        if expr[0] != "n":
            return None
        name = expr[1]
        for start, end, params in sorted(self.literals, reverse=True):
            if start <= pos < end and any(p == name for p, _typ in params):
                return f"{path}@{start}"
        if (enclosing, name) in self.constructed:
            return f"{path}::{self.unit.qual(enclosing)}.{name}" if enclosing >= 0 else None
        if (-1, name) in self.constructed:
            return f"{path}::{name}"
        if enclosing >= 0 and name in parameters_of(self.unit, enclosing):
            return f"{path}::{self.unit.qual(enclosing)}.{name}"  # a router passed in
        found = self.imports.get(name)
        if found is not None and framework_of(found[0]) == "net/http":
            return f"{path}::http.DefaultServeMux"
        return None

    # ------------------------------------------------------------ one call
    def call(self, row: list) -> list[list]:
        _, enclosing, expr, _args, _line, target, pos, _passed = row
        if expr[0] != "a":
            return []
        name = last_name(expr)
        package = self.package(expr[1], enclosing, pos)
        framework = framework_of(package) if package else None
        if framework is None:
            return []
        receiver = expr[1]
        if receiver[0] == "n" and self.imports.get(receiver[1], ("",))[0] == package:
            # a function of the package itself: a router's constructor or a request
            if target and name in ROUTER_CONSTRUCTORS[framework]:
                key = self._key(enclosing, target)
                return [["router", key, framework, ""]] if key else []
            if framework == "net/http":
                return self._package_function(row, name)
            return []
        router = self.identity(receiver, enclosing, pos)
        if router is None:
            return []
        return self._router_call(row, router, framework, name)

    def _parameter_key(self, passed: list | None) -> str | None:
        """The key of the router parameter a call's value is passed to: `Register(g)` of the
        package, or `users.Register(g)` of an imported package of the repository."""
        if passed is None:
            return None
        callee, index = passed
        found = self._function(callee)
        if found is None:
            return None
        unit, i = found
        params = list(parameters_of(unit, i))
        if index >= len(params):
            return None
        return f"{unit.path}::{unit.qual(i)}.{params[index]}"

    def _function(self, expr: list) -> Target | None:
        """The top-level function an expression names: of the package, or exported by an
        imported package of the repository."""
        if expr[0] == "n":
            group = self.rules.package_group(self.unit)
            return unique(t for t in group.by_name.get(expr[1], ()) if _top_function(t))[0]
        if expr[0] == "a" and expr[1][0] == "n":
            imported = self.imports.get(expr[1][1])
            if imported is None or imported[1] is None:
                return None
            group = self.rules.imported_group(imported[1])
            return unique(t for t in group.by_name.get(expr[2], ()) if _top_function(t))[0]
        return None

    def _key(self, enclosing: int, name: str) -> str | None:
        if enclosing >= 0:
            return f"{self.unit.path}::{self.unit.qual(enclosing)}.{name}"
        return f"{self.unit.path}::{name}"

    def _package_function(self, row: list, name: str) -> list[list]:
        _, enclosing, _expr, args, line, _target, pos, _passed = row
        if name in ("HandleFunc", "Handle"):
            router = f"{self.unit.path}::http.DefaultServeMux"
            return self._pattern_route(router, args, enclosing, pos, line)
        if name in CLIENT_FUNCTIONS and args:
            return self._request(enclosing, CLIENT_FUNCTIONS[name], args[0], line)
        if name in ("NewRequest", "NewRequestWithContext"):
            rest = args[1:] if name == "NewRequestWithContext" else args
            if len(rest) >= 2:
                method = self._method(rest[0])
                if method is not None:
                    return self._request(enclosing, method, rest[1], line)
        return []

    def _router_call(self, row: list, router: str, framework: str, name: str) -> list[list]:
        _, enclosing, _expr, args, line, target, pos, passed = row
        path = plain_text(args[0]) if args else None
        if framework in ("gin", "echo"):
            if name == "Group" and path is not None:
                # bound to a variable, or passed to a function that registers its routes
                # (`users.Register(v1.Group("/users"))`)
                child = self._key(enclosing, target) if target else self._parameter_key(passed)
                if child is None:
                    return []
                return [["router", child, framework, ""], ["mount", router, child, path, line]]
            if name in UPPER_METHODS and path is not None and len(args) >= 2:
                return self._route(
                    router, [UPPER_METHODS[name]], path, args[-1], enclosing, line, framework
                )
            return []
        if framework == "chi":
            if name in TITLE_METHODS and path is not None and len(args) >= 2:
                return self._route(
                    router, [TITLE_METHODS[name]], path, args[-1], enclosing, line, framework
                )
            if name in ("Method", "MethodFunc") and len(args) >= 3:
                method = (plain_text(args[0]) or "").upper()
                route_path_text = plain_text(args[1])
                if method in METHODS and route_path_text is not None:
                    return self._route(
                        router, [method], route_path_text, args[-1], enclosing, line, framework
                    )
                return []
            if name in ("Handle", "HandleFunc") and path is not None and len(args) >= 2:
                return self._route(router, [ANY_METHOD], path, args[-1], enclosing, line, framework)
            if name == "Route" and path is not None and len(args) >= 2:
                literal = args[1]
                if literal is not None and literal[0] == "f":
                    child = f"{self.unit.path}@{literal[2]}"
                    return [["router", child, framework, ""], ["mount", router, child, path, line]]
                return []
            if name == "Mount" and path is not None and len(args) >= 2:
                sub = args[1]
                if sub is not None and sub[0] == "e":
                    child = self.identity(sub[1], enclosing, pos)
                    if child is not None:
                        return [["mount", router, child, path, line]]
            return []
        if name in ("HandleFunc", "Handle"):  # net/http's ServeMux, gorilla/mux
            return self._pattern_route(router, args, enclosing, pos, line, framework)
        return []

    def _pattern_route(self, router, args, enclosing, pos, line, framework="net/http"):
        """A net/http pattern: `"GET /users/{id}"`, `"/static/{path...}"`."""
        raw = plain_text(args[0]) if args else None
        match = _PATTERN.match(raw or "") if len(args) >= 2 else None
        if match is None:
            return []  # a host-qualified pattern, or no handler
        method = match.group("method") or ANY_METHOD
        if method != ANY_METHOD and method not in METHODS:
            return []
        path = _WILDCARD.sub(r"{\1}", match.group("path")).replace("{$}", "")
        return self._route(router, [method], path, args[-1], enclosing, line, framework)

    def _route(self, router, methods, path, handler_value, enclosing, line, framework):
        handler = self._handler(handler_value, enclosing)
        if handler is None:
            return []
        return [["route", router, methods, route_path("express", path), handler, line,
                 framework]]  # fmt: skip

    # ------------------------------------------------------------ handlers
    def _handler(self, value: list | None, enclosing: int) -> str | None:
        if value is None:
            return None
        if value[0] == "f":
            return self.source_id(enclosing)
        if value[0] != "e":
            return None
        expr = value[1]
        if expr[0] == "n" or (expr[0] == "a" and self.imports.get(_head(expr)) is not None):
            found = self._function(expr)  # `getUser`, `handlers.GetUser`
            return self.target_id(found) if found is not None else None
        if expr[0] == "a" and expr[1][0] == "n":
            # a method value (`h.GetUser`): the one method of that name in reach
            groups = [self.rules.package_group(self.unit)] + [
                self.rules.imported_group(directory)
                for _path, directory in self.imports.values()
                if directory is not None
            ]
            candidates = [
                t for g in groups for t in g.by_name.get(expr[2], ()) if _method(t)
            ]  # fmt: skip
            found, count = unique(candidates)
            return self.target_id(found) if found is not None and count == 1 else None
        return None

    # ------------------------------------------------------------ requests
    def _method(self, value: list | None) -> str | None:
        text = plain_text(value)
        if text is not None:
            return text.upper() if text.upper() in METHODS else None
        if value is not None and value[0] == "e" and value[1][0] == "a":
            constant = value[1][2]  # http.MethodGet
            if constant.startswith("Method") and constant[6:].upper() in METHODS:
                return constant[6:].upper()
        return None

    def _request(self, enclosing: int, method: str, url: list | None, line: int) -> list[list]:
        parts = self._parts(url)
        made = request_row(self.source_id(enclosing), method, parts, None, line, "net/http")
        return [made] if made is not None else []

    def _parts(self, value: list | None) -> list | None:
        """A value as template parts, holes that name a string constant of the package
        filled in."""
        if value is None:
            return None
        if value[0] == "e" and value[1][0] == "n":
            value = ["t", [["v", value[1], value[1][1]]]]
        if value[0] != "t":
            return None
        parts: list = []
        for part in value[1]:
            constant = None
            if not isinstance(part, str) and part[1] is not None and part[1][0] == "n":
                constant = self._constant(part[1][1])
            parts.extend(constant if constant is not None else [part])
        return parts

    def _constant(self, name: str) -> list | None:
        for unit in [self.unit, *self.rules.package_group(self.unit).units]:
            for row in unit.facts.get("http") or ():
                if row[0] == "const" and row[1] == name:
                    return row[2]
        return None


def parameters_of(unit: Unit, definition: int) -> dict[str, str]:
    """The parameters (name → type text) of a function of `unit` whose parameters include a
    package's type, as the parser kept them ({} for any other)."""
    if definition < 0:
        return {}
    start = unit.defs[definition][TAGS_DEF_START]
    for row in unit.facts.get("http") or ():
        if row[0] == "params" and row[1] == start:
            return dict(row[2])
    return {}


def _head(expr: list) -> str:
    return expr[1][1] if expr[0] == "a" and expr[1][0] == "n" else ""


def _top_function(target: Target) -> bool:
    unit, i = target
    row = unit.defs[i]
    return row[TAGS_DEF_KIND] in CALLABLE and not row[TAGS_DEF_MEMBER]


def _method(target: Target) -> bool:
    unit, i = target
    row = unit.defs[i]
    return row[TAGS_DEF_KIND] == "method" and bool(row[TAGS_DEF_MEMBER])
