"""A Java file's Spring routes and requests (`FileResolution.http`, in the row layouts of
`cartograph.resolve.http`), from the facts `parsing.jvm_services` keeps, asked of the Java
rules (`JavaRules.http_rows`). A file counts when it imports Spring's web annotations
(`org.springframework.web.bind.annotation`), its Feign client annotation
(`org.springframework.cloud.openfeign`) or its `RestTemplate` (`org.springframework.web.
client`).

- **Routes:** a class annotated `@RestController` or `@Controller` (and its `@RequestMapping`
  prefix) is a router; its methods annotated `@GetMapping`, `@PostMapping`, `@PutMapping`,
  `@DeleteMapping`, `@PatchMapping` or `@RequestMapping(method = ...)` (every method when none
  is named) are routes, one per path of `value`/`path`, handled by the method.
- **Declared clients:** the same mappings on a `@FeignClient(name = ..., url = ...)`
  interface are requests, sent by the interface's method (so `callers` of a route lists the
  method, and the code that calls it is one hop further); their base is the `url`, else the
  service `name`.
- **RestTemplate:** `getForObject`, `getForEntity` (GET), `postForObject`, `postForEntity`,
  `postForLocation` (POST), `patchForObject` (PATCH) and `exchange(url, HttpMethod.X, ...)`;
  the class's string constants are substituted in the URL.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from cartograph.parsing.facts import TAGS_DEF_KIND, TAGS_DEF_PARENT, TAGS_DEF_START
from cartograph.resolve.generic import Target, Unit
from cartograph.resolve.http import (
    ANY_METHOD,
    HOLE,
    METHODS,
    plain_text,
    request_row,
    route_path,
)

WEB = "org.springframework.web.bind.annotation"
_VARIABLE = re.compile(r"\{[^{}]*\}")
FEIGN = "org.springframework.cloud.openfeign"
CLIENT = "org.springframework.web.client"
MAPPINGS = {
    "GetMapping": "GET",
    "PostMapping": "POST",
    "PutMapping": "PUT",
    "DeleteMapping": "DELETE",
    "PatchMapping": "PATCH",
    "RequestMapping": "",  # the `method` element, or every method
}
CONTROLLERS = frozenset({"RestController", "Controller"})
CLIENT_CALLS = {
    "getForObject": "GET",
    "getForEntity": "GET",
    "postForObject": "POST",
    "postForEntity": "POST",
    "postForLocation": "POST",
    "patchForObject": "PATCH",
}


def http_rows(
    unit: Unit, target_id: Callable[[Target], str], source_id: Callable[[int], str]
) -> list[list]:
    """The file's resolved HTTP rows, sorted."""
    facts = unit.facts.get("http")
    if not facts:
        return []
    imported = [row[0] for row in unit.facts.get("imports", ())]
    web = any(i.startswith((WEB, FEIGN)) for i in imported)
    client = any(i.startswith(CLIENT) for i in imported)
    annotations: dict[int, dict[str, dict]] = {}
    constants: dict[str, list] = {}
    for row in facts:
        if row[0] == "ann" and web:
            annotations.setdefault(row[1], {})[row[2]] = row[3]
        elif row[0] == "const":
            constants.setdefault(row[1], row[2])
    rows: list[list] = []
    for definition, found in sorted(annotations.items()):
        kind = unit.defs[definition][TAGS_DEF_KIND]
        if kind == "class" and found.keys() & CONTROLLERS:
            prefix = _paths(found.get("RequestMapping"))[0]
            rows.append(["router", _key(unit, definition), "spring", route_path("spring", prefix)])
        if kind == "method":
            rows.extend(_mapped(unit, definition, found, annotations, target_id))
    if client:
        for row in facts:
            if row[0] == "call":
                made = _rest_template(row, constants, source_id)
                if made is not None:
                    rows.append(made)
    return sorted(rows, key=repr)


def _mapped(unit, definition, found, annotations, target_id) -> list[list]:
    """The routes (in a controller) or requests (in a Feign client) of a mapped method."""
    owner = unit.defs[definition][TAGS_DEF_PARENT]
    of_owner = annotations.get(owner, {}) if owner >= 0 else {}
    for name, method in MAPPINGS.items():
        if name not in found:
            continue
        elements = found[name]
        methods = [method] if method else _methods(elements.get("method"))
        paths = _paths(elements)
        symbol = target_id((unit, definition))
        if "FeignClient" in of_owner:
            feign = of_owner["FeignClient"]
            base = plain_text(feign.get("url")) or plain_text(feign.get("name")) or plain_text(
                feign.get("value")
            )  # fmt: skip
            prefix = plain_text(feign.get("path")) or ""
            inner = _paths(of_owner.get("RequestMapping"))[0]
            rows = []
            for path in paths:
                # the path's variables are what the caller fills in: holes
                filled = _VARIABLE.sub(HOLE, f"/{prefix}/{inner}/{path}")
                parts = [*_base_parts(base), filled]
                for verb in methods:
                    if verb != ANY_METHOD:
                        line = unit.defs[definition][TAGS_DEF_START]
                        made = request_row(symbol, verb, parts, None, line, "feign")
                        if made is not None:
                            rows.append(made)
            return rows
        if not of_owner.keys() & CONTROLLERS:
            return []
        router = _key(unit, owner)
        line = unit.defs[definition][TAGS_DEF_START]
        return [
            ["route", router, methods, route_path("spring", "/" + path.lstrip("/")), symbol, line,
             "spring"]
            for path in paths
        ]  # fmt: skip
    return []


def _base_parts(base: str | None) -> list:
    """A Feign client's base: a URL (`http://users:8080`), else the name it is known by,
    as a hole that `[services]` can map (`"users" = "users-repo"`)."""
    if not base:
        return []
    if base.startswith(("http:", "https:", "//")):
        return [base]
    return [["v", None, base]]


def _rest_template(row: list, constants: dict, source_id) -> list | None:
    _, enclosing, _receiver, name, args, line = row
    if name == "exchange":
        method_value = args[1] if len(args) > 1 else None
        method = None
        if method_value is not None and method_value[0] == "e" and method_value[1][0] == "a":
            method = method_value[1][2]
        if method not in METHODS:
            return None
    else:
        method = CLIENT_CALLS[name]
    url = args[0] if args else None
    if url is None or url[0] != "t":
        return None
    parts: list = []
    for part in url[1]:
        held = None
        if not isinstance(part, str) and part[1] is not None and part[1][0] == "n":
            held = constants.get(part[1][1])
        parts.extend(held if held is not None else [part])
    return request_row(source_id(enclosing), method, parts, None, line, "resttemplate")


def _key(unit: Unit, definition: int) -> str:
    return f"{unit.path}::{unit.qual(definition)}"


def _paths(elements: dict | None) -> list[str]:
    """The paths of a mapping's `value` or `path` element ("" when it names none)."""
    if not elements:
        return [""]
    value = elements.get("value") or elements.get("path")
    if value is None:
        return [""]
    items = value[1] if value[0] == "l" else [value]
    found = [text for text in (plain_text(item) for item in items) if text is not None]
    return found or [""]


def _methods(value: list | None) -> list[str]:
    """`method = RequestMethod.POST` or `{RequestMethod.GET, RequestMethod.HEAD}`."""
    if value is None:
        return [ANY_METHOD]
    items = value[1] if value[0] == "l" else [value]
    found = [
        item[1][2]
        for item in items
        if item is not None and item[0] == "e" and item[1] and item[1][0] == "a"
    ]
    return [m for m in found if m in METHODS] or [ANY_METHOD]
