"""HTTP routes and clients in Python source, as facts (the `http` table of a Python facts dict).

Only syntax is read here: which calls *may* declare a route, mount a router or send a request
(by the callee's last name), with their arguments encoded as values the resolver can judge
once it knows what the callee is (`cartograph.resolve.services`). Strings are kept as
templates: a list of parts, each a literal text or a hole (["v", expr, text]: a name, an
attribute, an `os.environ` lookup, anything else as None with its text), so an f-string, a
`+` concatenation and a `%` format all give the same shape.

A row: ["call", lookup scope, source scope, callee expr, positional values, keyword values,
position, line, the scope a decorator call decorates (-1 when not a decorator), the name it
is assigned to ("x", "self.x"; a `with ... as x` target) or None].
["const", scope, name, template]: a module- or class-level string (`BASE = "http://..."`).
["list", scope, name, value]: a module- or class-level list of Starlette route entries
(`routes = [Route("/", home), Mount("/api", routes=[...])]`).

Values: ["t", template] a string | ["l", [values]] a list or tuple | ["e", expr] a name or
attribute | ["c", callee expr, [values], {keyword: value}] a call | None (anything else).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from cartograph.parsing.templates import merged

if TYPE_CHECKING:
    from cartograph.parsing.nodes import Node

# the last name of a callee that may be a route, a router, a mount or a request
HTTP_CALLEES = frozenset(
    {
        # routes and routers
        "get", "post", "put", "patch", "delete", "head", "options", "route", "api_route",
        "websocket", "add_api_route", "add_url_rule", "add_route", "include_router",
        "register_blueprint", "mount", "path", "re_path", "url", "include", "FastAPI",
        "APIRouter", "Flask", "Blueprint", "Starlette", "Router", "Route", "Mount",
        "WebSocketRoute",
        # clients
        "request", "stream", "urlopen", "Request", "Client", "AsyncClient", "Session",
        "ClientSession",
        # clients that OpenAPI Generator writes (their ApiClient sends every request)
        "call_api", "param_serialize",
    }
)  # fmt: skip
MAX_VALUE_DEPTH = 6  # a Starlette table: a list of Mount(routes=[Route(...)])
MAX_PARTS = 32
_PERCENT_HOLE = re.compile(r"%(?:\([A-Za-z_]\w*\))?[-#0 +]*\d*(?:\.\d+)?[sdifr]")


def _text(node: Node) -> str:
    return node.text.decode("utf-8", "replace") if node.text is not None else ""


ROUTE_ENTRIES = frozenset({"Route", "Mount", "WebSocketRoute"})


def holds_routes(node: Node) -> bool:
    """A list literal with a `Route(...)`, `Mount(...)` or `WebSocketRoute(...)` in it."""
    for child in node.named_children:
        if child.type == "call":
            callee = child.child_by_field_name("function")
            name = _text(callee).rpartition(".")[2] if callee is not None else ""
            if name in ROUTE_ENTRIES:
                return True
    return False


def value_of(node: Node | None, expr_of, depth: int = 0) -> list | None:
    """An argument as a value (see the module's docstring); `expr_of` encodes names."""
    if node is None or depth > MAX_VALUE_DEPTH:
        return None
    kind = node.type
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return value_of(node.named_children[0], expr_of, depth)
    template = template_of(node, expr_of)
    if template is not None and any(isinstance(part, str) for part in template):
        return ["t", template]
    if kind in ("list", "tuple"):
        return ["l", [value_of(child, expr_of, depth + 1) for child in node.named_children]]
    if kind in ("identifier", "attribute"):
        encoded = expr_of(node)
        return ["e", encoded] if encoded is not None else None
    if kind == "call":
        callee = expr_of(node.child_by_field_name("function"))
        if callee is None:
            return None
        positional, keywords = arguments_of(node, expr_of, depth + 1)
        return ["c", callee, positional, keywords]
    return None


def arguments_of(call: Node, expr_of, depth: int = 0) -> tuple[list, dict]:
    """A call's positional and keyword arguments as values (positions after `*args` stop)."""
    positional: list = []
    keywords: dict = {}
    args = call.child_by_field_name("arguments")
    if args is None or args.type != "argument_list":
        return positional, keywords
    for child in args.named_children:
        if child.type == "keyword_argument":
            name = child.child_by_field_name("name")
            if name is not None:
                keywords[_text(name)] = value_of(child.child_by_field_name("value"), expr_of, depth)
        elif child.type in ("list_splat", "dictionary_splat"):
            break
        elif child.type != "comment":
            positional.append(value_of(child, expr_of, depth))
    return positional, keywords


def template_of(node: Node | None, expr_of) -> list | None:
    """A string expression as template parts, or None when it is not one."""
    if node is None:
        return None
    kind = node.type
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return template_of(node.named_children[0], expr_of)
    if kind == "string":
        return _string_parts(node, expr_of)
    if kind == "concatenated_string":
        parts: list = []
        for child in node.named_children:
            piece = _string_parts(child, expr_of) if child.type == "string" else None
            if piece is None:
                return None
            parts.extend(piece)
        return merged(parts)
    if kind == "binary_operator":
        operator = node.child_by_field_name("operator")
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if operator is None or left is None or right is None:
            return None
        if operator.type == "+":
            first = template_of(left, expr_of) or _hole(left, expr_of)
            second = template_of(right, expr_of) or _hole(right, expr_of)
            return merged([*first, *second])
        if operator.type == "%":
            format_parts = template_of(left, expr_of)
            if format_parts is None:
                return None
            values = right.named_children if right.type == "tuple" else [right]
            holes = sum(
                len(_PERCENT_HOLE.findall(part)) for part in format_parts if isinstance(part, str)
            )
            filled: list = []
            taken = 0
            for part in format_parts:
                if not isinstance(part, str):
                    filled.append(part)
                    continue
                last = 0
                for match in _PERCENT_HOLE.finditer(part):
                    filled.append(part[last : match.start()])
                    if holes == len(values):  # each hole's value is known
                        filled.extend(_hole(values[taken], expr_of))
                    else:
                        filled.append(["v", None, match.group(0)])
                    taken += 1
                    last = match.end()
                filled.append(part[last:])
            return merged(filled)
        return None
    if kind == "call":  # os.environ.get("X", ...), os.getenv("X"): a named hole
        callee = node.child_by_field_name("function")
        name = _text(callee) if callee is not None else ""
        if name in ("os.environ.get", "os.getenv", "environ.get", "getenv"):
            args = node.child_by_field_name("arguments")
            named = args.named_children if args is not None else []
            literal = _string_parts(named[0], expr_of) if named else None
            if literal and len(literal) == 1 and isinstance(literal[0], str):
                return [["v", None, f"env:{literal[0]}"]]
        return None
    if kind == "subscript":  # os.environ["X"]
        value = node.child_by_field_name("value")
        index = node.child_by_field_name("subscript")
        if value is not None and _text(value) in ("os.environ", "environ") and index is not None:
            literal = _string_parts(index, expr_of) if index.type == "string" else None
            if literal and len(literal) == 1 and isinstance(literal[0], str):
                return [["v", None, f"env:{literal[0]}"]]
    return None


def _hole(node: Node, expr_of) -> list:
    encoded = expr_of(node) if node.type in ("identifier", "attribute") else None
    return [["v", encoded, _text(node)[:120]]]


def _string_parts(node: Node, expr_of) -> list | None:
    """A string literal or f-string: its text, each interpolation a hole."""
    if node.type != "string":
        return None
    parts: list = []
    for child in node.children:
        if child.type == "string_content":
            parts.append(_text(child))
        elif child.type == "escape_sequence":
            parts.append(_text(child).encode().decode("unicode_escape", "replace"))
        elif child.type == "interpolation":
            inner = child.named_children[0] if child.named_child_count else None
            if inner is None:
                return None
            parts.append(_hole(inner, expr_of)[0])
    if len(parts) > MAX_PARTS:
        return None
    return merged(parts) if parts else [""]


def decorated_definition(call: Node) -> Node | None:
    """The `def` a call decorates (`@router.get("/x")`), or None."""
    parent = call.parent
    if parent is None or parent.type != "decorator":
        return None
    holder = parent.parent
    if holder is None or holder.type != "decorated_definition":
        return None
    return holder.child_by_field_name("definition")


def assigned_name(call: Node) -> str | None:
    """The name a call's value is bound to: `x = call(...)`, `self.x = call(...)`, `with
    call(...) as x` (`async with` too)."""
    node = call
    parent = node.parent
    while parent is not None and parent.type in ("await", "parenthesized_expression"):
        node, parent = parent, parent.parent
    if parent is None:
        return None
    if parent.type == "assignment" and parent.child_by_field_name("right") == node:
        left = parent.child_by_field_name("left")
        if left is not None and left.type in ("identifier", "attribute"):
            return _text(left)
    if parent.type == "as_pattern":
        alias = parent.child_by_field_name("alias")
        target = alias.named_children[0] if alias is not None and alias.named_child_count else None
        if target is not None and target.type in ("identifier", "attribute"):
            return _text(target)
    return None
