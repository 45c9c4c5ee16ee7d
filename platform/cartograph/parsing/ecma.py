"""TypeScript, TSX and JavaScript (ES modules, CommonJS, JSX) facts with tree-sitter's Query API.

`extract(language, source)` returns plain data (it crosses process boundaries and is stored
compressed beside the file). It knows nothing of paths or other files: qualnames are relative
to the module ("Class.method"); `cartograph.resolve.ecma` turns facts into symbols and edges.

The layout of the facts (every table and every position of its rows) is written down in
`cartograph.parsing.facts`.
"""

from __future__ import annotations

import hashlib
import marshal
import re
from bisect import bisect_right
from functools import cache
from typing import TYPE_CHECKING, Any, cast

import tree_sitter
from cartograph.languages import grammar, names, query_text
from cartograph.parsing.ecma_services import (
    HTTP_CALLEES,
    HTTP_DECORATORS,
    Values,
    assigned_name,
)
from cartograph.parsing.facts import (
    ECMA_BINDING_SCOPE,
    ECMA_SCOPE_END_BYTE,
    ECMA_SCOPE_EXPORTED,
    ECMA_SCOPE_INFO,
    ECMA_SCOPE_KIND,
    ECMA_SCOPE_NAME,
    ECMA_SCOPE_PARENT,
    ECMA_SCOPE_QUALNAME,
    ECMA_SCOPE_START,
    ECMA_SCOPE_START_BYTE,
)

if TYPE_CHECKING:
    from cartograph.parsing.nodes import Captures, Node

FACTS_VERSION = 5
LANGUAGES = names("ecma")
MAX_TEXT = 120
MAX_DEPTH = 48
MAX_SIGNATURE = 300
_WS = re.compile(r"\s+")


def _first_overload(node: Node, name: str) -> Node | None:
    """The first of the overload signatures (`function f(a: string): string;`, exported or
    not) written right above a function's implementation, or None."""
    first = None
    sibling = node.prev_named_sibling
    while sibling is not None:
        if sibling.type == "comment":
            sibling = sibling.prev_named_sibling
            continue
        signature = sibling
        if sibling.type == "export_statement":
            signature = sibling.child_by_field_name("declaration") or sibling
        if signature.type != "function_signature":
            break
        named = signature.child_by_field_name("name")
        if named is None or _text(named) != name:
            break
        first = sibling
        sibling = sibling.prev_named_sibling
    return first


def _name_type_space(scopes: list[list]) -> None:
    """A type alias or interface that shares its name with a value declared beside it (a
    function, class, enum or object in the same scope) takes TYPE_SPACE_SUFFIX in its qualname
    (and so do its members'): the two are different symbols. Every other qualname stays."""
    values = {
        (row[ECMA_SCOPE_PARENT], row[ECMA_SCOPE_NAME])
        for index, row in enumerate(scopes)
        if index and row[ECMA_SCOPE_KIND] not in TYPE_SPACE_KINDS
    }
    if not any(
        row[ECMA_SCOPE_KIND] in TYPE_SPACE_KINDS
        and (row[ECMA_SCOPE_PARENT], row[ECMA_SCOPE_NAME]) in values
        for row in scopes[1:]
    ):
        return
    for index, row in enumerate(scopes):
        if not index:
            continue
        parent, name = row[ECMA_SCOPE_PARENT], row[ECMA_SCOPE_NAME]
        if row[ECMA_SCOPE_KIND] in TYPE_SPACE_KINDS and (parent, name) in values:
            name += TYPE_SPACE_SUFFIX
        outer = scopes[parent][ECMA_SCOPE_QUALNAME] if parent else ""
        row[ECMA_SCOPE_QUALNAME] = f"{outer}.{name}" if outer else name


_FUNCTION_NODES = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "function_expression",
        "function",
        "generator_function",
        "arrow_function",
        "method_definition",
    }
)
_METHOD_NODES = frozenset({"method_definition", "method_signature", "abstract_method_signature"})
_CLASS_NODES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
# declarations of the type space only: a value of the same name beside one is another thing
# (`export type OK<T> = …` and `export const OK = …`), whose qualname stays the plain name
TYPE_SPACE_KINDS = frozenset({"type", "interface"})
TYPE_SPACE_SUFFIX = ":type"
# definitions that are values: named by what they are bound to
_VALUE_DEFINITIONS = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function", "class"}
)
_FIELDS = frozenset({"public_field_definition", "field_definition"})
_NAMED_VALUE_PARENTS = frozenset({"variable_declarator", "pair", "public_field_definition"})

# the definitions of the query files, by capture name (the kind is read from the node)
_DEFINITION_CAPTURES = (
    "definition.function",
    "definition.class",
    "definition.method",
    "definition.interface",
    "definition.type",
    "definition.enum",
    "definition.object",
)


@cache
def _query(language: str) -> tree_sitter.Query:
    """The language's query files (queries/ecma*.scm, listed in the language registry)."""
    return tree_sitter.Query(grammar(language), query_text(language))


@cache
def _parser(language: str) -> tree_sitter.Parser:
    return tree_sitter.Parser(grammar(language))


def _text(node: Node) -> str:
    return node.text.decode("utf-8", "replace")


def _short(node: Node, limit: int = MAX_TEXT) -> str:
    text = _WS.sub(" ", node.text.decode("utf-8", "replace")).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _string(node: Node | None) -> str | None:
    """The value of a string literal (or a template without substitutions)."""
    if node is None:
        return None
    if node.type == "string":
        return "".join(_text(c) for c in node.named_children if c.type == "string_fragment")
    if node.type == "template_string" and not any(
        c.type == "template_substitution" for c in node.named_children
    ):
        return "".join(_text(c) for c in node.named_children if c.type == "string_fragment")
    return None


# ---------------------------------------------------------------- expressions and types


def expr_of(node: Node | None, depth: int = 0) -> list | None:
    if node is None or depth > MAX_DEPTH:
        return None
    kind = node.type
    if kind in ("identifier", "shorthand_property_identifier"):
        return ["n", _text(node)]
    if kind == "this":
        return ["this"]
    if kind == "super":
        return ["super"]
    if kind == "member_expression":
        base = expr_of(node.child_by_field_name("object"), depth + 1)
        prop = node.child_by_field_name("property")
        if base is None or prop is None or prop.type == "private_property_identifier":
            return None if base is None or prop is None else ["a", base, _text(prop)]
        return ["a", base, _text(prop)]
    if kind == "call_expression":
        func = expr_of(node.child_by_field_name("function"), depth + 1)
        return ["c", func] if func is not None else None
    if kind == "new_expression":
        cls = expr_of(node.child_by_field_name("constructor"), depth + 1)
        return ["new", cls] if cls is not None else None
    if kind == "subscript_expression":
        base = expr_of(node.child_by_field_name("object"), depth + 1)
        index = node.child_by_field_name("index")
        key: str | int | None = (
            _string(index) if index is not None and index.type == "string" else None
        )
        if index is not None and index.type == "number" and _text(index).isdigit():
            key = int(_text(index))
        return (["i", base] if key is None else ["i", base, key]) if base is not None else None
    if kind in ("parenthesized_expression", "non_null_expression", "await_expression"):
        inner = node.named_children
        return expr_of(inner[0], depth + 1) if inner else None
    if kind in ("as_expression", "satisfies_expression", "type_assertion"):
        inner = node.named_children
        if kind == "as_expression" and len(inner) == 2:
            typ = type_of(inner[1], depth + 1)
            if typ is not None:
                return ["cast", typ]
        return expr_of(inner[0], depth + 1) if inner else None
    return None


def type_of(node: Node | None, depth: int = 0) -> list | None:
    if node is None or depth > MAX_DEPTH:
        return None
    kind = node.type
    if kind == "type_annotation":
        inner = node.named_children
        return type_of(inner[0], depth + 1) if inner else None
    if kind in ("type_identifier", "identifier"):
        return ["n", _text(node)]
    if kind == "nested_type_identifier":
        parts = _text(node).split(".")
        encoded: list = ["n", parts[0]]
        for part in parts[1:]:
            encoded = ["a", encoded, part]
        return encoded
    if kind == "generic_type":
        base = type_of(node.named_children[0], depth + 1)
        args_node = node.child_by_field_name("type_arguments")
        args = []
        if args_node is not None:
            args = [type_of(c, depth + 1) for c in args_node.named_children]
        return ["g", base, args] if base is not None else None
    if kind == "union_type":
        alternatives = [type_of(c, depth + 1) for c in node.named_children]
        return ["u", [a for a in alternatives if a is not None]]
    if kind == "array_type":
        inner = node.named_children
        return ["arr", type_of(inner[0], depth + 1)] if inner else None
    if kind in ("parenthesized_type", "readonly_type"):
        inner = node.named_children
        return type_of(inner[0], depth + 1) if inner else None
    return None


def type_names(typ: list | None) -> list[list]:
    """Every named type a type mentions (for REFERENCES)."""
    if typ is None:
        return []
    tag = typ[0]
    if tag in ("n", "a"):
        return [typ]
    if tag == "g":
        found = type_names(typ[1])
        for arg in typ[2]:
            found += type_names(arg)
        return found
    if tag == "u":
        return [n for alt in typ[1] for n in type_names(alt)]
    if tag == "arr":
        return type_names(typ[1])
    return []


# ---------------------------------------------------------------- extraction


class _Extractor:
    def __init__(self, language: str, source: bytes) -> None:
        self.language = language
        self.source = source
        tree = _parser(language).parse(source)
        self.root = tree.root_node
        lines = source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1)
        self.facts: dict = {
            "v": FACTS_VERSION,
            "lines": lines,
            "errors": 0,
            "scopes": [["module", "", "", -1, 1, max(lines, 1), "", "", True, {}, 0, len(source)]],
            "bindings": [],
            "members": [],
            "refs": [],
            "exports": [],
            "module_value": None,
            "reexports": [],
            "imports": [],
            "arguments": [],
            "returns": [],
            "http": [],  # routes, routers and requests (parsing.ecma_services)
        }
        self.scope_of_node: dict[int, int] = {self.root.id: 0}
        self.scope_starts: list[int] = [0]
        self.scope_nodes: list[int] = [self.root.id]
        self.decorators: list[tuple[int, int, int | None]] = []
        self.decorator_starts: list[int] = []
        self.values = Values(expr_of, self.scope_of_node)

    # -- scopes
    def enclosing(self, node: Node) -> int:
        """The scope a node's code runs in: the innermost scope whose range holds it (scopes
        are nodes, so that is its nearest scope ancestor); code in a decorator runs for what
        it decorates. Found by bisection: a walk up the tree costs more."""
        position, end = node.start_byte, node.end_byte
        if self.decorators:
            index = bisect_right(self.decorator_starts, position) - 1
            if index >= 0:
                _start, stop, target = self.decorators[index]
                if position < stop and end <= stop and target is not None:
                    return target
        scopes = self.facts["scopes"]
        index = bisect_right(self.scope_starts, position) - 1
        while index > 0 and (
            scopes[index][ECMA_SCOPE_END_BYTE] < end or self.scope_nodes[index] == node.id
        ):
            index = scopes[index][ECMA_SCOPE_PARENT]
        return max(index, 0)

    def this_is_rebound(self, node: Node) -> bool:
        """An unnamed `function` between a node and its scope gives `this` another meaning."""
        current = node.parent
        while current is not None and current.id not in self.scope_of_node:
            if current.type in ("function_expression", "function", "generator_function"):
                return True
            current = current.parent
        return False

    def run(self) -> dict:
        # once per file: the nodes of a tree parsed from bytes (cartograph.parsing.nodes)
        captures = cast(
            "Captures", tree_sitter.QueryCursor(_query(self.language)).captures(self.root)
        )
        # capture lists are not in document order, and their order changes from one call to the
        # next: sorted, outer nodes first, facts are positional and reproducible
        for nodes in captures.values():
            nodes.sort(key=_document_order)
        defs = sorted(
            [node for name in _DEFINITION_CAPTURES for node in captures.get(name, [])],
            key=_document_order,
        )
        for node in defs:  # outer definitions first: parents are known before children
            self.definition(node)
        decorated = []
        for node in captures.get("decorator", []):
            target = _decorated(node)
            scope = self.scope_of_node.get(target.id) if target is not None else None
            decorated.append((node.start_byte, node.end_byte, scope))
        self.decorators = sorted(decorated)
        self.decorator_starts = [d[0] for d in self.decorators]
        self.facts["errors"] = len(captures.get("error", []))
        for node in captures.get("import", []):
            self.import_statement(node)
        for node in captures.get("export", []):
            self.export_statement(node)
        for node in captures.get("var", []):
            self.variable(node)
        for node in captures.get("field", []):
            self.field(node)
        for node in captures.get("assign", []):
            self.assignment(node)
        for node in captures.get("reference.call", []):
            self.call(node)
        for node in captures.get("reference.class", []):
            self.new(node)
        for node in captures.get("ref", []):
            self.value_ref(node)
        for node in captures.get("jsx", []):
            self.jsx(node)
        for node in captures.get("return", []):
            self.returned(node)
        for node in captures.get("reference.type", []):
            self.type_ref(node)
        _name_type_space(self.facts["scopes"])
        return self.facts

    def add_scope(
        self,
        node: Node,
        kind: str,
        name: str,
        parent: int,
        info: dict,
        exported: bool = False,
        sig_node: Node | None = None,
    ) -> int:
        # scopes are added in source order (outer first), so their starts stay sorted
        scopes = self.facts["scopes"]
        parent_rel = scopes[parent][ECMA_SCOPE_QUALNAME] if parent else ""
        rel = f"{parent_rel}.{name}" if parent_rel else name
        signature = _signature(sig_node or node)
        index = len(scopes)
        scopes.append(
            [
                kind,
                name,
                rel,
                parent,
                node.start_point[0] + 1,
                node.end_point[0] + 1,
                signature,
                _doc(node),
                exported,
                info,
                node.start_byte,
                node.end_byte,
            ]
        )
        self.scope_of_node[node.id] = index
        self.scope_starts.append(node.start_byte)
        self.scope_nodes.append(node.id)
        return index

    def definition(self, node: Node) -> None:
        kind = node.type
        parent = self.enclosing(node)
        scopes = self.facts["scopes"]
        owner = node.parent
        if owner is None:  # the root, which no query captures as a definition
            return
        exported = owner.type == "export_statement"
        if kind == "object":  # `const api = { get() {} }`
            declarator = owner
            name_node = declarator.child_by_field_name("name")
            if name_node is None or name_node.type != "identifier":
                return
            props = []  # `{ a: handleA, b }`: values a subscript or a member access reaches
            for pair in node.named_children:
                if pair.type == "pair":
                    key = pair.child_by_field_name("key")
                    value = expr_of(pair.child_by_field_name("value"))
                    if key is not None and value is not None:
                        name = _string(key) if key.type == "string" else _text(key)
                        props.append([name, value])
                elif pair.type == "shorthand_property_identifier":
                    props.append([_text(pair), ["n", _text(pair)]])
            object_info: dict[str, Any] = {"props": props} if props else {}
            index = self.add_scope(
                node, "object", _text(name_node), parent, object_info, sig_node=node
            )
            scopes[index][ECMA_SCOPE_EXPORTED] = _declaration_exported(declarator)
            self.bind(parent, _text(name_node), ["def", index])
            return
        name_node = node.child_by_field_name("name")
        name = _text(name_node) if name_node is not None else None
        sig_node = node
        if kind in _VALUE_DEFINITIONS:
            # named by what it is bound to: a variable, an object property, a class field
            if owner.type in _NAMED_VALUE_PARENTS:
                key = owner.child_by_field_name("name") or owner.child_by_field_name("key")
                if key is None or key.type not in (
                    "identifier",
                    "property_identifier",
                    "string",
                    "private_property_identifier",
                ):
                    self.anonymous(node, parent)
                    return
                name = _text(key) if key.type != "string" else _string(key)
                if (
                    owner.type == "variable_declarator"
                    and owner.child_by_field_name("value") != node
                ):
                    self.anonymous(node, parent)
                    return
                if owner.type == "pair" and (
                    (literal := owner.parent) is None or self.scope_of_node.get(literal.id) is None
                ):
                    self.anonymous(node, parent)  # an object literal that is not a named scope
                    return
                sig_node = owner
                if owner.type == "variable_declarator":
                    exported = _declaration_exported(owner)
            elif owner.type == "export_statement" and name is None:
                name = "default"  # `export default function () {}` / `export default class {}`
            elif owner.type == "assignment_expression":
                target = owner.child_by_field_name("left")
                tail = _exports_target(target)
                if tail is None:
                    self.anonymous(node, parent)
                    return
                if name is None:  # a named class or function expression keeps its name
                    name = tail if tail != "=" else "default"
                exported = True
            elif name is None:
                self.anonymous(node, parent)
                return
        if name is None:
            self.anonymous(node, parent)
            return
        parent_kind = scopes[parent][ECMA_SCOPE_KIND]
        info: dict[str, Any]
        if kind in _CLASS_NODES:
            info = {"ext": None, "impl": [], "dec": _decorator_exprs(node)}
            for child in node.named_children:
                if child.type == "class_heritage":
                    self.heritage(child, info)
            index = self.add_scope(node, "class", name, parent, info, exported, sig_node)
        elif kind == "interface_declaration":
            info = {"ext": None, "impl": []}
            for child in node.named_children:
                if child.type == "extends_type_clause":
                    info["impl"] = [type_of(c) for c in child.named_children]
            index = self.add_scope(node, "interface", name, parent, info, exported, sig_node)
        elif kind == "type_alias_declaration":
            info = {"value": type_of(node.child_by_field_name("value"))}
            index = self.add_scope(node, "type", name, parent, info, exported, sig_node)
        elif kind == "enum_declaration":
            index = self.add_scope(node, "enum", name, parent, {}, exported, sig_node)
        else:
            member = kind in _METHOD_NODES or owner.type in _FIELDS
            is_method = member or (owner.type == "pair" and parent_kind == "object")
            info = self.function_info(node)
            if member:
                info["static"] = any(
                    c.type == "static"
                    for c in (owner if owner.type != "class_body" else node).children
                )
                info["dec"] = _decorator_exprs(node)
            if kind in _METHOD_NODES and any(
                c.type in ("get", "set") for c in node.children if not c.is_named
            ):
                info["accessor"] = True
            index = self.add_scope(
                node, "method" if is_method else "function", name, parent, info, exported, sig_node
            )
            first = _first_overload(node if owner.type != "export_statement" else owner, name)
            if first is not None:  # `function f(a: string): …;` above: one symbol from there
                # (no scope starts between them: the signatures' types are the function's)
                scopes[index][ECMA_SCOPE_START] = first.start_point[0] + 1
                scopes[index][ECMA_SCOPE_START_BYTE] = first.start_byte
                self.scope_starts[-1] = first.start_byte
            self.bind_params(index, node)
        # a declaration binds its name in the enclosing scope (members do not)
        if (
            parent_kind not in ("class", "object", "interface")
            and kind not in _METHOD_NODES
            and owner.type not in ("pair", "assignment_expression")
        ):
            self.bind(parent, name, ["def", index])
        if kind in ("function_expression", "class") and name_node is not None:
            # a named function expression sees its own name
            self.bind(index, _text(name_node), ["def", index])

    def anonymous(self, node: Node, parent: int) -> None:
        """A function nobody names (a callback): its code belongs to the enclosing scope, its
        parameters shadow outer names inside it only."""
        params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        if params is None:
            return
        for name, typ, _prop in _parameters(params):
            self.bind(parent, name, ["param", typ], node.start_byte, node.end_byte)

    def function_info(self, node: Node) -> dict:
        params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        ret = node.child_by_field_name("return_type")
        return {
            "params": _parameters(params) if params is not None else [],
            "ret": type_of(ret),
            "static": False,
            "dec": [],
            "async": any(c.type == "async" for c in node.children),
            "arrow": node.type == "arrow_function",
        }

    def bind_params(self, scope: int, node: Node) -> None:
        row = self.facts["scopes"][scope]
        info, parent = row[ECMA_SCOPE_INFO], row[ECMA_SCOPE_PARENT]
        for name, typ, prop in info["params"]:
            self.bind(scope, name, ["param", typ])
            if prop and row[ECMA_SCOPE_NAME] == "constructor":
                self.facts["members"].append([parent, name, None, typ, "injection"])

    def heritage(self, node: Node, info: dict) -> None:
        for clause in node.named_children:
            if clause.type == "extends_clause":
                value = clause.child_by_field_name("value")
                info["ext"] = expr_of(value) if value is not None else None
            elif clause.type == "implements_clause":
                info["impl"] = [type_of(c) for c in clause.named_children]
            elif clause.type not in ("comment",):  # JavaScript: class_heritage holds the value
                info["ext"] = expr_of(clause)

    def bind(
        self, scope: int, name: str, binding: list, start: int | None = None, end: int | None = None
    ) -> None:
        self.facts["bindings"].append([scope, name, binding, start, end])

    # -- modules
    def import_statement(self, node: Node) -> None:
        source = _string(node.child_by_field_name("source"))
        if source is None:
            return
        type_only = any(c.type == "type" for c in node.children if not c.is_named)
        names: list[str | None] = []  # a quoted name is read by _string (str | None)
        scope = self.enclosing(node)
        for clause in node.named_children:
            if clause.type != "import_clause":
                continue
            for part in clause.named_children:
                if part.type == "identifier":
                    self.bind(scope, _text(part), ["imp", source, "default"])
                    names.append("default")
                elif part.type == "namespace_import":
                    for ident in part.named_children:
                        if ident.type == "identifier":
                            self.bind(scope, _text(ident), ["imp", source, "*"])
                            names.append("*")
                elif part.type == "named_imports":
                    for spec in part.named_children:
                        if spec.type != "import_specifier":
                            continue
                        imported = spec.child_by_field_name("name")
                        if imported is None:
                            continue
                        alias = spec.child_by_field_name("alias") or imported
                        imported_name = (
                            _string(imported) if imported.type == "string" else _text(imported)
                        )
                        self.bind(scope, _text(alias), ["imp", source, imported_name])
                        names.append(imported_name)
        self.facts["imports"].append(
            [source, names, node.start_point[0] + 1, "type" if type_only else "esm"]
        )

    def export_statement(self, node: Node) -> None:
        exports = self.facts["exports"]
        source = _string(node.child_by_field_name("source"))
        declaration = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        is_default = any(c.type == "default" for c in node.children if not c.is_named)
        if source is not None:
            names: list[str] = []
            clause = None
            for child in node.named_children:
                if child.type in ("export_clause", "namespace_export"):
                    clause = child
            if clause is None:
                self.facts["reexports"].append([source, "*", "*"])
                names.append("*")
            elif clause.type == "namespace_export":
                alias = clause.named_children[-1] if clause.named_children else None
                self.facts["reexports"].append([source, "*", _text(alias) if alias else "*"])
                names.append("*")
            else:
                for spec in clause.named_children:
                    if spec.type != "export_specifier":
                        continue
                    name = spec.child_by_field_name("name")
                    if name is None:
                        continue
                    alias = spec.child_by_field_name("alias") or name
                    self.facts["reexports"].append([source, _text(name), _text(alias)])
                    names.append(_text(name))
            self.facts["imports"].append([source, names, node.start_point[0] + 1, "esm"])
            return
        if declaration is not None:
            if declaration.type in ("lexical_declaration", "variable_declaration"):
                for declarator in declaration.named_children:
                    if declarator.type == "variable_declarator":
                        name = declarator.child_by_field_name("name")
                        if name is not None and name.type == "identifier":
                            exports.append([_text(name), _text(name)])
            else:
                name = declaration.child_by_field_name("name")
                if name is not None:
                    exports.append(["default" if is_default else _text(name), _text(name)])
            return
        if is_default and value is not None:
            if value.type == "identifier":
                exports.append(["default", _text(value)])
            elif value.type in _FUNCTION_NODES or value.type in _CLASS_NODES:
                index = self.scope_of_node.get(value.id)
                if index is not None:
                    exports.append(["default", f"={index}"])
            else:
                expr = expr_of(value)
                if expr is not None:
                    exports.append(["default", ["expr", expr]])
            return
        for child in node.named_children:
            if child.type == "export_clause":
                for spec in child.named_children:
                    if spec.type != "export_specifier":
                        continue
                    name = spec.child_by_field_name("name")
                    if name is not None:
                        alias = spec.child_by_field_name("alias") or name
                        exports.append([_text(alias), _text(name)])

    def variable(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        scope = self.enclosing(node)
        if name is None:
            return
        if name.type == "object_pattern":  # const { a, b: c } = require('x') / = obj
            source = _require_source(value)
            for prop in name.named_children:
                if prop.type == "shorthand_property_identifier_pattern":
                    local = imported = _text(prop)
                elif prop.type == "pair_pattern":
                    key, val = prop.child_by_field_name("key"), prop.child_by_field_name("value")
                    if key is None or val is None or val.type != "identifier":
                        continue
                    imported, local = _text(key), _text(val)
                else:
                    continue
                if source is not None:
                    self.bind(scope, local, ["req", source, imported])
                else:
                    self.bind(scope, local, ["val", None, None])
            if source is not None:
                self.facts["imports"].append([source, [], node.start_point[0] + 1, "cjs"])
            return
        if name.type != "identifier":
            return
        if value is not None and value.id in self.scope_of_node:
            return  # a named function, class or object literal: bound by definition()
        source = _require_source(value)
        if source is not None:
            self.bind(scope, _text(name), ["req", source, None])
            self.facts["imports"].append([source, [], node.start_point[0] + 1, "cjs"])
            return
        if value is not None and value.type == "member_expression":
            inner = _require_source(value.child_by_field_name("object"))
            attr = value.child_by_field_name("property")
            if inner is not None and attr is not None:  # const x = require('m').x
                self.bind(scope, _text(name), ["req", inner, _text(attr)])
                self.facts["imports"].append([inner, [], node.start_point[0] + 1, "cjs"])
                return
        typ = type_of(node.child_by_field_name("type"))
        self.bind(scope, _text(name), ["val", expr_of(value), typ])
        if scope == 0 and value is not None:
            template = self.values.template(value)
            if template is not None and any(isinstance(p, str) and p for p in template):
                self.facts["http"].append(["const", 0, _text(name), template])

    def field(self, node: Node) -> None:
        """A class field: what `this.name` holds (a method when it holds a function)."""
        scope = self.enclosing(node)
        if self.facts["scopes"][scope][ECMA_SCOPE_KIND] != "class":
            return
        name = node.child_by_field_name("name") or node.child_by_field_name("property")
        value = node.child_by_field_name("value")
        if name is None or (value is not None and value.id in self.scope_of_node):
            return
        typ = type_of(node.child_by_field_name("type"))
        self.facts["members"].append(
            [scope, _text(name), expr_of(value), typ, "annotation" if typ else "field"]
        )

    def assignment(self, node: Node) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return
        target = _exports_target(left)
        if target is not None:
            self.commonjs_export(target, right)
            return
        if left.type == "member_expression":
            obj = left.child_by_field_name("object")
            prop = left.child_by_field_name("property")
            if obj is not None and obj.type == "this" and prop is not None:
                scope = self.enclosing(node)
                cls = self.class_of(scope)
                if cls is not None:
                    value = expr_of(right)
                    typ = None
                    if right.type == "identifier":  # this.svc = svc, typed by its parameter
                        value = ["n", _text(right)]
                    self.facts["members"].append([cls, _text(prop), value, typ, "value", scope])
        elif left.type == "identifier":
            scope = self.enclosing(node)
            self.bind(scope, _text(left), ["val", expr_of(right), None], node.start_byte, None)

    def commonjs_export(self, target: str, right: Node) -> None:
        exports = self.facts["exports"]
        if right.id in self.scope_of_node:
            index = self.scope_of_node[right.id]
            if target == "=":
                self.facts["module_value"] = f"={index}"
            else:
                exports.append([target, f"={index}"])
            return
        if target == "=":
            if right.type == "identifier":
                self.facts["module_value"] = _text(right)
            elif right.type == "object":
                for prop in right.named_children:
                    if prop.type == "shorthand_property_identifier":
                        exports.append([_text(prop), _text(prop)])
                    elif prop.type == "pair":
                        key, val = (
                            prop.child_by_field_name("key"),
                            prop.child_by_field_name("value"),
                        )
                        if key is None or val is None:
                            continue
                        if val.type == "identifier":
                            exports.append([_text(key), _text(val)])
                        elif val.id in self.scope_of_node:
                            exports.append([_text(key), f"={self.scope_of_node[val.id]}"])
                    elif prop.type == "method_definition" and prop.id in self.scope_of_node:
                        name = prop.child_by_field_name("name")
                        if name is not None:
                            exports.append([_text(name), f"={self.scope_of_node[prop.id]}"])
            else:
                source = _require_source(right)
                if source is not None:
                    self.facts["reexports"].append([source, "*", "="])
            return
        if right.type == "identifier":
            exports.append([target, _text(right)])
        else:
            source = _require_source(right)
            if source is not None:
                self.facts["reexports"].append([source, "*", target])

    def class_of(self, scope: int) -> int | None:
        """The class whose method (or a function nested in one) `scope` is."""
        scopes = self.facts["scopes"]
        while scope > 0:
            parent = scopes[scope][ECMA_SCOPE_PARENT]
            if (
                scopes[parent][ECMA_SCOPE_KIND] == "class"
                and scopes[scope][ECMA_SCOPE_KIND] == "method"
            ):
                return parent
            scope = parent
        return None

    # -- uses
    def call(self, node: Node) -> None:
        func = node.child_by_field_name("function")
        if func is None:
            return
        if func.type == "import":  # import('./lazy')
            args = node.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            source = _string(first)
            if source is not None:
                self.facts["imports"].append([source, [], node.start_point[0] + 1, "dynamic"])
            return
        if func.type == "identifier" and func.text == b"require":
            return
        if node.parent is not None and node.parent.type == "decorator":
            self.decorator_call(node.parent, expr_of(func))
            return
        expr = expr_of(func)
        if expr is None:
            text = _short(func)
            expr = ["?", text]
        self.ref(node, "c", expr)
        self.arguments(node)
        if _last_name(expr) in HTTP_CALLEES:
            self.http_call(node, expr)

    def http_call(self, node: Node, expr: list) -> None:
        """A call that may declare a route or send a request (parsing.ecma_services)."""
        scope = self.enclosing(node)
        if _uses_this(expr) and self.this_is_rebound(node):
            return
        self.facts["http"].append(
            [
                "call",
                scope,
                expr,
                self.values.arguments(node),
                node.start_byte,
                node.start_point[0] + 1,
                assigned_name(node),
            ]
        )

    def arguments(self, node: Node) -> None:
        """The arguments of a call that may be callable values (names, member accesses), by
        position: [call position, [[index, expr], ...]]."""
        args = node.child_by_field_name("arguments")
        if args is None:
            return
        passed = []
        for index, child in enumerate(args.named_children):
            if child.type == "spread_element":
                break
            if child.type in ("identifier", "member_expression"):
                encoded = expr_of(child)
                if encoded is not None:
                    passed.append([index, encoded])
        if passed:
            self.facts["arguments"].append([node.start_byte, passed])

    def decorator_call(self, decorator: Node, expr: list | None) -> None:
        """`@Injectable()` runs where the decorated class or method is defined (the enclosing
        scope of a class, the class of a method): a call from there; the decorated definition
        references it (see `_decorator_exprs`)."""
        target = _decorated(decorator)
        scope = self.scope_of_node.get(target.id) if target is not None else None
        if scope is None or expr is None:
            return
        line = decorator.start_point[0] + 1
        parent = self.facts["scopes"][scope][ECMA_SCOPE_PARENT]
        self.facts["refs"].append([max(parent, 0), "c", expr, line, decorator.start_byte])
        if _last_name(expr) in HTTP_DECORATORS:
            inner = decorator.named_children
            called = bool(inner) and inner[0].type == "call_expression"
            values = self.values.arguments(inner[0]) if called else []
            self.facts["http"].append(["dec", scope, expr, values, line])

    def returned(self, node: Node) -> None:
        """`return value` in a function: what a call of it gives (a closure, a function)."""
        value = node.named_children[0] if node.named_child_count else None
        function = node.parent
        while function is not None and function.type not in _FUNCTION_NODES:
            function = function.parent
        scope = self.scope_of_node.get(function.id) if function is not None else None
        if value is None or scope is None or scope <= 0:
            return  # a return of an anonymous callback is not its enclosing function's
        if self.facts["scopes"][scope][ECMA_SCOPE_KIND] not in ("function", "method"):
            return
        encoded = expr_of(value)
        if encoded is not None:
            self.facts["returns"].append([scope, encoded, node.start_byte])

    def new(self, node: Node) -> None:
        cls = expr_of(node.child_by_field_name("constructor"))
        if cls is not None:
            self.ref(node, "n", cls)
            if _last_name(cls) in HTTP_CALLEES:
                self.http_call(node, cls)

    def value_ref(self, node: Node) -> None:
        parent = node.parent
        if parent is not None and parent.type == "arguments":
            call = parent.parent
            if call is not None and call.type == "call_expression":
                func = call.child_by_field_name("function")
                if func is not None and func.type == "identifier" and func.text == b"require":
                    return
        if parent is not None and parent.type in ("pair", "object"):
            # `module.exports = { a: b }` exports, it does not use
            obj = parent.parent if parent.type == "pair" else parent
            assign = obj.parent if obj is not None else None
            if assign is not None and assign.type == "assignment_expression":
                left = assign.child_by_field_name("left")
                if left is not None and _exports_target(left) == "=":
                    return
        expr = expr_of(node)
        if expr is not None:
            self.ref(node, "r", expr)

    def jsx(self, node: Node) -> None:
        text = _text(node)
        if not text or not (text[0].isupper() or "." in text):
            return  # <div>: an intrinsic element
        expr = expr_of(node) if node.type != "nested_identifier" else None
        if expr is None:
            parts = text.split(".")
            expr = ["n", parts[0]]
            for part in parts[1:]:
                expr = ["a", expr, part]
        self.ref(node, "j", expr)

    def type_ref(self, node: Node) -> None:
        typ = type_of(node)
        for name in type_names(typ):
            self.ref(node, "t", name)

    def ref(self, node: Node, kind: str, expr: list) -> None:
        scope = self.enclosing(node)
        if _uses_this(expr) and self.this_is_rebound(node):
            expr = _opaque_this(expr)  # `this` of a callback `function`: unknown
        self.facts["refs"].append([scope, kind, expr, node.start_point[0] + 1, node.start_byte])


_FUNCTION_NODES = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "function_expression",
        "generator_function",
        "arrow_function",
        "method_definition",
    }
)


def _last_name(expr: list | None) -> str | None:
    if expr is None:
        return None
    return expr[2] if expr[0] == "a" else expr[1] if expr[0] == "n" else None


def _document_order(node: Node) -> tuple[int, int]:
    return node.start_byte, -node.end_byte


def _uses_this(expr: list | None) -> bool:
    while expr is not None and expr[0] in ("a", "c", "new"):
        expr = expr[1]
    return expr is not None and expr[0] in ("this", "super")


def _opaque_this(expr: list) -> list:
    """The same expression with its root `this`/`super` made unknown (kept for display)."""
    if expr[0] in ("this", "super"):
        return ["?", expr[0]]
    return [expr[0], _opaque_this(expr[1]), *expr[2:]]


def _parameters(params: Node) -> list[list]:
    """[name, type, is_property] of each parameter (destructured ones are left out)."""
    found: list[list] = []
    if params.type == "identifier":  # x => …
        return [[_text(params), None, False]]
    for param in params.named_children:
        kind = param.type
        if kind == "identifier":
            found.append([_text(param), None, False])
        elif kind in ("required_parameter", "optional_parameter"):
            pattern = param.child_by_field_name("pattern")
            if pattern is None or pattern.type not in ("identifier", "this"):
                continue
            if pattern.type == "this":
                continue
            prop = any(
                c.type in ("accessibility_modifier", "override_modifier")
                or (not c.is_named and c.type == "readonly")
                for c in param.children
            )
            found.append([_text(pattern), type_of(param.child_by_field_name("type")), prop])
        elif kind == "assignment_pattern":
            left = param.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                found.append([_text(left), None, False])
        elif kind == "rest_pattern":
            for child in param.named_children:
                if child.type == "identifier":
                    found.append([_text(child), None, False])
    return found


def _decorators(node: Node) -> list[Node]:
    found = [c for c in node.children if c.type == "decorator"]
    parent = node.parent
    if parent is not None and parent.type == "export_statement":
        found = [c for c in parent.children if c.type == "decorator"] + found
    if not found and node.type in _METHOD_NODES:
        sibling = node.prev_named_sibling
        while sibling is not None and sibling.type == "decorator":
            found.insert(0, sibling)
            sibling = sibling.prev_named_sibling
    return found


def _decorated(decorator: Node) -> Node | None:
    parent = decorator.parent
    if parent is None:
        return None
    if parent.type == "export_statement":
        return parent.child_by_field_name("declaration")
    if parent.type == "class_body":
        sibling = decorator.next_named_sibling
        while sibling is not None and sibling.type == "decorator":
            sibling = sibling.next_named_sibling
        return sibling
    return parent


def _decorator_exprs(node: Node) -> list[list]:
    """The decorators of a class or method, as expressions (`@Log` → `Log`, a factory
    `@Get(":id")` → ["c", `Get`]: what the decorator is is what the call returns)."""
    found = []
    for decorator in _decorators(node):
        callee = _decorator_expr(decorator)
        expr = expr_of(callee)
        if expr is None:
            continue
        inner = decorator.named_children
        called = bool(inner) and inner[0].type == "call_expression"
        found.append(["c", expr] if called else expr)
    return found


def _decorator_expr(node: Node) -> Node | None:
    inner = node.named_children
    if not inner:
        return None
    value = inner[0]
    if value.type == "call_expression":
        return value.child_by_field_name("function")
    return value


def _declaration_exported(declarator: Node) -> bool:
    declaration = declarator.parent
    return (
        declaration is not None
        and declaration.parent is not None
        and declaration.parent.type == "export_statement"
    )


def _exports_target(node: Node | None) -> str | None:
    """`module.exports` → "=", `module.exports.x` / `exports.x` → "x", else None."""
    if node is None or node.type != "member_expression":
        return None
    obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
    if obj is None or prop is None:
        return None
    if obj.type == "identifier" and obj.text == b"module" and prop.text == b"exports":
        return "="
    if obj.type == "identifier" and obj.text == b"exports":
        return _text(prop)
    if obj.type == "member_expression" and _exports_target(obj) == "=":
        return _text(prop)
    return None


def _require_source(node: Node | None) -> str | None:
    """'x' of `require('x')` (also `await import('x')`)."""
    if node is None:
        return None
    if node.type == "await_expression" and node.named_children:
        node = node.named_children[0]
    if node.type != "call_expression":
        return None
    func = node.child_by_field_name("function")
    if func is None or not (
        (func.type == "identifier" and func.text == b"require") or func.type == "import"
    ):
        return None
    args = node.child_by_field_name("arguments")
    if args is None or not args.named_children:
        return None
    return _string(args.named_children[0])


def _signature(node: Node) -> str:
    """The declaration up to its body, on one line."""
    body = node.child_by_field_name("body")
    if node.type == "variable_declarator":
        value = node.child_by_field_name("value")
        body = value.child_by_field_name("body") if value is not None else None
        if value is not None and value.type == "object":
            body = value
    elif node.type in ("pair", "public_field_definition", "field_definition"):
        value = node.child_by_field_name("value")
        body = value.child_by_field_name("body") if value is not None else None
    end = body.start_byte if body is not None else node.end_byte
    raw = node.text[: end - node.start_byte]
    text = _WS.sub(" ", raw.decode("utf-8", "replace")).strip()
    text = text.removesuffix("{").strip().removesuffix("=>").strip().removesuffix("=").strip()
    return text if len(text) <= MAX_SIGNATURE else text[: MAX_SIGNATURE - 1] + "…"


def _doc(node: Node) -> str:
    """The first line of a JSDoc comment right before the declaration."""
    target = node
    while target.parent is not None and target.parent.type in (
        "export_statement",
        "variable_declarator",
        "lexical_declaration",
        "variable_declaration",
    ):
        target = target.parent
    comment = target.prev_sibling
    if comment is None or comment.type != "comment" or not comment.text.startswith(b"/**"):
        return ""
    for line in comment.text.decode("utf-8", "replace").splitlines():
        line = line.strip().lstrip("/*").strip().removesuffix("*/").strip()
        if line and not line.startswith("@"):
            return line[:MAX_TEXT]
    return ""


def extract(language: str, source: bytes) -> dict:
    return _Extractor(language, source).run()


def interface_of(facts: dict) -> bytes:
    """What other files can observe: definitions (names, kinds, members, signatures' types),
    exports, re-exports, member types. Line numbers and call sites are left out."""
    scopes = [
        [
            s[ECMA_SCOPE_KIND],
            s[ECMA_SCOPE_QUALNAME],
            s[ECMA_SCOPE_PARENT],
            s[ECMA_SCOPE_EXPORTED],
            marshal.dumps(s[ECMA_SCOPE_INFO])
            if s[ECMA_SCOPE_KIND] != "function"
            else s[ECMA_SCOPE_INFO].get("ret"),
        ]
        for s in facts["scopes"]
    ]
    visible = [b for b in facts["bindings"] if b[ECMA_BINDING_SCOPE] == 0]
    observed = [
        scopes,
        visible,
        facts["members"],
        facts["exports"],
        facts["reexports"],
        facts["module_value"],
        [(scope, expr) for scope, expr, _pos in facts.get("returns", ())],
        # the string constants another file's requests may take their URL from
        [row for row in facts.get("http", ()) if row[0] == "const"],
    ]
    return hashlib.blake2b(marshal.dumps(observed), digest_size=16).digest()
