"""HTTP routes and clients in TypeScript and JavaScript source, as facts (the `http` table of
an ECMA facts dict), in the shapes `cartograph.parsing.services` gives Python's.

Only syntax is read here: which calls *may* declare a route, mount a router or send a
request (by the callee's last name), and which decorators may declare a controller or a
route, with their arguments as values the resolver judges once it knows what the callee is
(`cartograph.resolve.ecma_services`). Strings are templates: literal texts and holes
(["v", expr, text]), so a template literal and a `+` concatenation give the same shape;
`process.env.X` and `import.meta.env.X` are the hole `env:X`.

Rows:
- ["call", scope, callee expr, [argument values], position, line, the name the call's value
  is bound to ("x", "this.x") or None]; a `new` expression is a call too.
- ["dec", decorated scope, callee expr, [argument values], line]: `@Get(":id")`.
- ["const", scope, name, template]: a module-level string (`const BASE = "http://..."`).

Values: ["t", template] | ["l", [values]] an array | ["e", expr] a name or member access |
["c", callee expr, [values], {}] a call | ["o", {key: value}] an object literal | ["f", scope]
a function written in place (-1 when it is anonymous: its code belongs to the enclosing scope)
| None.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cartograph.parsing.templates import PATH_PARAMETER, hole, is_environment, merged

if TYPE_CHECKING:
    from collections.abc import Callable

    from cartograph.parsing.nodes import Node

# the last name of a callee that may be a route, a router, a mount or a request
HTTP_CALLEES = frozenset(
    {
        # routes, routers and mounts (Express, Koa)
        "get", "post", "put", "patch", "delete", "del", "head", "options", "all", "use",
        "express", "Router", "routes", "setGlobalPrefix",
        # clients (fetch, axios)
        "fetch", "axios", "request", "create",
    }
)  # fmt: skip
# decorators that may be a NestJS controller or route
HTTP_DECORATORS = frozenset(
    {"Controller", "Get", "Post", "Put", "Patch", "Delete", "Head", "Options", "All"}
)
MAX_VALUE_DEPTH = 3
MAX_PARTS = 32
_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function", "generator_function"})


def _text(node: Node) -> str:
    return node.text.decode("utf-8", "replace") if node.text is not None else ""


class Values:
    """Encodes arguments as values; `expr_of` encodes names, `scope_of` knows which function
    nodes are scopes of their own."""

    def __init__(self, expr_of: Callable, scope_of: dict[int, int]) -> None:
        self.expr_of = expr_of
        self.scope_of = scope_of

    def arguments(self, call: Node) -> list:
        args = call.child_by_field_name("arguments")
        if args is None or args.type != "arguments":
            return []
        values: list = []
        for child in args.named_children:
            if child.type == "spread_element":
                break
            if child.type != "comment":
                values.append(self.value(child))
        return values

    def value(self, node: Node | None, depth: int = 0) -> list | None:
        if node is None or depth > MAX_VALUE_DEPTH:
            return None
        kind = node.type
        if kind in ("parenthesized_expression", "as_expression", "non_null_expression"):
            inner = node.named_children
            return self.value(inner[0], depth) if inner else None
        template = self.template(node)
        if template is not None and (
            any(isinstance(part, str) for part in template) or is_environment(template)
        ):
            return ["t", template]
        if kind == "array":
            return ["l", [self.value(child, depth + 1) for child in node.named_children]]
        if kind in ("identifier", "member_expression"):
            encoded = self.expr_of(node)
            return ["e", encoded] if encoded is not None else None
        if kind in ("call_expression", "new_expression"):
            field = "function" if kind == "call_expression" else "constructor"
            callee = self.expr_of(node.child_by_field_name(field))
            if callee is None:
                return None
            values = [self.value(a, depth + 1) for a in _argument_nodes(node)]
            return ["c", callee, values, {}]
        if kind == "object":
            found: dict = {}
            for prop in node.named_children:
                if prop.type == "pair":
                    key = _key(prop.child_by_field_name("key"))
                    if key is not None:
                        found[key] = self.value(prop.child_by_field_name("value"), depth + 1)
                elif prop.type == "shorthand_property_identifier":
                    found[_text(prop)] = ["e", ["n", _text(prop)]]
            return ["o", found]
        if kind in _FUNCTIONS:
            return ["f", self.scope_of.get(node.id, -1)]
        return None

    def template(self, node: Node | None) -> list | None:
        """A string expression as template parts, or None when it is not one."""
        if node is None:
            return None
        kind = node.type
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            return self.template(node.named_children[0])
        if kind == "string":
            return merged([_text(c) for c in node.named_children if c.type == "string_fragment"])
        if kind == "template_string":
            parts: list = []
            for child in node.named_children:
                if child.type == "string_fragment":
                    parts.append(_text(child))
                elif child.type == "escape_sequence":
                    parts.append(_text(child).encode().decode("unicode_escape", "replace"))
                elif child.type == "template_substitution":
                    inner = child.named_children[0] if child.named_child_count else None
                    if inner is None:
                        return None
                    parts.extend(self.template(inner) or self.hole(inner))
            return merged(parts) if len(parts) <= MAX_PARTS else None
        if kind == "binary_expression":
            operator = node.child_by_field_name("operator")
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if operator is None or operator.type != "+" or left is None or right is None:
                return None
            first = self.template(left) or self.hole(left)
            second = self.template(right) or self.hole(right)
            return merged([*first, *second])
        if kind == "member_expression":
            env = _environment_name(node)
            if env is not None:
                return [["v", None, f"env:{env}"]]
        if kind == "call_expression":
            return self._filled(node)
        return None

    def _filled(self, call: Node) -> list | None:
        """`"/pet/{petId}".replace("{petId}", value)` (how generated clients fill a path
        parameter): the string with that parameter a hole of the value, or None for any
        other call. Only a `{name}` written in the string is replaced."""
        callee = call.child_by_field_name("function")
        if callee is None or callee.type != "member_expression":
            return None
        receiver, prop = (
            callee.child_by_field_name("object"),
            callee.child_by_field_name("property"),
        )
        arguments = _argument_nodes(call)
        if prop is None or _text(prop) != "replace" or len(arguments) != 2:
            return None
        text, placeholder = self.template(receiver), self.template(arguments[0])
        if text is None or not placeholder or not all(isinstance(p, str) for p in placeholder):
            return None
        name = "".join(placeholder)
        if not PATH_PARAMETER.fullmatch(name):
            return None
        parts: list = []
        for part in text:
            if isinstance(part, str) and name in part:
                head, _, tail = part.partition(name)
                parts.extend([head, *self.hole(arguments[1]), tail])
            else:
                parts.append(part)
        return merged(parts)

    def hole(self, node: Node) -> list:
        encoded = self.expr_of(node) if node.type in ("identifier", "member_expression") else None
        text = _text(node)
        return hole(encoded, text)


def _argument_nodes(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    if args is None or args.type != "arguments":
        return []
    nodes = []
    for child in args.named_children:
        if child.type == "spread_element":
            break
        if child.type != "comment":
            nodes.append(child)
    return nodes


def _key(node: Node | None) -> str | None:
    if node is None:
        return None
    if node.type == "property_identifier":
        return _text(node)
    if node.type == "string":
        return "".join(_text(c) for c in node.named_children if c.type == "string_fragment")
    return None


def _environment_name(node: Node) -> str | None:
    """`process.env.X`, `process.env["X"]`, `import.meta.env.X`: the variable's name."""
    obj = node.child_by_field_name("object")
    prop = node.child_by_field_name("property")
    if obj is None or prop is None or obj.type != "member_expression":
        return None
    env = obj.child_by_field_name("property")
    holder = obj.child_by_field_name("object")
    if env is None or holder is None or _text(env) != "env":
        return None
    if _text(holder) in ("process", "import.meta"):
        return _text(prop)
    return None


_TRANSPARENT = frozenset(
    {"await_expression", "parenthesized_expression", "as_expression", "non_null_expression"}
)


def _chained(parent: Node, node: Node) -> bool:
    """`const app = module.exports = express()`: an assignment whose value is assigned on."""
    outer = parent.parent
    return (
        parent.type == "assignment_expression"
        and parent.child_by_field_name("right") == node
        and outer is not None
        and outer.type in ("variable_declarator", "assignment_expression")
    )


def assigned_name(call: Node) -> str | None:
    """The name a call's value is bound to: `const x = call()`, `x = call()`,
    `this.x = call()` (through `await` and parentheses)."""
    node = call
    parent = node.parent
    while parent is not None and (parent.type in _TRANSPARENT or _chained(parent, node)):
        node, parent = parent, parent.parent
    if parent is None:
        return None
    if parent.type == "variable_declarator" and parent.child_by_field_name("value") == node:
        name = parent.child_by_field_name("name")
        return _text(name) if name is not None and name.type == "identifier" else None
    if parent.type in ("assignment_expression", "public_field_definition", "field_definition"):
        if parent.type == "assignment_expression":
            left = parent.child_by_field_name("left")
        else:
            left = parent.child_by_field_name("name") or parent.child_by_field_name("property")
            return f"this.{_text(left)}" if left is not None else None
        if left is None or parent.child_by_field_name("right") != node:
            return None
        if left.type == "identifier":
            return _text(left)
        if left.type == "member_expression":
            obj, prop = left.child_by_field_name("object"), left.child_by_field_name("property")
            if obj is not None and obj.type == "this" and prop is not None:
                return f"this.{_text(prop)}"
    return None
