"""Python facts extraction with tree-sitter's Query API.

`extract(source)` returns a `facts` dict of plain lists, strings and numbers (it crosses process
boundaries and is stored compressed beside the file). It knows nothing of module names, stores
or other files: qualnames are relative to the module ("Class.method"), and the resolver
(`cartograph.resolve.python`) turns facts into symbols and edges.

The layout of the facts (every table and every position of its rows) is written down in
`cartograph.parsing.facts`.
"""

from __future__ import annotations

import marshal
import re
from bisect import bisect_right
from functools import cache
from typing import TYPE_CHECKING, Any, cast

import tree_sitter
from cartograph.languages import grammar, query_text
from cartograph.parsing import services
from cartograph.parsing.facts import (
    ATTR_SCOPE,
    BINDING_NAME,
    BINDING_POS,
    BINDING_SCOPE,
    BINDING_VALUE,
    IMPORT_LEVEL,
    IMPORT_MODULE,
    IMPORT_NAMES,
    IMPORT_SCOPE,
    REF_POS,
    RETURN_EXPR,
    RETURN_SCOPE,
    SCOPE_BASES,
    SCOPE_DECORATORS,
    SCOPE_DOC,
    SCOPE_END,
    SCOPE_KIND,
    SCOPE_NAME,
    SCOPE_PARENT,
    SCOPE_QUALNAME,
    SCOPE_RETURNS,
    chained_calls,
)

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from cartograph.parsing.nodes import Captures, Node

FACTS_VERSION = 12
MAX_TEXT = 120
MAX_DEPTH = 48  # expression nesting followed; deeper chains (generated code) stay unknown
MAX_SIGNATURE = 300
_WS = re.compile(r"\s+")
_DOTTED = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*){1,48}")
# a module- or class-level assignment of one of these is a `variable` symbol
_VARIABLE_VALUES = frozenset({"call", "lambda", "identifier", "attribute", "await"})
# where an attribute is a value ref ("r", see the query): its own parent, or the parent's
# "value" field
_VALUE_REF_PARENTS = frozenset(
    {"argument_list", "return_statement", "list", "tuple", "set", "expression_list"}
)
_VALUE_REF_FIELDS = frozenset(
    {"keyword_argument", "pair", "default_parameter", "typed_default_parameter"}
)
# arguments that may be callable values (a function, a method, a class, a lambda, a display)
_PASSED = frozenset({"identifier", "attribute", "lambda", "list", "tuple", "set", "dictionary"})
_MUTATORS = frozenset({"append", "add", "appendleft", "insert", "setdefault", "extend", "update"})
# builtins that call a dunder method of their one argument
_BUILTIN_PROTOCOLS = {
    "len": "__len__",
    "iter": "__iter__",
    "next": "__next__",
    "bool": "__bool__",
    "str": "__str__",
    "repr": "__repr__",
    "hash": "__hash__",
    "abs": "__abs__",
    "reversed": "__reversed__",
}
_OPERATORS = {
    "+": "__add__",
    "-": "__sub__",
    "*": "__mul__",
    "@": "__matmul__",
    "/": "__truediv__",
    "//": "__floordiv__",
    "%": "__mod__",
    "**": "__pow__",
    "<<": "__lshift__",
    ">>": "__rshift__",
    "&": "__and__",
    "|": "__or__",
    "^": "__xor__",
    "==": "__eq__",
    "!=": "__ne__",
    "<": "__lt__",
    "<=": "__le__",
    ">": "__gt__",
    ">=": "__ge__",
}


@cache
def _query() -> tree_sitter.Query:
    """queries/python.scm (as listed in the language registry)."""
    return tree_sitter.Query(grammar("python"), query_text("python"))


@cache
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(grammar("python"))


def _text(node: Node) -> str:
    return node.text.decode("utf-8", "replace")


def _short(node: Node, limit: int = MAX_TEXT) -> str:
    raw = node.text
    if len(raw) <= limit and b"\n" not in raw and b"  " not in raw:
        return raw.decode("utf-8", "replace")
    text = _WS.sub(" ", raw.decode("utf-8", "replace")).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---------------------------------------------------------------- expressions and types


def _cast_value(func: list, args: Node, depth: int) -> list | None:
    """The value of `cast(T, value)` (any function named `cast` called with two positional
    arguments: the resolver follows it only when the callee is `typing.cast`)."""
    name = func[1] if func[0] == "n" else func[2] if func[0] == "a" else ""
    if name != "cast":
        return None
    positional = [c for c in args.named_children if c.type not in _NOT_POSITIONAL]
    return expr_of(positional[1], depth + 1) if len(positional) == 2 else None


def _typevar_bound(args: Node, depth: int) -> list | None:
    """The `bound=` of `TypeVar("T", bound=Base)`, as a type; None without one."""
    for child in args.named_children:
        if child.type == "keyword_argument":
            name = child.child_by_field_name("name")
            if name is not None and _text(name) == "bound":
                return type_of(child.child_by_field_name("value"), depth + 1)
    return None


_NOT_POSITIONAL = frozenset(("keyword_argument", "comment", "list_splat", "dictionary_splat"))


def expr_of(node: Node | None, depth: int = 0) -> list | None:
    """Encode an expression a resolver can follow: names, attributes, calls, subscripts.
    Chains deeper than MAX_DEPTH are left unknown (they only come from generated code)."""
    if node is None or depth > MAX_DEPTH:
        return None
    kind = node.type
    if kind == "identifier":
        return ["n", _text(node)]
    if kind == "attribute":
        raw = node.text
        if _DOTTED.fullmatch(raw):  # the common case, without walking the nodes
            parts = raw.decode("utf-8").split(".")
            encoded: list = ["n", parts[0]]
            for part in parts[1:]:
                encoded = ["a", encoded, part]
            return encoded
        base = expr_of(node.child_by_field_name("object"), depth + 1)
        attr = node.child_by_field_name("attribute")
        if base is None or attr is None:
            return None
        return ["a", base, _text(attr)]
    if kind == "call":
        func = expr_of(node.child_by_field_name("function"), depth + 1)
        if func is None:
            return None
        first = None
        key = None
        args = node.child_by_field_name("arguments")
        if args is not None and args.type == "argument_list":
            for child in args.named_children:
                if child.type in ("identifier", "attribute", "subscript"):
                    first = expr_of(child, depth + 1)
                else:
                    key = literal_key(child)
                break
            if func == ["n", "getattr"]:
                key = _attribute_name(args)
                if first is not None and key is not None and not key.endswith("*"):
                    return ["a", first, key]  # getattr(obj, "name"): obj.name
            cast = _cast_value(func, args, depth)
            if cast is not None:  # `cast(T, value)`: the value too, if `T` says nothing
                return ["c", func, first, key, cast]
            if (func[1] if func[0] == "n" else func[2] if func[0] == "a" else "") == "TypeVar":
                return ["tv", _typevar_bound(args, depth)]
        return ["c", func, first] if key is None else ["c", func, first, key]
    if kind == "subscript":
        base = expr_of(node.child_by_field_name("value"), depth + 1)
        if base is None:
            return None
        index = node.child_by_field_name("subscript")
        key = literal_key(index) if index is not None else None
        return ["i", base] if key is None else ["i", base, key]
    if kind in _DISPLAYS:
        return _box(node, depth)
    if kind == "binary_operator":
        operator = node.child_by_field_name("operator")
        dunder = _OPERATORS.get(operator.type) if operator is not None else None
        left = expr_of(node.child_by_field_name("left"), depth + 1) if dunder else None
        return ["op", left, dunder] if left is not None else None
    if kind == "lambda":
        return ["lam", _lambda_calls(node, depth)]
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return expr_of(node.named_children[0], depth + 1)
    if kind == "await":
        return expr_of(node.named_children[0], depth + 1) if node.named_child_count else None
    return None


_DISPLAYS = frozenset({"list", "tuple", "set", "dictionary", "expression_list"})
MAX_ITEMS = 256  # elements of one container display kept (a larger one stays unknown)


def _attribute_name(args: Node) -> str | None:
    """The name `getattr(obj, name)` looks up: a string literal, or "prefix*" for a literal
    prefix joined to a computed rest (`"visit_" + kind`, f"visit_{kind}"); None otherwise."""
    values = [c for c in args.named_children if c.type != "comment"]
    if len(values) < 2:
        return None
    name = values[1]
    found = literal_key(name)
    if isinstance(found, str):
        return found
    operator = name.child_by_field_name("operator")
    if name.type == "binary_operator" and operator is not None and _text(operator) == "+":
        left = literal_key(name.child_by_field_name("left"))
        return f"{left}*" if isinstance(left, str) and left else None
    if name.type == "string":  # an f-string: the literal before its first interpolation
        parts = [c for c in name.named_children if c.type not in ("string_start", "string_end")]
        if len(parts) > 1 and parts[0].type == "string_content":
            return f"{_text(parts[0])}*"
    return None


def _parameter_names(node: Node) -> list[str]:
    """The parameter names of `parametrize`'s first argument: "a, b", or a list or tuple of
    strings."""
    if node.type == "string":
        text = literal_key(node)
        return [n.strip() for n in text.split(",") if n.strip()] if isinstance(text, str) else []
    if node.type in ("list", "tuple"):
        names = [literal_key(c) for c in node.named_children]
        return (
            [n for n in names if isinstance(n, str)]
            if all(isinstance(n, str) for n in names)
            else []
        )
    return []


def literal_key(node: Node | None) -> str | int | None:
    """A subscript or a first argument that is a plain string or integer literal."""
    if node is None:
        return None
    if node.type == "integer":
        try:
            return int(_text(node), 0)
        except ValueError:
            return None
    if node.type == "string" and all(
        c.type in ("string_start", "string_content", "string_end") for c in node.children
    ):
        return "".join(_text(c) for c in node.named_children if c.type == "string_content")
    return None


def _box(node: Node, depth: int) -> list | None:
    """A container display as ["box", [[key, expr], ...]]: a dict's literal keys (None when
    computed), a sequence's positions; None when no element is a value the resolver follows."""
    children = node.named_children
    if len(children) > MAX_ITEMS:
        return None
    items: list = []
    followed = False
    for position, child in enumerate(children):
        if child.type == "pair":
            key = literal_key(child.child_by_field_name("key"))
            value = expr_of(child.child_by_field_name("value"), depth + 1)
        elif child.type == "comment":
            continue
        elif child.type in ("list_splat", "dictionary_splat"):
            return None  # `[*a, f]`: positions and keys are no longer known
        else:
            key = position if node.type in ("list", "tuple", "expression_list") else None
            value = expr_of(child, depth + 1)
        followed = followed or value is not None
        items.append([key, value])
    # a display of literals only is an empty box: what is stored into it later still counts
    return ["box", items if followed else []]


def _lambda_calls(node: Node, depth: int) -> list:
    """The callees a lambda's body calls, with their positions: [[expr, pos], ...]; a call
    of one of its own positional parameters is ["param", index] (`lambda f: f()`: what the
    caller passes there)."""
    body = node.child_by_field_name("body")
    parameters = node.child_by_field_name("parameters")
    own = [  # by position; None for a parameter that is not a plain name
        _text(p) if p.type == "identifier" else None
        for p in (parameters.named_children if parameters is not None else ())
    ]
    calls: list = []
    pending = [body] if body is not None else []
    while pending and len(calls) < 16:
        current = pending.pop()
        if current.type == "call":
            function = current.child_by_field_name("function")
            if function is not None and function.type == "identifier" and _text(function) in own:
                calls.append([["param", own.index(_text(function))], current.start_byte])
                pending.extend(reversed(current.named_children))
                continue
            callee = expr_of(function, depth + 1)
            if callee is not None:
                calls.append([callee, current.start_byte])
        if current.type != "lambda":
            pending.extend(reversed(current.named_children))
    return calls


def type_of(node: Node | None, depth: int = 0) -> list | None:
    """Encode a type annotation (also string annotations, unions and generics)."""
    if node is None or depth > MAX_DEPTH:
        return None
    kind = node.type
    if kind == "type":
        return type_of(node.named_children[0], depth + 1) if node.named_child_count else None
    if kind in ("identifier", "attribute"):
        return expr_of(node, depth)
    if kind == "none":
        return ["none"]
    if kind == "generic_type":
        children = node.named_children
        if not children:
            return None
        base = type_of(children[0], depth + 1)
        args: list = []
        for child in children[1:]:
            if child.type == "type_parameter":
                args.extend(type_of(t, depth + 1) for t in child.named_children)
        return ["g", base, args] if base is not None else None
    if kind == "subscript":
        base = expr_of(node.child_by_field_name("value"), depth + 1)
        subs = [c for c in node.children_by_field_name("subscript")]
        args = []
        for sub in subs:
            if sub.type == "tuple":
                args.extend(type_of(c, depth + 1) for c in sub.named_children)
            else:
                args.append(type_of(sub, depth + 1))
        return ["g", base, args] if base is not None else None
    if kind in ("union_type", "binary_operator"):
        if kind == "binary_operator":
            op = node.child_by_field_name("operator")
            if op is None or op.type != "|":
                return None
            parts: Sequence[Node | None] = [
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            ]
        else:
            parts = node.named_children
        alternatives: list = []
        for part in parts:
            encoded = type_of(part, depth + 1)
            if encoded is not None and encoded[0] == "u":
                alternatives.extend(encoded[1])
            else:
                alternatives.append(encoded)
        return ["u", alternatives]
    if kind == "string":
        return _string_annotation(node)
    if kind == "list":  # Callable[[A, B], R] argument lists
        return None
    return None


def _string_annotation(node: Node) -> list | None:
    content = "".join(_text(c) for c in node.named_children if c.type == "string_content")
    content = content.strip()
    if not content or len(content) > 200 or "\n" in content:
        return None
    tree = _parser().parse(content.encode("utf-8"))
    root = cast("Node", tree.root_node)  # parsed from bytes (cartograph.parsing.nodes)
    if root.has_error or root.named_child_count != 1:
        return None
    statement = root.named_children[0]
    if statement.type != "expression_statement" or statement.named_child_count != 1:
        return None
    return type_of(statement.named_children[0])


def _iter_names(node: Node) -> Iterator[Node]:
    """Identifiers bound by an assignment target (tuples, lists, starred)."""
    kind = node.type
    if kind == "identifier":
        yield node
    elif kind in (
        "pattern_list",
        "tuple_pattern",
        "list_pattern",
        "tuple",
        "list",
        "list_splat_pattern",
        "as_pattern_target",
        "parenthesized_expression",
        "expression_list",
        "lambda_parameters",
        "default_parameter",
        "typed_parameter",
        "typed_default_parameter",
        "dictionary_splat_pattern",
        "list_splat",
    ):
        if kind in ("default_parameter", "typed_default_parameter"):
            name = node.child_by_field_name("name")
            if name is not None:
                yield from _iter_names(name)
            return
        for child in node.named_children:
            if kind == "typed_parameter" and child.type == "type":
                continue
            yield from _iter_names(child)


# ---------------------------------------------------------------- definitions


class _Scopes:
    """Definitions sorted by position; finds the scope that holds a byte offset."""

    def __init__(self) -> None:
        self.rows: list[list[Any]] = [["module", "", "", -1, 1, 1, "", "", [], [], None, 0]]
        # per scope: full start (decorators included), `def`/`class` start, body start, end
        self.spans: list[tuple[int, int, int, int]] = [(0, 0, 0, 1 << 62)]
        self.order: list[int] = [0]  # scope ids sorted by full start
        self.starts: list[int] = [0]

    def locate(self, pos: int) -> tuple[int, int]:
        """(lookup scope, source scope) for a byte offset.

        The source is the innermost definition whose header or body holds `pos`; the lookup
        scope is the one whose *body* holds it, so default values and annotations are looked
        up where the `def` stands. A decorator belongs to the scope the `def` stands in (it
        runs there, at definition time), for its lookups and for its calls.
        """
        i = bisect_right(self.starts, pos) - 1
        scope = self.order[i] if i >= 0 else 0
        while scope > 0:
            full_start, def_start, body_start, end = self.spans[scope]
            if full_start <= pos < end:
                if pos >= body_start:
                    return scope, scope
                if pos >= def_start:
                    return self.rows[scope][SCOPE_PARENT], scope
                # a decorator runs where the `def` stands: its calls belong to that scope
            scope = self.rows[scope][SCOPE_PARENT]
        return 0, 0

    def body_scope(self, pos: int) -> int:
        return self.locate(pos)[0]


def _docstring(body: Node | None) -> str:
    if body is None or body.named_child_count == 0:
        return ""
    first = body.named_children[0]
    if first.type != "expression_statement" or first.named_child_count == 0:
        return ""
    string = first.named_children[0]
    if string.type != "string":
        return ""
    content = "".join(_text(c) for c in string.named_children if c.type == "string_content")
    for line in content.strip().splitlines():
        line = line.strip()
        if line:
            return line[:200]
    return ""


def _signature(node: Node) -> str:
    end = node.start_byte
    for field in ("return_type", "parameters", "superclasses", "type_parameters", "name"):
        child = node.child_by_field_name(field)
        if child is not None:
            end = max(end, child.end_byte)
            if field in ("return_type", "parameters", "superclasses"):
                break
    header = node.text[: end - node.start_byte]
    if b"#" in header:  # drop comments between parameters
        for field in ("parameters", "superclasses"):
            holder = node.child_by_field_name(field)
            if holder is None:
                continue
            for child in reversed(holder.children):
                if child.type == "comment":
                    start, stop = (
                        child.start_byte - node.start_byte,
                        child.end_byte - node.start_byte,
                    )
                    header = header[:start] + header[stop:]
    raw = header.decode("utf-8", "replace")
    text = _WS.sub(" ", raw).strip()
    text = text.replace("( ", "(").replace(" )", ")").replace(", )", ")").replace(",)", ")")
    return text if len(text) <= MAX_SIGNATURE else text[: MAX_SIGNATURE - 1] + "…"


# ---------------------------------------------------------------- extraction


class _Extractor:
    def __init__(self, source: bytes) -> None:
        self.source = source
        self.scopes = _Scopes()
        self.bindings: list[list] = []
        self.attrs: list[list] = []
        self.refs: list[list] = []
        self.stars: list[list] = []
        self.imports: list[list] = []
        self.variables: list[list] = []
        self.all_parts: list[list] | None = None  # ["lit", names] | ["ref", expr]
        self.all_line = 0
        self.returns: list[list] = []
        self.stores: list[list] = []
        self.yields: list[list] = []
        self.parametrize: list[list] = []
        self.holds: list[list] = []  # [name, callee, position, [[expr, position, line], ...]]
        self.arguments: list[list] = []
        self.http: list[list] = []  # routes and clients (parsing.services)
        self.seen: set[tuple] = set()  # property and protocol refs recorded (see _once)
        self.all_dynamic = False
        self.type_checking: list[tuple[int, int]] = []
        self.errors = 0
        self.ref_nodes: list[Node] = []

    # definitions first: every other capture needs to know its scope
    def add_definition(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        parent_node = node.parent
        full = (
            parent_node
            if parent_node is not None and parent_node.type == "decorated_definition"
            else node
        )
        scopes = self.scopes
        parent = scopes.body_scope(full.start_byte)
        body = node.child_by_field_name("body")
        name = _text(name_node)
        parent_row = scopes.rows[parent]
        rel = f"{parent_row[SCOPE_QUALNAME]}.{name}" if parent_row[SCOPE_QUALNAME] else name
        kind = "class" if node.type == "class_definition" else "function"
        decorators: list[str] = []
        if full is not node:
            for child in full.named_children:
                if child.type == "decorator" and child.named_child_count:
                    decorators.append(_short(child.named_children[0], 200))
        bases: list = []
        returns = None
        if kind == "class":
            supers = node.child_by_field_name("superclasses")
            if supers is not None:
                for child in supers.named_children:
                    if child.type in ("identifier", "attribute", "subscript", "call"):
                        encoded = (
                            expr_of(child)
                            if child.type != "subscript"
                            else expr_of(child.child_by_field_name("value"))
                        )
                        if encoded is not None:
                            bases.append(encoded)
        else:
            returns = type_of(node.child_by_field_name("return_type"))
        signature = _signature(node)
        if kind == "function" and parent_node is not None:
            first = node.children[0] if node.child_count else None
            if first is not None and first.type == "async" and not signature.startswith("async"):
                signature = "async " + signature
        body_start = body.start_byte if body is not None else node.end_byte
        scope_id = len(scopes.rows)
        scopes.rows.append(
            [
                kind,
                name,
                rel,
                parent,
                node.start_point[0] + 1,
                node.end_point[0] + 1,
                signature,
                _docstring(body),
                decorators,
                bases,
                returns,
                body_start,
            ]
        )
        scopes.spans.append((full.start_byte, node.start_byte, body_start, full.end_byte))
        index = bisect_right(scopes.starts, full.start_byte)
        scopes.starts.insert(index, full.start_byte)
        scopes.order.insert(index, scope_id)
        self.bindings.append([parent, name, full.start_byte, ["def", scope_id], None])
        self._definition_header(node, full, scope_id, parent)

    def _definition_header(self, node: Node, full: Node, scope_id: int, parent: int) -> None:
        # decorators: references from the decorated definition
        if full is not node:
            for child in full.named_children:
                if child.type == "decorator" and child.named_child_count:
                    target = child.named_children[0]
                    callee = (
                        target.child_by_field_name("function") if target.type == "call" else target
                    )
                    line = target.start_point[0] + 1
                    self.refs.append(
                        [parent, scope_id, "d", expr_of(callee), target.start_byte, line, None]
                    )
                    # applying it: a call of the decorator expression from the defining scope
                    applied = expr_of(target)
                    if applied is not None:  # its text: the decorated scope
                        self.refs.append(
                            [parent, parent, "a", applied, target.start_byte, line, scope_id]
                        )
                    if target.type == "call":
                        self._parametrize(target, callee, scope_id, parent)
                        self._held_by_decorated(target, scope_id, parent)
        if node.type == "class_definition":
            return
        params = node.child_by_field_name("parameters")
        if params is not None:
            for index, param in enumerate(params.named_children):
                self._parameter(param, index, scope_id, parent)
        returns = node.child_by_field_name("return_type")
        if returns is not None:
            self._annotation(returns, parent, scope_id)

    def _held_by_decorated(self, call: Node, scope_id: int, parent: int) -> None:
        """What a decorator call is given is held by what it decorates: `@click.option(
        callback=check, type=CertType())` attaches `check` and a `CertType` to the command,
        which calls them when it runs. A use, from the decorated definition, of each function or
        class an argument names and of the class an argument constructs (the decorator's call
        itself stays with the scope the `def` stands in, where it runs)."""
        for encoded, pos, line in _held_values(call):
            self.refs.append([parent, scope_id, "r", encoded, pos, line, None])

    def _parametrize(self, call: Node, callee: Node | None, scope_id: int, parent: int) -> None:
        """`@pytest.mark.parametrize("a, b", [(x, y), pytest.param(z, w, id=...)])`: the values
        each of the test's parameters is given, one case after another:
        [scope, names, [[value expression per name] per case], position] (a case whose shape
        does not fit the names is left out; a value the resolver cannot follow is None)."""
        if callee is None or callee.type not in ("attribute", "identifier"):
            return
        if _text(callee).rpartition(".")[2] != "parametrize":
            return
        args = call.child_by_field_name("arguments")
        values = [c for c in args.named_children if c.type != "comment"] if args else []
        if len(values) < 2 or values[1].type not in ("list", "tuple"):
            return
        names = _parameter_names(values[0])
        if not names:
            return
        cases: list[list] = []
        for case in values[1].named_children[:MAX_ITEMS]:
            function = case.child_by_field_name("function") if case.type == "call" else None
            if function is not None and _text(function).rpartition(".")[2] == "param":
                # pytest.param(...): its positional arguments are the case
                inner = case.child_by_field_name("arguments")
                items = [
                    c
                    for c in (inner.named_children if inner else [])
                    if c.type not in ("keyword_argument", "comment")
                ]
            elif len(names) > 1 and case.type in ("tuple", "list"):
                items = [c for c in case.named_children if c.type != "comment"]
            else:
                items = [case]
            if len(items) == len(names):
                cases.append([expr_of(item) for item in items])
        if cases:
            self.parametrize.append([scope_id, names, cases, call.start_byte])

    def _parameter(self, param: Node, index: int, scope_id: int, parent: int) -> None:
        kind = param.type
        star = ""
        annotation = default = None
        name_node = None
        if kind == "identifier":
            name_node = param
        elif kind in ("typed_parameter",):
            inner = param.named_children[0] if param.named_child_count else None
            if inner is not None and inner.type == "list_splat_pattern":
                star, name_node = "*", inner.named_children[0] if inner.named_child_count else None
            elif inner is not None and inner.type == "dictionary_splat_pattern":
                star, name_node = "**", inner.named_children[0] if inner.named_child_count else None
            else:
                name_node = inner
            annotation = param.child_by_field_name("type")
        elif kind in ("default_parameter", "typed_default_parameter"):
            name_node = param.child_by_field_name("name")
            annotation = param.child_by_field_name("type")
            default = param.child_by_field_name("value")
        elif kind == "list_splat_pattern":
            star, name_node = "*", param.named_children[0] if param.named_child_count else None
        elif kind == "dictionary_splat_pattern":
            star, name_node = "**", param.named_children[0] if param.named_child_count else None
        if name_node is None or name_node.type != "identifier":
            return
        ann = None
        if annotation is not None:
            ann = type_of(annotation)
            self._annotation(annotation, parent, scope_id)
        default_expr = (
            expr_of(default)
            if default is not None and default.type in ("call", "identifier", "attribute")
            else None
        )
        self.bindings.append(
            [scope_id, _text(name_node), 0, ["param", index, ann, default_expr, star], None]
        )

    def _annotation(self, node: Node, lookup: int, source: int) -> None:
        encoded = type_of(node)
        if encoded is not None:
            self.refs.append(
                [lookup, source, "t", encoded, node.start_byte, node.start_point[0] + 1, None]
            )

    # bindings
    def add_assignment(self, node: Node) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        annotation = node.child_by_field_name("type")
        if left is None:
            return
        lookup, source = self.scopes.locate(node.start_byte)
        while right is not None and right.type == "assignment":  # a = b = value
            right = right.child_by_field_name("right")
        value = expr_of(right) if right is not None else None
        ann = type_of(annotation) if annotation is not None else None
        if annotation is not None:
            self._annotation(annotation, lookup, source)
        pos = node.end_byte
        if left.type == "identifier":
            name = _text(left)
            binding = ["ann", ann, value] if annotation is not None else ["val", value]
            self.bindings.append([lookup, name, pos, binding, None])
            if right is not None and right.type in ("identifier", "attribute"):
                self.refs.append(
                    [lookup, source, "r", value, right.start_byte, right.start_point[0] + 1, None]
                )
            kind = self.scopes.rows[lookup][SCOPE_KIND]
            if kind in ("module", "class") and right is not None:
                template = services.template_of(right, expr_of)
                if template is not None and any(isinstance(p, str) and p for p in template):
                    self.http.append(["const", lookup, name, template])
                elif right.type == "list" and services.holds_routes(right):
                    # `routes = [Route("/", home), Mount("/api", routes=[...])]` (Starlette)
                    self.http.append(["list", lookup, name, services.value_of(right, expr_of)])
            if kind == "module" and right is not None and right.type == "call":
                # `option = click.Option(..., callback=check)`: what the object holds
                held = _held_values(right)
                function = right.child_by_field_name("function")
                if held and function is not None:
                    self.holds.append([name, expr_of(function), right.start_byte, held])
            if kind in ("module", "class"):
                if name == "__all__" and kind == "module":
                    self._all(right, extend=False)
                elif (annotation is not None and right is None) or (
                    right is not None and right.type in _VARIABLE_VALUES
                ):
                    self.variables.append(
                        [lookup, name, node.start_point[0] + 1, node.end_point[0] + 1, _short(node)]
                    )
        elif left.type == "attribute":
            obj = left.child_by_field_name("object")
            attr = left.child_by_field_name("attribute")
            if (
                obj is not None
                and attr is not None
                and obj.type == "identifier"
                and self.scopes.rows[lookup][SCOPE_KIND] == "function"
            ):
                self.attrs.append([lookup, _text(obj), _text(attr), pos, value, ann])
            if right is not None and right.type in ("identifier", "attribute"):
                self.refs.append(
                    [lookup, source, "r", value, right.start_byte, right.start_point[0] + 1, None]
                )
        elif left.type == "subscript":
            base = expr_of(left.child_by_field_name("value"))
            index = left.child_by_field_name("subscript")
            if base is not None and value is not None:
                key = literal_key(index) if index is not None else None
                self.stores.append([lookup, base, key, value, pos, False])
            if right is not None and right.type in ("identifier", "attribute"):
                self.refs.append(
                    [lookup, source, "r", value, right.start_byte, right.start_point[0] + 1, None]
                )
            self.add_protocol(left.child_by_field_name("value"), "__setitem__")
        else:
            self._unpack(left, value, [], lookup, pos)

    def _unpack(self, target: Node, value: list | None, path: list, lookup: int, pos: int) -> None:
        """`a, (b, *c) = ...`: each name is bound to its position in the value (["unpack",
        value, path]; a starred step is ["*", index, names after it], and a position after
        it is negative, from the end)."""
        kind = target.type
        if kind == "identifier":
            binding = ["unpack", value, path] if value is not None and path else ["unknown"]
            self.bindings.append([lookup, _text(target), pos, binding, None])
            return
        if kind in ("pattern_list", "tuple_pattern", "list_pattern", "parenthesized_expression"):
            children = [c for c in target.named_children if c.type != "comment"]
            starred = False
            for index, child in enumerate(children):
                if child.type in ("list_splat_pattern", "list_splat"):
                    inner = child.named_children[0] if child.named_child_count else None
                    if inner is not None:
                        step = ["*", index, len(children) - index - 1]
                        self._unpack(inner, value, [*path, step], lookup, pos)
                    starred = True
                    continue
                # after a starred name, a position counts from the end (`a, *b, c`: c is -1)
                at = index - len(children) if starred else index
                self._unpack(child, value, [*path, at], lookup, pos)
            return
        for name_node in _iter_names(target):
            self.bindings.append([lookup, _text(name_node), pos, ["unknown"], None])

    def add_augmented(self, node: Node, name_node: Node | None) -> None:
        lookup = self.scopes.body_scope(node.start_byte)
        if lookup == 0 and name_node is not None and _text(name_node) == "__all__":
            self._all(node.child_by_field_name("right"), extend=True)

    def _all(self, value: Node | None, extend: bool) -> None:
        """`__all__ = [...]`, `+= [...]`, and compositions like `base.__all__ + ["x"]`."""
        if value is not None and self.all_line == 0:
            self.all_line = value.start_point[0] + 1
        operands = _all_operands(value)
        if operands is None:
            self.all_dynamic = True
        elif not extend:
            self.all_parts = operands
        elif self.all_parts is None:  # `+=` before any `__all__ =`
            self.all_dynamic = True
        else:
            self.all_parts.extend(operands)

    def add_binding_target(
        self, target: Node, binding: list, until_node: Node | None = None
    ) -> None:
        lookup = self.scopes.body_scope(target.start_byte)
        if until_node is not None:
            pos, until = until_node.start_byte, until_node.end_byte
        else:
            pos, until = target.end_byte, None
        for name_node in _iter_names(target):
            self.bindings.append([lookup, _text(name_node), pos, binding, until])

    def add_import(self, node: Node) -> None:
        lookup = self.scopes.body_scope(node.start_byte)
        line = node.start_point[0] + 1
        pos = node.end_byte
        typing_only = any(start <= node.start_byte < end for start, end in self.type_checking)
        if node.type == "import_statement":
            for child in node.named_children:
                if child.type == "dotted_name":
                    module = _text(child)
                    self.bindings.append(
                        [lookup, module.split(".")[0], pos, ["imp", module.split(".")[0]], None]
                    )
                    self.imports.append([lookup, line, 0, module, [], typing_only])
                elif child.type == "aliased_import":
                    name_node = child.child_by_field_name("name")
                    alias = child.child_by_field_name("alias")
                    if name_node is None or alias is None:
                        continue
                    module = _text(name_node)
                    self.bindings.append([lookup, _text(alias), pos, ["imp", module], None])
                    self.imports.append([lookup, line, 0, module, [], typing_only])
            return
        module_node = node.child_by_field_name("module_name")
        if module_node is None:
            return
        level = 0
        module = ""
        if module_node.type == "relative_import":
            for child in module_node.children:
                if child.type == "import_prefix":
                    level = len(_text(child).strip())
                elif child.type == "dotted_name":
                    module = _text(child)
        else:
            module = _text(module_node)
        names: list[str] = []
        for child in node.children_by_field_name("name"):
            if child.type == "dotted_name":
                name = _text(child)
                names.append(name)
                self.bindings.append([lookup, name, pos, ["from", level, module, name], None])
            elif child.type == "aliased_import":
                name_node = child.child_by_field_name("name")
                alias = child.child_by_field_name("alias")
                if name_node is None or alias is None:
                    continue
                name = _text(name_node)
                names.append(name)
                self.bindings.append(
                    [lookup, _text(alias), pos, ["from", level, module, name], None]
                )
        if any(child.type == "wildcard_import" for child in node.named_children):
            self.stars.append([lookup, level, module, pos])
            names.append("*")
        self.imports.append([lookup, line, level, module, names, typing_only])

    def add_call(self, node: Node, callee: Node) -> None:
        lookup, source = self.scopes.locate(node.start_byte)
        expr = expr_of(callee)
        # the callee's text is kept for unresolved calls; a plain dotted name is its own text
        text = (
            None if callee.type in ("identifier", "attribute") and _plain(expr) else _short(callee)
        )
        self.refs.append(
            [lookup, source, "c", expr, node.start_byte, node.start_point[0] + 1, text]
        )
        if expr is None:
            return
        self._arguments(node, expr)
        last = expr[2] if expr[0] == "a" else expr[1] if expr[0] == "n" else None
        if last in services.HTTP_CALLEES:
            self.add_http_call(node, expr, lookup, source)
        if expr[0] == "a" and expr[2] in _MUTATORS:
            self._mutation(node, expr, lookup)
        elif expr[0] == "n" and expr[1] in _BUILTIN_PROTOCOLS:
            args = node.child_by_field_name("arguments")
            if args is not None and args.named_child_count == 1:
                dunder = _BUILTIN_PROTOCOLS[expr[1]]
                self.add_protocol(args.named_children[0], f"{expr[1]}:{dunder}")

    def add_http_call(self, node: Node, expr: list, lookup: int, source: int) -> None:
        """A call that may declare a route or send a request (parsing.services)."""
        positional, keywords = services.arguments_of(node, expr_of)
        decorated = services.decorated_definition(node)
        decorates = -1
        body = decorated.child_by_field_name("body") if decorated is not None else None
        if body is not None:
            decorates = self.scopes.body_scope(body.start_byte) or -1
        self.http.append(
            [
                "call",
                lookup,
                source,
                expr,
                positional,
                keywords,
                node.start_byte,
                node.start_point[0] + 1,
                decorates,
                services.assigned_name(node),
            ]
        )

    def _arguments(self, node: Node, callee: list) -> None:
        """The arguments of a call that may be callable values (names, attributes, lambdas,
        displays), by position or keyword: [call position, [[index | name, expr], ...],
        chained_calls(callee)]."""
        args = node.child_by_field_name("arguments")
        if args is None or args.type != "argument_list":
            return
        passed: list[list] = []
        index = 0
        for child in args.named_children:
            kind = child.type
            if kind == "keyword_argument":
                name = child.child_by_field_name("name")
                value = child.child_by_field_name("value")
                if (
                    name is not None
                    and value is not None
                    and (value.type in _PASSED or _constructs(value))
                ):
                    encoded = expr_of(value)
                    if encoded is not None:
                        passed.append([_text(name), encoded])
                continue
            if kind == "comment":
                continue
            if kind in ("list_splat", "dictionary_splat"):
                break  # positions after `*args` are not known
            if kind in _PASSED or _constructs(child):
                encoded = expr_of(child)
                if encoded is not None:
                    passed.append([index, encoded])
            index += 1
        if passed:
            self.arguments.append([node.start_byte, passed, chained_calls(callee)])

    def _mutation(self, node: Node, expr: list, lookup: int) -> None:
        """`c.append(f)`, `c.add(f)`, `c.insert(i, f)`, `c.setdefault(k, f)` store one value;
        `c.extend([...])` and `c.update({...})` store the elements of a display."""
        args = node.child_by_field_name("arguments")
        if args is None or args.type != "argument_list":
            return
        positional = [
            c for c in args.named_children if c.type not in ("keyword_argument", "comment")
        ]
        method = expr[2]
        base = expr[1]
        if method in ("append", "add", "appendleft") and len(positional) == 1:
            key, value, spread = None, expr_of(positional[0]), False
        elif method == "insert" and len(positional) == 2:
            key, value, spread = None, expr_of(positional[1]), False
        elif method == "setdefault" and len(positional) == 2:
            key, value, spread = literal_key(positional[0]), expr_of(positional[1]), False
        elif method in ("extend", "update") and len(positional) == 1:
            key, value, spread = None, expr_of(positional[0]), True
        else:
            return
        if value is not None:
            self.stores.append([lookup, base, key, value, node.start_byte, spread])

    def add_protocol(self, operand: Node | None, dunder: str) -> None:
        """Syntax that calls a dunder method of the operand's class (`for`, `with`, `[]`,
        operators, `len()`): a ref of kind "o" whose text names the method."""
        if operand is None:
            return
        encoded = expr_of(operand)
        if encoded is None or encoded[0] == "box":
            return
        lookup, source = self.scopes.locate(operand.start_byte)
        line = operand.start_point[0] + 1
        self._once([lookup, source, "o", encoded, operand.start_byte, line, dunder])

    def add_attribute(self, node: Node) -> None:
        """An attribute read ("p"), assigned ("s") or deleted ("e"): a property's getter,
        setter or deleter, or a descriptor's `__get__`/`__set__`, when the class has one."""
        parent = node.parent
        if parent is None:
            return
        if parent.type == "call" and parent.child_by_field_name("function") == node:
            return
        kind = "p"
        ptype = parent.type
        in_delete = ptype == "delete_statement" or (
            ptype == "expression_list"
            and parent.parent is not None
            and parent.parent.type == "delete_statement"
        )
        if in_delete:
            kind = "e"
        elif ptype in _VALUE_REF_PARENTS or (
            ptype in _VALUE_REF_FIELDS and parent.child_by_field_name("value") == node
        ):
            return  # a value ref ("r") already: its resolution calls a property's getter
        elif ptype in ("assignment", "augmented_assignment"):
            if parent.child_by_field_name("left") == node:
                kind = "s"
            elif ptype == "assignment":
                return  # `x = obj.prop`: a value ref too (add_assignment)
        elif parent.type in ("pattern_list", "tuple_pattern", "for_statement", "decorator"):
            return
        encoded = expr_of(node)
        if encoded is None or (encoded[1][0] == "n" and encoded[1][1] in ("super",)):
            return
        lookup, source = self.scopes.locate(node.start_byte)
        self._once([lookup, source, kind, encoded, node.start_byte, node.start_point[0] + 1, None])

    def _once(self, ref: list) -> None:
        """Record a property or protocol ref once per scope, expression and method: the same
        read repeated in a function is one call site (the first)."""
        key = (ref[0], ref[1], ref[2], marshal.dumps(ref[3]), ref[6])
        if key not in self.seen:
            self.seen.add(key)
            self.refs.append(ref)

    def add_value_ref(self, node: Node, positional: bool) -> None:
        if node.type == "identifier":
            name = node.text
            if name == b"self" or name == b"cls":
                return
            encoded: list | None = ["n", name.decode("utf-8", "replace")]
        else:
            encoded = expr_of(node)
            if encoded is None:
                return
        pos = node.start_byte
        lookup, source = self.scopes.locate(pos)
        if positional and source and self.scopes.rows[source][SCOPE_KIND] == "class":
            _, def_start, body_start, _ = self.scopes.spans[source]
            if def_start <= pos < body_start:
                return  # a base class: INHERITS, not a use
        self.refs.append([lookup, source, "r", encoded, pos, node.start_point[0] + 1, None])


def _held_values(call: Node) -> list[list]:
    """[expr, position, line] of each function or class a call's argument names, and of
    the class an argument constructs (`Option(type=Path(), callback=check)`, a call named
    like a class: `_constructs`): what the object the call makes may hold and call later."""
    held: list[list] = []
    args = call.child_by_field_name("arguments")
    for argument in args.named_children if args is not None else ():
        value = (
            argument.child_by_field_name("value")
            if argument.type == "keyword_argument"
            else argument
        )
        if value is not None and value.type == "call":
            # an instance it constructs (by the naming convention): a function's result is no
            # function of the repository's
            value = value.child_by_field_name("function") if _constructs(value) else None
        if value is None or value.type not in ("identifier", "attribute"):
            continue
        encoded = expr_of(value)
        if encoded is not None:
            held.append([encoded, value.start_byte, value.start_point[0] + 1])
    return held


def _constructs(node: Node) -> bool:
    """A call that constructs by the naming convention, `Handler()`, `models.Form(data)`: an
    argument that may pass an instance whose methods the callee calls. (Only a filter of
    what is recorded: the resolver decides what the call makes; a factory function's result
    is not recorded.)"""
    if node.type != "call":
        return False
    function = node.child_by_field_name("function")
    if function is not None and function.type == "attribute":
        function = function.child_by_field_name("attribute")
    return function is not None and function.type == "identifier" and _text(function)[:1].isupper()


def _callable_params(ex: _Extractor) -> list[list]:
    """[[function scope, [parameter names]]]: the parameters a function (or a closure in it)
    calls, calls a method of, iterates, passes on or stores (in a container or an
    attribute) — the only ones whose callers' arguments the flow stage needs
    (`resolve.python` records arguments for these only)."""
    rows = ex.scopes.rows
    params: dict[int, set[str]] = {}
    bound: dict[int, set[str]] = {}
    for scope, name, _pos, value, _until in ex.bindings:
        bound.setdefault(scope, set()).add(name)
        if value[0] == "param":
            params.setdefault(scope, set()).add(name)
    found: dict[int, set[str]] = {}
    names = set().union(*params.values()) if params else set()
    if not names:
        return []

    def mark(scope: int, name: str) -> None:
        if name not in names:
            return
        current = scope
        while current > 0:
            if name in bound.get(current, ()):
                if name in params.get(current, ()):
                    found.setdefault(current, set()).add(name)
                return
            current = rows[current][SCOPE_PARENT]
            while current > 0 and rows[current][SCOPE_KIND] == "class":
                current = rows[current][SCOPE_PARENT]

    def root(expr: list | None) -> str | None:
        if expr is not None and expr[0] == "i":
            expr = expr[1]
        return expr[1] if expr is not None and expr[0] == "n" else None

    for ref in ex.refs:
        if ref[2] == "c":
            callee = ref[3]
            name = root(callee)
            if name is not None:
                mark(ref[0], name)
            elif callee is not None and callee[0] == "a" and callee[1][0] == "n":
                mark(ref[0], callee[1][1])  # `handler.handle(...)`: a method of its value
    for pos, passed, _calls in ex.arguments:
        scope = ex.scopes.body_scope(pos)
        for _slot, value in passed:
            if value[0] == "n":
                mark(scope, value[1])
    for scope, _base, _key, value, _pos, _spread in ex.stores:
        if value[0] == "n":
            mark(scope, value[1])
    for scope, _obj, _attr, _pos, value, _typ in ex.attrs:  # `self.callback = callback`
        if value is not None and value[0] == "n":
            mark(scope, value[1])
    for scope, _name, _pos, value, _until in ex.bindings:
        if value[0] == "for" and value[1] is not None and value[1][0] == "n":
            mark(scope, value[1][1])
    return [[scope, sorted(names)] for scope, names in sorted(found.items())]


def _comparison(ex: _Extractor, node: Node) -> None:
    """`a < b < c`: each operator between two operands; `x in c` calls c.__contains__."""
    operands: list[Node] = []
    operators: list[str] = []
    pending: list[str] = []
    for child in node.children:
        if child.is_named:
            if pending:
                operators.append(" ".join(pending))
                pending = []
            operands.append(child)
        else:
            pending.append(child.type)
    for index, operator in enumerate(operators):
        if index + 1 >= len(operands):
            break
        if operator in ("in", "not in"):
            ex.add_protocol(operands[index + 1], "__contains__")
        elif operator in _OPERATORS:
            ex.add_protocol(operands[index], _OPERATORS[operator])


def _position_key(item: tuple) -> tuple:
    """Order interface rows by scope, position, kind and name (two names bound at one
    position, `_, _ = pair`, keep their order in the facts: values are never compared)."""
    return item[0], item[1], item[2], str(item[3])


def _names_in(expr: object, found: set[str]) -> None:
    """Every plain name an encoded expression mentions."""
    if isinstance(expr, list):
        if len(expr) == 2 and expr[0] == "n" and isinstance(expr[1], str):
            found.add(expr[1])
            return
        for item in expr:
            _names_in(item, found)


def _returned_locals(facts: dict) -> list:
    """The local bindings a function's returned values are made of (`h = make(); return h`,
    and what those read in turn): what it returns depends on them, so they are part of the
    interface; the function's other locals are not."""
    wanted: dict[int, set[str]] = {}
    for scope, _pos, expr in [*facts.get("returns", ()), *facts.get("yields", ())]:
        _names_in(expr, wanted.setdefault(scope, set()))
    if not wanted:
        return []
    by_scope: dict[int, list[list]] = {}
    for row in facts["bindings"]:
        if row[BINDING_SCOPE] in wanted:
            by_scope.setdefault(row[BINDING_SCOPE], []).append(row)
    shape = []
    for scope in sorted(wanted):
        names = wanted[scope]
        rows = by_scope.get(scope, [])
        pending = list(names)
        while pending:
            name = pending.pop()
            for row in rows:
                if row[BINDING_NAME] == name:
                    more: set[str] = set()
                    _names_in(row[BINDING_VALUE], more)
                    pending.extend(more - names)
                    names |= more
        shape.append(
            (scope, [(r[BINDING_NAME], r[BINDING_VALUE]) for r in rows if r[BINDING_NAME] in names])
        )
    return shape


def _all_operands(node: Node | None) -> list[list] | None:
    if node is None:
        return None
    if node.type in ("list", "tuple"):
        names = []
        for child in node.named_children:
            if child.type != "string":
                return None
            names.append(
                "".join(_text(c) for c in child.named_children if c.type == "string_content")
            )
        return [["lit", names]]
    if node.type == "binary_operator":
        operator = node.child_by_field_name("operator")
        if operator is None or operator.type != "+":
            return None
        left = _all_operands(node.child_by_field_name("left"))
        right = _all_operands(node.child_by_field_name("right"))
        return left + right if left is not None and right is not None else None
    if node.type in ("identifier", "attribute"):
        expr = expr_of(node)
        return [["ref", expr]] if expr is not None else None
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return _all_operands(node.named_children[0])
    return None


def _static_all(ex: _Extractor) -> list[str] | None:
    """`__all__` as a plain list of names when it is made of literals only."""
    if ex.all_dynamic or ex.all_parts is None or any(p[0] != "lit" for p in ex.all_parts):
        return None
    return [name for part in ex.all_parts for name in part[1]]


def _plain(expr: list | None) -> bool:
    """A name or dotted name (rendered back exactly by the resolver)."""
    while expr is not None and expr[0] == "a":
        expr = expr[1]
    return expr is not None and expr[0] == "n"


def _document_order(node: Node) -> tuple[int, int]:
    return node.start_byte, -node.end_byte


def _as_binding(target: Node) -> list:
    """`except E as e` binds an E; `with cm as v` binds what cm.__enter__ returns."""
    pattern = target.parent
    if pattern is None:
        return ["unknown"]
    clause = pattern.parent
    names = target.named_children
    if (
        clause is None
        or len(names) != 1
        or names[0].type != "identifier"
        or not pattern.named_children
    ):
        return ["unknown"]
    value = expr_of(pattern.named_children[0])
    if clause.type in ("except_clause", "except_group_clause"):
        return ["exc", value]
    if clause.type == "with_item":
        return ["with", value]
    return ["unknown"]


def extract(language: str, source: bytes) -> dict:
    """Parse Python source and return its facts (see `cartograph.parsing.facts`)."""
    tree = _parser().parse(source)
    root = tree.root_node
    ex = _Extractor(source)
    # once per file: the nodes of a tree parsed from bytes (cartograph.parsing.nodes)
    captures = cast("Captures", tree_sitter.QueryCursor(_query()).captures(root))
    # capture lists are not in document order (and their order is not stable across
    # processes): sort them, outer nodes first, so facts are positional and reproducible
    for nodes in captures.values():
        nodes.sort(key=_document_order)

    for node in captures.get("type_checking", ()):
        if _text(node) in ("TYPE_CHECKING", "typing.TYPE_CHECKING", "t.TYPE_CHECKING"):
            block = node.parent
            if block is not None:
                ex.type_checking.append((block.start_byte, block.end_byte))

    definitions = sorted(
        [*captures.get("definition.function", ()), *captures.get("definition.class", ())],
        key=lambda n: n.start_byte,
    )
    for node in definitions:
        ex.add_definition(node)

    for node in captures.get("import", ()):
        ex.add_import(node)
    for node in captures.get("assign", ()):
        ex.add_assignment(node)
    for node in captures.get("aug", ()):
        ex.add_augmented(node, node.child_by_field_name("left"))
    for call in captures.get("reference.call", ()):
        callee = call.child_by_field_name("function")
        if callee is not None:
            ex.add_call(call, callee)
    for node in captures.get("ref", ()):
        ex.add_value_ref(node, positional=True)
    for node in captures.get("ref.keyword", ()):
        ex.add_value_ref(node, positional=False)

    for node in captures.get("bind.for", ()):
        ex.add_protocol(node.child_by_field_name("right"), "__iter__")
        target = node.child_by_field_name("left")
        if target is not None:
            binding = (
                ["for", expr_of(node.child_by_field_name("right"))]
                if target.type == "identifier"
                else ["unknown"]
            )
            ex.add_binding_target(target, binding)
    for target in captures.get("bind.comp", ()):
        clause = target.parent
        comprehension = clause.parent if clause is not None else None
        binding = ["unknown"]
        if clause is not None:
            ex.add_protocol(clause.child_by_field_name("right"), "__iter__")
        if target.type == "identifier" and clause is not None:
            binding = ["for", expr_of(clause.child_by_field_name("right"))]
        ex.add_binding_target(target, binding, comprehension)
    for target in captures.get("bind.as", ()):
        ex.add_binding_target(target, _as_binding(target))
    for target in captures.get("bind.walrus", ()):
        walrus = target.parent
        value = walrus.child_by_field_name("value") if walrus is not None else None
        ex.add_binding_target(target, ["val", expr_of(value)] if value is not None else ["unknown"])
    for params in captures.get("bind.lambda", ()):
        ex.add_binding_target(params, ["unknown"], params.parent)
    for item in captures.get("with", ()):
        value = item.child_by_field_name("value")
        if value is not None and value.type == "as_pattern" and value.named_child_count:
            value = value.named_children[0]
        ex.add_protocol(value, "__enter__")
        ex.add_protocol(value, "__exit__")
    for node in captures.get("raise", ()):
        raised = node.named_children[0] if node.named_child_count else None
        if raised is not None and raised.type in ("identifier", "attribute"):
            ex.add_protocol(raised, "raise")
    for node in captures.get("operator", ()):
        operator = node.child_by_field_name("operator")
        dunder = _OPERATORS.get(operator.type) if operator is not None else None
        if dunder is not None:
            ex.add_protocol(node.child_by_field_name("left"), dunder)
    for node in captures.get("compare", ()):
        _comparison(ex, node)
    for node in captures.get("subscript", ()):
        parent = node.parent
        if (
            parent is not None
            and parent.type == "assignment"
            and parent.child_by_field_name("left") == node
        ):
            continue  # `c[k] = v`: __setitem__ (see add_assignment)
        in_delete = parent is not None and (
            parent.type == "delete_statement"
            or (
                parent.type == "expression_list"
                and parent.parent is not None
                and parent.parent.type == "delete_statement"
            )
        )
        ex.add_protocol(
            node.child_by_field_name("value"), "__delitem__" if in_delete else "__getitem__"
        )
    for node in captures.get("attribute", ()):
        ex.add_attribute(node)
    for node in captures.get("global", ()):
        lookup = ex.scopes.body_scope(node.start_byte)
        if lookup:
            ex.bindings.append([lookup, _text(node), 0, ["global"], None])
    for node in captures.get("nonlocal", ()):
        lookup = ex.scopes.body_scope(node.start_byte)
        if lookup:
            ex.bindings.append([lookup, _text(node), 0, ["nonlocal"], None])
    for node in captures.get("yield", ()):
        scope = ex.scopes.body_scope(node.start_byte)
        value = node.named_children[0] if node.named_child_count else None
        if scope and value is not None and not any(c.type == "from" for c in node.children):
            ex.yields.append([scope, node.start_byte, expr_of(value)])
    for node in captures.get("return", ()):
        scope = ex.scopes.body_scope(node.start_byte)
        if scope and ex.scopes.rows[scope][SCOPE_KIND] == "function":
            value = node.named_children[0] if node.named_child_count else None
            if value is None or value.type == "none":
                continue  # `return` / `return None`: says nothing about the other returns
            ex.returns.append([scope, node.start_byte, expr_of(value)])
    ex.errors = len(captures.get("error", ()))
    if root.has_error and ex.errors == 0:
        ex.errors = 1

    module_row = ex.scopes.rows[0]
    lines = source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1)
    module_row[SCOPE_END] = max(lines, 1)
    module_row[SCOPE_DOC] = _docstring(cast("Node", root))
    ex.bindings.sort(key=lambda b: (b[BINDING_SCOPE], b[BINDING_POS]))
    ex.refs.sort(key=lambda r: r[REF_POS])
    callable_params = _callable_params(ex)
    return {
        "v": FACTS_VERSION,
        "lines": lines,
        "errors": ex.errors,
        "scopes": ex.scopes.rows,
        "bindings": ex.bindings,
        "attrs": ex.attrs,
        "refs": ex.refs,
        "stars": ex.stars,
        "imports": ex.imports,
        "variables": ex.variables,
        "all": _static_all(ex),
        "all_parts": None if ex.all_dynamic else ex.all_parts,
        "all_line": ex.all_line,
        "returns": ex.returns,
        "stores": ex.stores,
        "yields": ex.yields,
        "parametrize": ex.parametrize,
        "holds": ex.holds,
        "arguments": ex.arguments,
        "callable_params": callable_params,
        "http": ex.http,
    }


def interface_of(facts: dict) -> bytes:
    """What other modules can observe of this module when they are resolved: its definitions
    (names, nesting, bases, return annotations, decorators), its module- and class-level
    bindings, its imports and `__all__`, and the methods that set `self.x` (with the local
    bindings they read). Call sites, line numbers and docstrings are not part of it, so an edit
    inside a function body does not re-resolve the files that import this one."""
    scopes = facts["scopes"]
    methods = {row[ATTR_SCOPE] for row in facts["attrs"]}

    outer = {i for i, row in enumerate(scopes) if row[SCOPE_KIND] != "function"}
    # in methods that set attributes, the order of bindings and attribute writes matters
    in_methods = sorted(
        [
            (b[BINDING_SCOPE], b[BINDING_POS], "b", b[BINDING_NAME], b[BINDING_VALUE])
            for b in facts["bindings"]
            if b[BINDING_SCOPE] in methods
        ]
        + [
            (scope, pos, "a", obj, attr, value, typ)
            for scope, obj, attr, pos, value, typ in facts["attrs"]
        ],
        key=_position_key,
    )
    # module and class level: the order of bindings and star imports decides what a name is
    in_outer = sorted(
        [
            (scope, pos, "b", name, value, until is not None)
            for scope, name, pos, value, until in facts["bindings"]
            if scope in outer
        ]
        + [(scope, pos, "*", level, module) for scope, level, module, pos in facts["stars"]],
        key=_position_key,
    )
    shape = (
        [
            (
                r[SCOPE_KIND],
                r[SCOPE_NAME],
                r[SCOPE_QUALNAME],
                r[SCOPE_PARENT],
                r[SCOPE_DECORATORS],
                r[SCOPE_BASES],
                r[SCOPE_RETURNS],
            )
            for r in scopes
        ],
        [(item[0], *item[2:]) for item in in_outer],
        [(item[0], *item[2:]) for item in in_methods],
        [
            (i[IMPORT_SCOPE], i[IMPORT_LEVEL], i[IMPORT_MODULE], i[IMPORT_NAMES])
            for i in facts["imports"]
        ],
        facts.get("all_parts"),
        [(r[RETURN_SCOPE], r[RETURN_EXPR]) for r in facts.get("returns", ())],
        [(r[0], r[2]) for r in facts.get("yields", ())],
        facts.get("callable_params", ()),
        _returned_locals(facts),
        # what containers hold (a module's registry filled by a function's `.append`)
        [(r[0], r[1], r[2], r[3], r[5]) for r in facts.get("stores", ())],
        # the strings and route tables another module's requests and applications read
        [r for r in facts.get("http", ()) if r[0] in ("const", "list")],
    )
    # version 2: no back-references, so the bytes depend on the values only, not on which of
    # them share one object (facts trimmed of appended definitions are compared with these)
    return marshal.dumps(shape, 2)


WIDE = "*"  # the part of a module's interface that no one top-level name owns
ORDER = "*order"  # the module-level bindings' names in the order they are bound
ALL = "*all"  # `__all__`: read by star imports only, whose users name what they use


def interface_parts(facts: dict) -> dict[str, bytes]:
    """`interface_of` split by the top-level name each of its rows belongs to, so that an
    edit changes the parts of the names it touched and no other.

    - a scope's rows (nested scopes, returns, yields, callable parameters, the locals its
      returns are made of, the bindings and attributes of its methods) belong to its top-level
      function or class, named by the module-level binding that defines it; scope indices are
      written as qualnames, so a definition inserted above does not change the parts below;
    - a module-level binding belongs to its name (a from-import's binding holds its module);
      a plain import (`import a.b`) to the names it binds;
    - `WIDE` holds what no single name owns: the module scope, every dunder
      name (a module `__getattr__` answers every failed lookup), star imports and every name
      bound before the last of them (the star may bind it too: binding order decides; a name
      bound only after the last star import is its own), container stores,
      attributes set on other objects than `self`/`cls`, decorated top-level definitions and
      ones that declare `global`/`nonlocal` (both may change other names), anonymous scopes,
      and the strings and route tables of HTTP rows;
    - `ALL`: `__all__`, which a change makes module-wide like `WIDE`, but whose names do not
      lead lookups through the module (only a star import reads it, and its user names what
      it uses);
    - `ORDER`: the names of the module-level bindings in the order they are bound (a base, a
      decorator or a value read at module level finds the binding before it): unchanged
      names must keep their order (`changed_parts`).

    A change confined to named parts re-resolves only the dependents that can reach one of
    them (`index.dependents.name_changes` and `_readers`): a resolution reaches a name's rows
    only by looking the name up, and every lookup comes from a name written in the file or in
    the interface of a module it consulted."""
    scopes = facts["scopes"]
    bindings = facts["bindings"]
    # a star import binds every name its module exports: a name bound before the last one
    # may be its or the star's, so it is WIDE; one bound only after it is its own binding's
    stars = [(pos, level, module) for scope, level, module, pos in facts["stars"] if scope == 0]
    last_star = max((pos for pos, _level, _module in stars), default=None)
    starred = (
        set()
        if last_star is None
        else {
            b[BINDING_NAME]
            for b in bindings
            if b[BINDING_SCOPE] == 0 and b[BINDING_POS] < last_star
        }
    )
    defined = {
        b[BINDING_VALUE][1]: b[BINDING_NAME]
        for b in bindings
        if b[BINDING_SCOPE] == 0
        and b[BINDING_VALUE]
        and b[BINDING_VALUE][0] == "def"
        and b[BINDING_NAME] not in starred
    }
    rebinding = {
        b[BINDING_SCOPE]
        for b in bindings
        if b[BINDING_VALUE] and b[BINDING_VALUE][0] in ("global", "nonlocal")
    }
    top = list(range(len(scopes)))  # each scope's top-level ancestor (0: the module)
    for index in range(1, len(scopes)):
        parent = scopes[index][SCOPE_PARENT]
        top[index] = index if parent == 0 else top[parent]
    wide_tops = {top[index] for index in rebinding}
    owner = [WIDE] * len(scopes)
    for index in range(1, len(scopes)):
        head = top[index]
        row = scopes[head]
        name = defined.get(head)
        if (
            name is not None
            and name == row[SCOPE_NAME]
            and not row[SCOPE_DECORATORS]
            and head not in wide_tops
        ):
            owner[index] = name
    qualname = [row[SCOPE_QUALNAME] for row in scopes]
    parts: dict[str, list] = {WIDE: []}

    def add(name: str, item: object) -> None:
        key = ALL if name == "__all__" else WIDE if _is_dunder(name) or name in starred else name
        parts.setdefault(key, []).append(item)

    for _pos, level, module in sorted(stars):
        parts[WIDE].append(("*", level, module))

    def value_of(value: list) -> object:
        if value and value[0] == "def":
            return ["def", qualname[value[1]]]
        return value

    for index, row in enumerate(scopes):
        parent = row[SCOPE_PARENT]
        add(owner[index], (
            row[SCOPE_KIND], row[SCOPE_NAME], row[SCOPE_QUALNAME],
            qualname[parent] if parent >= 0 else None,
            row[SCOPE_DECORATORS], row[SCOPE_BASES], row[SCOPE_RETURNS],
        ))  # fmt: skip
    outer = {i for i, row in enumerate(scopes) if row[SCOPE_KIND] != "function"}
    methods = {row[ATTR_SCOPE] for row in facts["attrs"]}
    imported: dict[tuple, set[str]] = {}  # (level, module) of a module-level import → names
    for scope, name, _pos, value, until in sorted(bindings, key=lambda b: (b[0], b[2])):
        if scope == 0:
            add(name, ("b", name, value_of(value), until is not None))
            if value and value[0] == "imp":
                imported.setdefault((0, value[1]), set()).add(name)
            elif value and value[0] == "from":
                imported.setdefault((value[1], value[2]), set()).add(name)
        elif scope in outer or scope in methods:
            add(owner[scope], ("b", qualname[scope], name, value_of(value), until is not None))
    for scope, obj, attr, _pos, value, typ in sorted(facts["attrs"], key=lambda a: (a[0], a[3])):
        add(owner[scope] if obj in ("self", "cls") else WIDE,
            ("a", qualname[scope], obj, attr, value, typ))  # fmt: skip
    for row in facts["imports"]:
        scope, level, module = row[IMPORT_SCOPE], row[IMPORT_LEVEL], row[IMPORT_MODULE]
        item = ("i", qualname[scope], level, module, row[IMPORT_NAMES])
        if scope != 0:
            add(owner[scope], item)
            continue
        if row[IMPORT_NAMES]:
            continue  # a from-import: each name's binding holds its module and level
        bound = set(imported.get((level, module), ()))
        if level == 0:
            bound |= imported.get((0, module.partition(".")[0]), set())
        for name in bound or {WIDE}:
            add(name, item)
    add("__all__", ("all", facts.get("all_parts")))
    for row in facts.get("returns", ()):
        add(owner[row[RETURN_SCOPE]], ("r", qualname[row[RETURN_SCOPE]], row[RETURN_EXPR]))
    for row in facts.get("yields", ()):
        add(owner[row[0]], ("y", qualname[row[0]], row[2]))
    for row in facts.get("callable_params", ()):
        add(owner[row[0]], ("p", qualname[row[0]], row[1:]))
    for scope, shape in _returned_locals(facts):
        add(owner[scope], ("l", qualname[scope], shape))
    for row in facts.get("stores", ()):
        parts[WIDE].append(("s", qualname[row[0]], row[1], row[2], row[3], row[5]))
    for row in facts.get("http", ()):
        if row[0] in ("const", "list"):
            parts[WIDE].append(("h", row))
    # the order of the module's bindings: what a name read at module level (a base, a
    # decorator, a value) finds depends on it, and no one name's part holds it
    # (a star import is one binding, written `*`: no name is that)
    order = [
        name
        for _pos, name in sorted(
            [(b[BINDING_POS], b[BINDING_NAME]) for b in bindings if b[BINDING_SCOPE] == 0]
            + [(pos, WIDE) for pos, _level, _module in stars],
            key=lambda item: item[0],
        )
    ]
    # version 2: the bytes depend on the values only (see interface_of)
    return {ORDER: marshal.dumps(order, 2)} | {
        name: marshal.dumps(items, 2) for name, items in parts.items()
    }


def changed_parts(before: dict[str, bytes], after: dict[str, bytes]) -> set[str] | None:
    """The top-level names whose part of the interface was added, removed or changed; None
    when `WIDE` changed, or the order of the other names' module-level bindings (any
    dependent may resolve differently)."""
    names = {
        name
        for name in before.keys() | after.keys()
        if name != ORDER and before.get(name) != after.get(name)
    }
    if WIDE in names or ALL in names:
        return None
    kept = [[n for n in marshal.loads(p[ORDER]) if n not in names] for p in (before, after)]
    return None if kept[0] != kept[1] else names


def interface_words(parts: dict[str, bytes]) -> dict[str, set[str]]:
    """Each part's identifiers (names, attributes, qualnames, module names, decorators as
    written): the names a lookup through that part may go on to. The tags of the encoding are
    left out (a row's kind, an expression's or value's first element when others are not
    strings: `c` of a call, `from` of an import), so that a name like `c` is not found
    everywhere; a list of strings alone (imported names, `['n', name]`) is taken whole."""
    found: dict[str, set[str]] = {}
    for name, blob in parts.items():
        if name in (ORDER, ALL):
            continue
        words = found[name] = set()
        pending: list[object] = [row[1:] for row in marshal.loads(blob)]
        while pending:
            item = pending.pop()
            if isinstance(item, str):
                words.update(_IDENTIFIER.findall(item))
            elif isinstance(item, tuple):
                pending.extend(item)
            elif isinstance(item, list) and item:
                tagged = isinstance(item[0], str) and not all(isinstance(i, str) for i in item)
                pending.extend(item[1:] if tagged else item)
    return found


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")
