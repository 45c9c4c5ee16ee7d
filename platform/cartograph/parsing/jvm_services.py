"""Spring's HTTP routes and requests in Java source, as facts (the `http` table of a Java
facts dict of the by-name tier), in the value shapes `cartograph.parsing.services` gives
Python's; `cartograph.resolve.jvm_services` judges them.

Rows:
- ["ann", definition, annotation name, {element: value}]: a mapping annotation of a class,
  an interface or a method (`@GetMapping("/{id}")`: {"value": ...}); the annotations read
  are ANNOTATIONS;
- ["call", enclosing definition, receiver text, method name, [argument values], line]: a
  call of one of RestTemplate's request methods (`restTemplate.getForObject(url, ...)`);
- ["const", name, template]: a string field (`static final String BASE = "http://..."`).

Values: ["t", template] | ["l", [values]] an array | ["e", expr] a name or field access
(`RequestMethod.POST`) | None.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cartograph.parsing.templates import hole, merged

if TYPE_CHECKING:
    from cartograph.parsing.nodes import Node

ANNOTATIONS = frozenset(
    {
        "RestController", "Controller", "RequestMapping", "GetMapping", "PostMapping",
        "PutMapping", "DeleteMapping", "PatchMapping", "FeignClient",
    }
)  # fmt: skip
# RestTemplate's methods that send a request, by a name nothing else commonly has
CLIENT_CALLS = frozenset(
    {"getForObject", "getForEntity", "postForObject", "postForEntity", "postForLocation",
     "patchForObject", "exchange"}
)  # fmt: skip
MAX_DEPTH = 4


def _text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def mapping_annotations(definition: int, node: Node) -> list[list]:
    """The mapping annotations of a class, interface or method declaration."""
    modifiers = next((c for c in node.named_children if c.type == "modifiers"), None)
    rows = []
    for annotation in modifiers.named_children if modifiers is not None else []:
        if annotation.type not in ("annotation", "marker_annotation"):
            continue
        name = _text(annotation.child_by_field_name("name")).rpartition(".")[2]
        if name not in ANNOTATIONS:
            continue
        elements: dict = {}
        arguments = annotation.child_by_field_name("arguments")
        for item in arguments.named_children if arguments is not None else []:
            if item.type == "element_value_pair":
                key = _text(item.child_by_field_name("key"))
                elements[key] = value_of(item.child_by_field_name("value"))
            elif item.type != "comment":
                elements["value"] = value_of(item)
        rows.append(["ann", definition, name, elements])
    return rows


def fields(node: Node) -> list[list]:
    """The string fields of a class body (`static final String BASE = "..."`)."""
    body = node.child_by_field_name("body")
    rows = []
    for member in body.named_children if body is not None else []:
        if member.type != "field_declaration":
            continue
        for declarator in member.children_by_field_name("declarator"):
            template = template_of(declarator.child_by_field_name("value"))
            if template is not None and any(isinstance(p, str) and p for p in template):
                rows.append(["const", _text(declarator.child_by_field_name("name")), template])
    return rows


def call_row(call: Node, name: str, receiver: str | None, enclosing: int) -> list:
    arguments = call.child_by_field_name("arguments")
    values = [
        value_of(a) for a in (arguments.named_children if arguments is not None else [])
        if a.type != "comment"
    ]  # fmt: skip
    return ["call", enclosing, receiver, name, values, call.start_point[0] + 1]


def value_of(node: Node | None, depth: int = 0) -> list | None:
    if node is None or depth > MAX_DEPTH:
        return None
    template = template_of(node)
    if template is not None and any(isinstance(p, str) for p in template):
        return ["t", template]
    if node.type == "element_value_array_initializer":
        return ["l", [value_of(c, depth + 1) for c in node.named_children]]
    if node.type in ("identifier", "field_access"):
        return ["e", _expr(node)]
    return None


def _expr(node: Node) -> list | None:
    if node.type == "identifier":
        return ["n", _text(node)]
    if node.type == "field_access":
        base = node.child_by_field_name("object")
        field = node.child_by_field_name("field")
        inner = _expr(base) if base is not None else None
        return ["a", inner, _text(field)] if inner is not None else None
    return None


def template_of(node: Node | None, depth: int = 0) -> list | None:
    """A string expression (a literal, a `+` concatenation) as template parts, or None."""
    if node is None or depth > MAX_DEPTH * 4:
        return None
    if node.type == "string_literal":
        parts = [_text(c) for c in node.named_children if c.type == "string_fragment"]
        return merged(parts)
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return template_of(node.named_children[0], depth + 1)
    if node.type == "binary_expression":
        operator = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if operator is None or _text(operator) != "+" or left is None or right is None:
            return None
        first = template_of(left, depth + 1) or _hole(left)
        second = template_of(right, depth + 1) or _hole(right)
        return merged([*first, *second])
    return None


def _hole(node: Node) -> list:
    encoded = _expr(node) if node.type in ("identifier", "field_access") else None
    text = _text(node)
    return hole(encoded, text)
