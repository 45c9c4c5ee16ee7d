"""HTTP routes and clients in Go source, as facts (the `http` table of a Go facts dict of the
by-name tier), in the value shapes `cartograph.parsing.services` gives Python's.

Only syntax is read here: which calls *may* declare a route, a router or a request (by the
callee's last name), with their arguments as values `cartograph.resolve.go_services` judges
once it knows which package the callee comes from. Strings are templates: a literal (either
quoting), a `+` concatenation and `fmt.Sprintf` give the same shape; `os.Getenv("X")` is the
hole `env:X`.

Rows:
- ["call", enclosing definition (-1: the file level), callee expr, [argument values], line,
  the name its value is bound to (`r := chi.NewRouter()`) or None, byte position, [the
  callee its value is passed to, at which position] or None];
- ["const", name, template]: a package-level string constant or variable;
- ["params", line, [[name, type text]]]: the parameters of a function declared at that line,
  when one has a package's type (`func Register(router *gin.RouterGroup)`).

Expressions: ["n", name] | ["a", base, field] | ["c", callee, [values], {}] | None.
Values: ["t", template] | ["e", expr] | ["c", callee, [values], {}] | ["f", [[parameter,
its type's text]], start byte, end byte] (a function literal: its code belongs to the
enclosing definition) | None.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from cartograph.parsing.templates import hole, is_environment, merged

if TYPE_CHECKING:
    from cartograph.parsing.nodes import Node

# the last name of a callee that may be a route, a router, a mount or a request
HTTP_CALLEES = frozenset(
    {
        # gin, echo (upper case), chi (title case), net/http, gorilla/mux
        "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "Any", "Group",
        "Get", "Post", "Put", "Patch", "Delete", "Head", "Options", "Method", "MethodFunc",
        "Handle", "HandleFunc", "Route", "Mount", "NewRouter", "NewServeMux", "Default",
        "New",
        # clients (net/http)
        "NewRequest", "NewRequestWithContext", "PostForm",
    }
)  # fmt: skip
MAX_DEPTH = 3
MAX_PARTS = 32
_VERB = re.compile(r"%[-+# 0]*\d*(?:\.\d+)?[a-zA-Z%]")


def _text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def expr_of(node: Node | None, depth: int = 0) -> list | None:
    if node is None or depth > MAX_DEPTH * 4:
        return None
    if node.type == "identifier":
        return ["n", _text(node)]
    if node.type == "selector_expression":
        base = expr_of(node.child_by_field_name("operand"), depth + 1)
        field = node.child_by_field_name("field")
        return ["a", base, _text(field)] if base is not None and field is not None else None
    if node.type == "call_expression":
        callee = expr_of(node.child_by_field_name("function"), depth + 1)
        if callee is None:
            return None
        return ["c", callee, [value_of(a, depth + 1) for a in _arguments(node)], {}]
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return expr_of(node.named_children[0], depth)
    return None


def _arguments(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    if args is None:
        return []
    return [c for c in args.named_children if c.type != "comment"]


def call_row(call: Node, enclosing: int) -> list | None:
    """The row of a call whose callee's last name is one of HTTP_CALLEES."""
    callee = expr_of(call.child_by_field_name("function"))
    if callee is None:
        return None
    values = [value_of(a) for a in _arguments(call)]
    line = call.start_point[0] + 1
    row = ["call", enclosing, callee, values, line, assigned_name(call), call.start_byte]
    return [*row, passed_to(call)]


def passed_to(call: Node) -> list | None:
    """`users.Register(v1.Group("/users"))`: the callee a call's value is passed to, and at
    which position, or None."""
    holder = call.parent
    outer = holder.parent if holder is not None else None
    if holder is None or holder.type != "argument_list" or outer is None:
        return None
    if outer.type != "call_expression":
        return None
    callee = expr_of(outer.child_by_field_name("function"))
    arguments = [c for c in holder.named_children if c.type != "comment"]
    index = next((i for i, c in enumerate(arguments) if c == call), None)
    return [callee, index] if callee is not None and index is not None else None


def value_of(node: Node | None, depth: int = 0) -> list | None:
    if node is None or depth > MAX_DEPTH:
        return None
    template = template_of(node, depth)
    if template is not None and (
        any(isinstance(p, str) for p in template) or is_environment(template)
    ):
        return ["t", template[:MAX_PARTS]]
    if node.type in ("identifier", "selector_expression"):
        encoded = expr_of(node)
        return ["e", encoded] if encoded is not None else None
    if node.type == "call_expression":
        return expr_of(node, depth)
    if node.type == "func_literal":
        params = node.child_by_field_name("parameters")
        found = []
        for declaration in params.named_children if params is not None else []:
            typ = _text(declaration.child_by_field_name("type"))
            for name in declaration.children_by_field_name("name"):
                found.append([_text(name), typ])
        return ["f", found, node.start_byte, node.end_byte]
    if node.type == "unary_expression" and node.named_child_count == 1:
        return value_of(node.named_children[0], depth)
    return None


def template_of(node: Node | None, depth: int = 0) -> list | None:
    """A string expression as template parts, or None when it is not one."""
    if node is None or depth > MAX_DEPTH * 4:
        return None
    kind = node.type
    if kind in ("interpreted_string_literal", "raw_string_literal"):
        parts = []
        for child in node.named_children:
            if child.type.endswith("_content"):
                parts.append(_text(child))
            elif child.type == "escape_sequence":
                parts.append(_text(child).encode().decode("unicode_escape", "replace"))
        return merged(parts)
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return template_of(node.named_children[0], depth)
    if kind == "binary_expression":
        operator = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if operator is None or _text(operator) != "+" or left is None or right is None:
            return None
        first = template_of(left, depth + 1) or _hole(left)
        second = template_of(right, depth + 1) or _hole(right)
        return merged([*first, *second])
    if kind == "call_expression":
        callee = _text(node.child_by_field_name("function"))
        args = _arguments(node)
        if callee == "os.Getenv" and len(args) == 1:
            name = template_of(args[0], depth + 1)
            if name and len(name) == 1 and isinstance(name[0], str):
                return [["v", None, f"env:{name[0]}"]]
        if callee == "fmt.Sprintf" and args:
            return _formatted(args[0], args[1:], depth)
    return None


def _formatted(format_node: Node, values: list[Node], depth: int) -> list | None:
    """`fmt.Sprintf("%s/users/%d", base, id)`: each verb filled with its value's parts."""
    format_parts = template_of(format_node, depth + 1)
    if format_parts is None or not all(isinstance(p, str) for p in format_parts):
        return None
    text = "".join(format_parts)
    verbs = [m for m in _VERB.finditer(text) if m.group(0) != "%%"]
    filled: list = []
    last = 0
    for index, match in enumerate(verbs):
        filled.append(text[last : match.start()])
        if len(verbs) == len(values):
            filled.extend(template_of(values[index], depth + 1) or _hole(values[index]))
        else:
            filled.append(["v", None, match.group(0)])
        last = match.end()
    filled.append(text[last:].replace("%%", "%"))
    return merged(filled)


def _hole(node: Node) -> list:
    encoded = expr_of(node) if node.type in ("identifier", "selector_expression") else None
    text = _text(node)
    return hole(encoded, text)


def assigned_name(call: Node) -> str | None:
    """`r := chi.NewRouter()`, `var r = ...`, `r = ...`: the name bound to a call's value
    (the first of several: `req, err := http.NewRequest(...)`)."""
    values = call.parent
    if values is None or values.type != "expression_list":
        return None
    holder = values.parent
    if holder is None or values.named_children[0] != call:
        return None
    if holder.type in ("short_var_declaration", "assignment_statement"):
        left = holder.child_by_field_name("left")
        names = left.named_children if left is not None else []
        return _text(names[0]) if names and names[0].type == "identifier" else None
    if holder.type == "var_spec":
        name = holder.child_by_field_name("name")
        return _text(name) if name is not None else None
    return None


def parameters(declaration: Node) -> list | None:
    """["params", line, [[name, type], ...]] of a function or method whose parameters have a
    package's type (`router *gin.RouterGroup`), else None."""
    params = declaration.child_by_field_name("parameters")
    found = []
    for item in params.named_children if params is not None else []:
        typ = _text(item.child_by_field_name("type"))
        for name in item.children_by_field_name("name"):
            found.append([_text(name), typ])
    if not any("." in typ for _name, typ in found):
        return None
    return ["params", declaration.start_point[0] + 1, found]


def constants(root: Node) -> list[list]:
    """The package-level string constants and variables of a file, and the parameters of its
    functions that have a package's type (a router passed in)."""
    rows = []
    for declaration in root.named_children:
        if declaration.type in ("function_declaration", "method_declaration"):
            found = parameters(declaration)
            if found is not None:
                rows.append(found)
            continue
        if declaration.type not in ("const_declaration", "var_declaration"):
            continue
        for spec in declaration.named_children:
            if spec.type not in ("const_spec", "var_spec"):
                continue
            names = spec.children_by_field_name("name")
            value = spec.child_by_field_name("value")
            items = value.named_children if value is not None else []
            for name, item in zip(names, items, strict=False):
                template = template_of(item)
                if template is not None and any(isinstance(p, str) and p for p in template):
                    rows.append(["const", _text(name), template])
    return rows
