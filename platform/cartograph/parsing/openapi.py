"""Facts of an OpenAPI (or Swagger 2) document: the operations it declares.

A document is a YAML or JSON file named like one (`cartograph.languages`: `openapi.yaml`,
`swagger.json`, `*.openapi.yml`, ...) whose top level has an `openapi` or `swagger` key;
any other such file gives no operations. The facts:

- routes: [method, path template, line, operationId or ""] per operation under `paths`;
- base: the path the operations are served under (the first server's URL path in OpenAPI 3,
  `basePath` in Swagger 2), "" when none;
- title: `info.title`.

Parsed with PyYAML's composer (a JSON document is YAML too): nodes carry their lines, and no
value is constructed, so a document cannot run anything.
"""

from __future__ import annotations

import hashlib
import marshal
from urllib.parse import urlsplit

import yaml

FACTS_VERSION = 1
OPERATIONS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def extract(language: str, source: bytes) -> dict:
    lines = source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1)
    facts: dict = {"v": FACTS_VERSION, "lines": lines, "errors": 0, "routes": [], "base": ""}
    facts["title"] = ""
    try:
        root = yaml.compose(source.decode("utf-8", "replace"), Loader=_LOADER)
    except yaml.YAMLError:
        facts["errors"] = 1
        return facts
    top = _mapping(root)
    if "openapi" not in top and "swagger" not in top:
        return facts
    facts["title"] = _scalar(_mapping(top.get("info")).get("title")) or ""
    facts["base"] = _base_path(top)
    for path_node, item in _items(top.get("paths")):
        path = _scalar(path_node)
        if not path or not path.startswith("/"):
            continue
        for method_node, operation in _items(item):
            method = (_scalar(method_node) or "").lower()
            if method not in OPERATIONS:
                continue
            operation_id = _scalar(_mapping(operation).get("operationId")) or ""
            line = method_node.start_mark.line + 1
            facts["routes"].append([method.upper(), path, line, operation_id])
    return facts


def interface_of(facts: dict) -> bytes:
    """Nothing imports a document: what other files see of it is its operations (the
    services stage reads them from the resolution, not through dependents)."""
    return hashlib.blake2b(marshal.dumps([facts["routes"], facts["base"]]), digest_size=16).digest()


def _base_path(top: dict) -> str:
    servers = top.get("servers")
    if isinstance(servers, yaml.SequenceNode) and servers.value:
        url = _scalar(_mapping(servers.value[0]).get("url")) or ""
        return urlsplit(url).path if "//" in url else url
    return _scalar(top.get("basePath")) or ""


def _mapping(node: yaml.Node | None) -> dict[str, yaml.Node]:
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {key.value: value for key, value in node.value if isinstance(key, yaml.ScalarNode)}


def _items(node: yaml.Node | None) -> list[tuple[yaml.Node, yaml.Node]]:
    if not isinstance(node, yaml.MappingNode):
        return []
    return [(key, value) for key, value in node.value if isinstance(key, yaml.ScalarNode)]


def _scalar(node: yaml.Node | None) -> str | None:
    return node.value if isinstance(node, yaml.ScalarNode) else None
