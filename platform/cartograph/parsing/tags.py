"""Facts of the generic tier: Go, Java, Kotlin, C#, Rust, Ruby, PHP, C and C++.

`extract(language, source)` parses one file with the language's tree-sitter grammar (a PyPI
wheel) and one tags query (`queries/tags/<language>.scm`, run with the Query API: nothing
walks the whole tree in Python) and returns plain data (lists, str, int, bool, None; it is
marshal-ed). It never raises on a syntax error: whatever parses is extracted, and the error
regions are counted. It knows nothing of other files; `cartograph.resolve.generic` turns the
facts of a repository's files into symbols and edges.

The layout of the facts (every table and every position of its rows) is written down in
`cartograph.parsing.facts`.

The captures the tags queries use (tree-sitter's standard tag names where one exists, so a
grammar's own queries/tags.scm can seed a language):
  @definition.<kind> with @name: a definition; kind: class, interface, enum, type, method,
      function (enum is Cartograph's: no standard name). Cartograph's markers inside one:
      @owner (the receiver's or qualifier's type), @self (the Go receiver's name), @decl
      (a declaration without a body).
  @definition.module with @name: a named scope (namespace block, inline module) whose
      name prefixes the qualnames inside it.
  @reference.call with @name and an optional @recv (Cartograph's: the receiver): a call.
  @reference.class with @name (and an optional @recv, its qualifier): a construction
      (`new X()`, `X{}`); a seed's other @reference.class patterns (type uses) go.
  @reference.implementation: a base class, an implemented interface, an embedded type.
  @doc: a comment (the one right above a definition is its doc).
Cartograph's own: @import (an import statement), @package (the file's package or
namespace), @impl with @owner and an optional @trait (a Rust impl block), @visibility (an
access label or a bare `private`), @error (a syntax error region).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from functools import cache
from typing import TYPE_CHECKING, Any, cast

import tree_sitter
from cartograph.languages import EXTENSIONS, grammar, names, query_text
from cartograph.parsing import go_services, jvm_services
from cartograph.parsing.facts import (
    TAGS_BASE_LINE,
    TAGS_BASE_OWNER,
    TAGS_DEF_DECL,
    TAGS_DEF_EXPORTED,
    TAGS_DEF_KIND,
    TAGS_DEF_MEMBER,
    TAGS_DEF_NAME,
    TAGS_DEF_NS,
    TAGS_DEF_PARENT,
    TAGS_DEF_QUALNAME,
    TAGS_IMPORT_LINE,
)

if TYPE_CHECKING:
    from cartograph.parsing.nodes import Matches, Node

FACTS_VERSION = 3
MAX_SIGNATURE = 300
MAX_TEXT = 120

LANGUAGES = names("generic")
# file extension → language, for the languages of this tier
SUFFIXES: dict[str, str] = {
    extension: language for extension, language in EXTENSIONS.items() if language in LANGUAGES
}
# when a definition node is matched by several patterns (Go `type X struct`), the first wins
_KIND_PRIORITY = ("interface", "enum", "class", "type", "method", "function")
CLASS_KINDS = frozenset({"class", "interface", "enum"})
_WS = re.compile(r"\s+")
_GENERIC = re.compile(r"<[^<>]*>|\[[^\[\]]*\]")
_ANNOTATION = re.compile(r"^(?:@[\w.]+(?:\([^()]*\))?\s*)+")
# a `.h` file with one of these is C++ (parsed with the C++ grammar)
_CPP_HINT = re.compile(
    rb"^[ \t]*(?:class[ \t]+\w+[^;(){}]*\{|struct[ \t]+\w+[ \t]*:[ \t]*\w"
    rb"|namespace(?:[ \t]+[\w:]+)?[ \t]*\{"
    rb"|template[ \t]*<|(?:public|private|protected)[ \t]*:)",
    re.MULTILINE,
)
_COMMENT_MARK = re.compile(r"^\s*(?:/\*\*?|\*/|\*|///?!?|//!|#+|--)\s?")
_DOC_SKIP = frozenset(
    {"attribute_item", "inner_attribute_item", "attribute_list", "annotation", "marker_annotation"}
)


@cache
def _query(name: str) -> tree_sitter.Query:
    """The language's query (queries/tags/<name>.scm, as listed in the language registry)."""
    return tree_sitter.Query(grammar(name), query_text(name))


@cache
def _parser(name: str) -> tree_sitter.Parser:
    return tree_sitter.Parser(grammar(name))


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def _short(text: str, limit: int = MAX_TEXT) -> str:
    text = _WS.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def normalize_type(text: str) -> str:
    """`a::b::Foo<T>` / `\\A\\B` / `*pkg.T` / `Base(x)` → dotted name without generics."""
    text = _WS.sub("", text)
    for _ in range(4):
        stripped = _GENERIC.sub("", text)
        if stripped == text:
            break
        text = stripped
    text = text.split("(", 1)[0].lstrip("*&").rstrip("?*&")
    text = text.replace("::", ".").replace("\\", ".").strip(".")
    return text


def _snippet(source: bytes, start: int, end: int) -> str:
    """Source text, whitespace collapsed and at most MAX_TEXT characters (long receivers
    such as builder chains are cut before decoding)."""
    if end - start > 4 * MAX_TEXT:
        end = start + 4 * MAX_TEXT
    return _short(source[start:end].decode("utf-8", "replace"))


def _line_count(source: bytes) -> int:
    return source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1)


class _Def:
    __slots__ = (
        "decl",
        "doc",
        "end",
        "exported",
        "in_trait_impl",
        "kind",
        "member",
        "name",
        "node",
        "ns",
        "owner",
        "parent",
        "qual",
        "self_name",
        "start",
    )

    def __init__(self, node: Node, kind: str, name: str, owner: str) -> None:
        self.node = node
        self.start = node.start_byte
        self.end = node.end_byte
        self.kind = kind
        self.name = name
        self.owner = owner  # dotted owner type written with the name (Go receiver, C++ Foo::)
        self.qual = ""
        self.parent = -1
        self.ns = ""
        self.member = False
        self.decl = False
        self.exported = True
        self.doc = ""
        self.self_name: str | None = None
        self.in_trait_impl = False


def _def_name(language: str, node: Node) -> tuple[str, str]:
    """(name, owner) of a definition's @name node; owner is dotted, "" when none."""
    kind = node.type
    if kind in ("qualified_identifier", "scope_resolution", "qualified_name"):
        text = normalize_type(_text(node)) if language != "cpp" else _cpp_name(node)
        owner, _, name = text.rpartition(".")
        return name, owner
    if kind == "destructor_name":
        return "~" + _text(node).lstrip("~").strip(), ""
    if kind == "operator_name":
        return _WS.sub("", _text(node)), ""
    return _text(node), ""


def _cpp_name(node: Node | None) -> str:
    parts: list[str] = []
    while node is not None and node.type == "qualified_identifier":
        scope = node.child_by_field_name("scope")
        if scope is not None:
            parts.append(normalize_type(_text(scope)))
        node = node.child_by_field_name("name")
    if node is not None:
        if node.type == "destructor_name":
            parts.append("~" + _text(node).lstrip("~").strip())
        elif node.type == "operator_name":
            parts.append(_WS.sub("", _text(node)))
        else:
            parts.append(normalize_type(_text(node)))
    return ".".join(p for p in parts if p)


def _modifier_text(node: Node, types: tuple[str, ...]) -> str:
    out = []
    for child in node.children:
        if child.type in types:
            out.append(_text(child))
    return " ".join(out)


def _exported(language: str, d: _Def, parent: _Def | None) -> bool:
    node = d.node
    name = d.name
    if language == "go":
        return name[:1].isupper()
    if language == "java":
        if parent is not None and parent.kind == "interface":
            return "private" not in _modifier_text(node, ("modifiers",))
        return "public" in _modifier_text(node, ("modifiers",)).split()
    if language == "csharp":
        if parent is not None and parent.kind == "interface":
            return True
        return "public" in _modifier_text(node, ("modifier",)).split()
    if language == "kotlin":
        mods = node.child_by_field_name("modifiers") or next(
            (c for c in node.children if c.type == "modifiers"), None
        )
        if mods is None:
            return True
        vis = _modifier_text(mods, ("visibility_modifier",))
        return not any(v in vis for v in ("private", "internal", "protected"))
    if language == "rust":
        if d.in_trait_impl or (parent is not None and parent.kind == "interface"):
            return True
        vis = _modifier_text(node, ("visibility_modifier",))
        return vis.startswith("pub") and "self" not in vis
    if language == "php":
        vis = _modifier_text(node, ("visibility_modifier",))
        return "private" not in vis and "protected" not in vis
    if language in ("c", "cpp"):
        storage = _modifier_text(node, ("storage_class_specifier",))
        return "static" not in storage.split() or d.member
    return True


def _signature(source: bytes, node: Node) -> str:
    start = node.start_byte
    parent = node.parent
    if (
        parent is not None
        and parent.type in ("type_declaration", "template_declaration")
        and parent.start_point[0] == node.start_point[0]
    ):
        start = parent.start_byte
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None and body.start_byte > start else node.end_byte
    if end - start > 4 * MAX_SIGNATURE:
        end = start + 4 * MAX_SIGNATURE
    lines = [line for line in source[start:end].decode("utf-8", "replace").splitlines()]
    lines = [line for line in lines if line.strip()]
    # skip attribute and annotation lines before the declaration itself
    while len(lines) > 1 and lines[0].lstrip().startswith(("@", "#[", "[")):
        lines.pop(0)
    # the first line, and the next ones while a parameter list is still open
    taken: list[str] = []
    depth = 0
    for line in lines:
        taken.append(line)
        depth += line.count("(") - line.count(")")
        if depth <= 0 or len(taken) >= 12:
            break
    text = _WS.sub(" ", " ".join(taken)).strip()
    text = _ANNOTATION.sub("", text) or text
    text = text.rstrip("{;=").rstrip()
    return text[:MAX_SIGNATURE]


def _end_row(node: Node) -> int:
    """0-based row of a node's last character (a node may end at column 0 of the next row)."""
    row, column = node.end_point
    return row - 1 if column == 0 and row > node.start_point[0] else row


class _Comments:
    """Comment nodes by the row they end on, to find the block right above a definition."""

    def __init__(self, source: bytes, nodes: list[Node]) -> None:
        self.by_end: dict[int, Node] = {}
        for node in nodes:
            start = node.start_byte
            line_start = source.rfind(b"\n", 0, start) + 1
            if source[line_start:start].strip():
                continue  # a comment after code on its line documents that code
            self.by_end.setdefault(_end_row(node), node)

    def doc(self, node: Node) -> str:
        if not self.by_end:
            return ""
        row = node.start_point[0]
        prev = node.prev_named_sibling
        for _ in range(16):  # attributes between the comment and the item (Rust, C#)
            if prev is None or prev.type not in _DOC_SKIP or _end_row(prev) < row - 1:
                break
            row = prev.start_point[0]
            prev = prev.prev_named_sibling
        comment = self.by_end.get(row - 1)
        if comment is None or comment.start_point[0] == node.start_point[0]:
            return ""
        top = comment
        for _ in range(64):
            above = self.by_end.get(top.start_point[0] - 1)
            if above is None:
                break
            top = above
        for line in _text(top).splitlines():
            line = _COMMENT_MARK.sub("", line).strip().rstrip("*/").strip()
            if line:
                return line[:MAX_SIGNATURE]
        return ""


def _container_name(language: str, node: Node) -> str:
    if language == "cpp":
        return _cpp_name(node) if node.type == "qualified_identifier" else _text(node)
    return normalize_type(_text(node))


def _imports(language: str, node: Node) -> list[list]:
    line = node.start_point[0] + 1
    if language == "go":
        path_node = node.child_by_field_name("path")
        name_node = node.child_by_field_name("name")
        return [[_text(path_node).strip('"`'), _text(name_node) or None, line, ""]]
    if language == "java":
        text = _WS.sub("", _text(node))
        static = text.startswith("importstatic")
        text = text.removeprefix("importstatic" if static else "import").rstrip(";")
        return [[text, None, line, "static" if static else ""]]
    if language == "kotlin":
        path = ""
        alias = None
        star = False
        for child in node.children:
            if child.type == "qualified_identifier":
                path = _text(child)
            elif child.type == "identifier":
                if path:
                    alias = _text(child)
                else:
                    path = _text(child)
            elif child.type == "*":
                star = True
        return [[path + (".*" if star else ""), alias, line, ""]]
    if language == "csharp":
        alias_node = node.child_by_field_name("name")
        target = None
        static = False
        for child in node.named_children:
            if child == alias_node:
                continue
            if child.type in ("identifier", "qualified_name", "alias_qualified_name"):
                target = child
        for child in node.children:
            if child.type == "static":
                static = True
        if target is None:
            return []
        return [[normalize_type(_text(target)), _text(alias_node) or None, line, "static" * static]]
    if language == "php":
        flags = ""
        for child in node.children:
            if child.type in ("function", "const"):
                flags = child.type
        prefix = ""
        out = []
        for child in node.named_children:
            if child.type in ("namespace_name", "qualified_name", "name"):
                prefix = normalize_type(_text(child))
        clauses = [c for c in node.named_children if c.type == "namespace_use_clause"]
        group = node.child_by_field_name("body")
        if group is not None:
            clauses = [c for c in group.named_children if c.type == "namespace_use_clause"]
        else:
            prefix = ""
        for clause in clauses:
            alias_node = clause.child_by_field_name("alias")
            target = next(
                (c for c in clause.named_children if c.type in ("qualified_name", "name")), None
            )
            if target is None:
                continue
            path = normalize_type(_text(target))
            if prefix:
                path = f"{prefix}.{path}"
            out.append([path, _text(alias_node) or None, line, flags])
        return out
    if language == "rust":
        argument = node.child_by_field_name("argument")
        out = []
        if argument is not None:
            _rust_use(argument, "", line, out)
        return out
    if language in ("c", "cpp"):
        path_node = node.child_by_field_name("path")
        if path_node is None:
            return []
        text = _text(path_node)
        if path_node.type == "system_lib_string":
            return [[text.strip("<>"), None, line, "system"]]
        return [[text.strip('"'), None, line, "local"]]
    return []


def _rust_use(node: Node, prefix: str, line: int, out: list[list]) -> None:
    def join(a: str, b: str) -> str:
        return f"{a}::{b}" if a and b else a or b

    kind = node.type
    if kind == "use_as_clause":
        path = node.child_by_field_name("path")
        alias = node.child_by_field_name("alias")
        out.append([join(prefix, _WS.sub("", _text(path))), _text(alias) or None, line, ""])
    elif kind == "scoped_use_list":
        path = node.child_by_field_name("path")
        inner = node.child_by_field_name("list")
        if inner is not None:
            _rust_use(inner, join(prefix, _WS.sub("", _text(path))), line, out)
    elif kind == "use_list":
        for child in node.named_children:
            _rust_use(child, prefix, line, out)
    elif kind == "use_wildcard":
        text = _WS.sub("", _text(node))
        out.append([join(prefix, text), None, line, ""])
    elif kind in ("identifier", "scoped_identifier", "self", "crate", "super", "metavariable"):
        text = _WS.sub("", _text(node))
        if text == "self":
            out.append([prefix, None, line, ""])
        else:
            out.append([join(prefix, text), None, line, ""])


def _parse(language: str, source: bytes) -> tuple[str, tree_sitter.Tree]:
    if language == "c" and _CPP_HINT.search(source):
        language = "cpp"  # a C++ header named .h
    return language, _parser(language).parse(source)


# what a pattern finds, from the name of its outer capture (see the header of queries/tags/*.scm)
_DEFINITIONS = {f"definition.{kind}": kind for kind in _KIND_PRIORITY}
_ROLES = (
    "reference.call",
    "reference.class",
    "definition.module",
    "impl",
    "import",
    "reference.implementation",
    "doc",
    "package",
    "visibility",
)
_CALL_KINDS = {"reference.call": "call", "reference.class": "new"}


def _role(caps: dict) -> str:
    """What a query pattern finds, from the names of its captures (other definitions and
    references a grammar's own tags.scm may have are ignored)."""
    for name in caps:
        if name in _DEFINITIONS:
            return name
    for name in _ROLES:
        if name in caps:
            return name
    return "error" if "error" in caps else "ignore"


@cache
def _roles(query: tree_sitter.Query) -> dict[int, str]:
    return {}  # pattern index → role, filled as the query's patterns match


def extract(language: str, source: bytes) -> dict:
    """Parse `source` written in `language` (a value of SUFFIXES) into facts (see above)."""
    dialect, tree = _parse(language, source)
    root = tree.root_node
    query = _query(dialect)
    # once per file: the nodes of a tree parsed from bytes (cartograph.parsing.nodes)
    matches = cast("Matches", tree_sitter.QueryCursor(query).matches(root))

    defs_by_node: dict[tuple[int, int], tuple[int, _Def]] = {}
    containers: list[tuple[int, int, str, str]] = []  # start, end, "scope"|"impl"|"pkg", name
    impls: list[tuple[Node, str, Node | None]] = []
    calls_raw: list[tuple[Node, Node, Node | None, str]] = []
    import_nodes: list[Node] = []
    base_nodes: list[Node] = []
    visibility: list[Node] = []
    comments: list[Node] = []
    packages: list[Node] = []
    errors = 0

    roles = _roles(query)
    for pattern, caps in matches:
        key = roles.get(pattern)
        if key is None:
            key = roles[pattern] = _role(caps)
        if key == "doc":
            comments.append(caps["doc"][0])
        elif key in _CALL_KINDS:
            receiver = caps.get("recv")
            call = (
                caps[key][0],
                caps["name"][0],
                receiver[0] if receiver else None,
                _CALL_KINDS[key],
            )
            calls_raw.append(call)
        elif key in _DEFINITIONS:
            node = caps[key][0]
            name_node = caps["name"][0]
            kind = _DEFINITIONS[key]
            name, owner = _def_name(dialect, name_node)
            if "owner" in caps:
                owner = normalize_type(_text(caps["owner"][0]))
            if not name:
                continue
            ident = (node.start_byte, node.end_byte)
            rank = _KIND_PRIORITY.index(kind)
            known = defs_by_node.get(ident)
            if known is not None and known[0] <= rank:
                continue
            d = _Def(node, kind, name, owner)
            d.decl = "decl" in caps
            if "self" in caps:
                d.self_name = _text(caps["self"][0])
            defs_by_node[ident] = (rank, d)
        elif key == "definition.module":
            node = caps["definition.module"][0]
            name = _container_name(dialect, caps["name"][0])
            containers.append((node.start_byte, node.end_byte, "scope", name))
        elif key == "impl":
            node = caps["impl"][0]
            owner = normalize_type(_text(caps["owner"][0])).rpartition(".")[2]
            traits = caps.get("trait")
            kind = "trait_impl" if traits else "impl"
            containers.append((node.start_byte, node.end_byte, kind, owner))
            impls.append((node, owner, traits[0] if traits else None))
        elif key == "import":
            import_nodes.append(caps["import"][0])
        elif key == "reference.implementation":
            base_nodes.append(caps["reference.implementation"][0])
        elif key == "package":
            packages.append(caps["package"][0])
        elif key == "visibility":
            visibility.append(caps["visibility"][0])
        elif key == "error":
            errors += 1
    if root.has_error and errors == 0:
        errors = 1

    # statement packages (`package x`, `namespace X;`) hold until the next one
    packages.sort(key=lambda n: n.start_byte)
    package_names: list[str] = []
    for i, node in enumerate(packages):
        end = packages[i + 1].start_byte if i + 1 < len(packages) else len(source) + 1
        name = normalize_type(_text(node))
        package_names.append(name)
        containers.append((node.start_byte, end, "pkg", name))

    defs = [d for _rank, d in sorted(defs_by_node.values(), key=lambda rd: rd[1].start)]
    index_of = {id(d): i for i, d in enumerate(defs)}
    # one sweep over definitions and containers, outer ones first, to nest them
    items: list[tuple[int, int, int, Any]] = [
        (s, -e, 0, (kind, name)) for s, e, kind, name in containers
    ]
    items.extend((d.start, -d.end, 1, d) for d in defs)
    items.sort(key=lambda it: (it[0], it[1], it[2]))
    stack: list[tuple[int, str, str, _Def | None, str]] = []  # end, qual, ns, def, container
    owned: list[_Def] = []
    for start, neg_end, is_def, item in items:
        while stack and stack[-1][0] <= start:
            stack.pop()
        qual, ns = (stack[-1][1], stack[-1][2]) if stack else ("", "")
        enclosing_def = next((entry[3] for entry in reversed(stack) if entry[3] is not None), None)
        container = stack[-1][4] if stack else ""
        if not is_def:
            kind, name = item
            if kind == "pkg":
                stack.append((-neg_end, name, name, None, kind))
            elif kind == "scope":
                inner = f"{qual}.{name}" if qual and name else qual or name
                stack.append((-neg_end, inner, inner, None, kind))
            else:
                inner = f"{qual}.{name}" if qual else name
                stack.append((-neg_end, inner, ns, None, kind))
            continue
        d = item
        d.ns = ns
        prefix = qual
        if d.owner:
            prefix = f"{prefix}.{d.owner}" if prefix else d.owner
        d.qual = f"{prefix}.{d.name}" if prefix else d.name
        if container == "trait_impl":
            d.in_trait_impl = True
        if enclosing_def is not None:
            d.parent = index_of[id(enclosing_def)]
        if d.owner or container in ("impl", "trait_impl"):
            d.member = True
            owned.append(d)
        elif enclosing_def is not None:
            d.parent = index_of[id(enclosing_def)]
            d.member = enclosing_def.kind in CLASS_KINDS
        if d.kind in ("function", "method"):
            d.kind = "method" if d.member else "function"
        stack.append((d.end, d.qual, ns, d, "def"))

    by_qual: dict[str, int] = {}
    for i, d in enumerate(defs):
        if d.kind in CLASS_KINDS or d.kind == "type":
            by_qual.setdefault(d.qual, i)
    for d in owned:
        d.parent = by_qual.get(d.qual.rpartition(".")[0], d.parent)

    # innermost enclosing definition of a byte position
    starts = [d.start for d in defs]
    structural = [-1] * len(defs)  # the definition whose range holds this one
    open_defs: list[int] = []
    for i, d in enumerate(defs):
        while open_defs and defs[open_defs[-1]].end <= d.start:
            open_defs.pop()
        structural[i] = open_defs[-1] if open_defs else -1
        open_defs.append(i)

    def enclosing_at(pos: int) -> int:
        i = bisect_right(starts, pos) - 1
        while i >= 0 and defs[i].end <= pos:
            i = structural[i]
        return i

    # exported flags and visibility sections (Ruby `private`, C++ `public:`)
    sections: dict[int, list[tuple[int, bool]]] = {}
    for node in visibility:
        owner_index = enclosing_at(node.start_byte)
        if owner_index >= 0:
            word = _text(node).strip().rstrip(":").strip()
            sections.setdefault(owner_index, []).append((node.start_byte, word == "public"))
    comments_index = _Comments(source, comments)
    for d in defs:
        parent = defs[d.parent] if d.parent >= 0 else None
        d.exported = _exported(dialect, d, parent)
        inside = parent is not None and parent.start <= d.start < parent.end
        if inside and (d.parent in sections or (dialect == "cpp" and d.member)):
            default = True
            if dialect == "cpp" and parent is not None:
                default = parent.node.type != "class_specifier"
            visible = default
            for pos, public in sections.get(d.parent, ()):
                if pos < d.start:
                    visible = public
            d.exported = d.exported and visible
        d.doc = comments_index.doc(d.node)
    declared = {d.qual: d for d in defs if d.decl}
    for d in defs:  # an out-of-line C++ definition is as visible as its declaration
        if d.owner and not d.decl and d.qual in declared:
            d.exported = declared[d.qual].exported
            d.doc = d.doc or declared[d.qual].doc

    facts_defs = [
        [
            d.kind,
            d.name,
            d.qual,
            d.parent,
            d.node.start_point[0] + 1,
            _end_row(d.node) + 1,
            _signature(source, d.node),
            d.doc,
            d.exported,
            d.ns,
            d.member,
            d.decl,
            d.self_name,
        ]
        for d in defs
    ]

    calls: list[list] = []
    imports: list[list] = []
    bases: list[list] = []
    # routes, routers and requests: Go's (parsing.go_services), Spring's (jvm_services)
    http: list[list] = go_services.constants(cast("Node", root)) if dialect == "go" else []
    if dialect == "java":
        for i, d in enumerate(defs):
            if d.kind in CLASS_KINDS or d.kind == "method":
                http.extend(jvm_services.mapping_annotations(i, d.node))
            if d.kind in CLASS_KINDS:
                http.extend(jvm_services.fields(d.node))
    for node, name_node, recv_node, kind in sorted(calls_raw, key=lambda c: c[1].start_byte):
        enclosing = enclosing_at(node.start_byte)
        line = name_node.start_point[0] + 1
        recv = None
        if recv_node is not None:
            recv = _snippet(source, recv_node.start_byte, recv_node.end_byte)
        name = _text(name_node)
        if kind == "new" or name_node.type in (
            "qualified_identifier",
            "qualified_name",
            "scoped_type_identifier",
            "generic_type",
        ):
            full = normalize_type(name)
            if dialect == "cpp" and name_node.type == "qualified_identifier":
                full = _cpp_name(name_node)
            qualifier, _, name = full.rpartition(".")
            if qualifier and recv is None:
                recv = qualifier
        if not name:
            continue
        text = None
        if kind == "new":
            text = f"{recv}.{name}" if recv else None
        elif recv_node is not None:
            between = source[recv_node.end_byte : name_node.start_byte][:16]
            separator = _WS.sub("", between.decode("utf-8", "replace"))
            text = f"{recv}{separator}{_text(name_node)}"
        elif name != _text(name_node):
            text = _short(_text(name_node))
        if dialect == "ruby":
            if (
                name == "new"
                and recv_node is not None
                and recv_node.type in ("constant", "scope_resolution")
                and recv is not None  # always true with a receiver node (it is its snippet)
            ):
                kind, name, recv = (
                    "new",
                    normalize_type(recv).rpartition(".")[2],
                    normalize_type(recv).rpartition(".")[0] or None,
                )
            elif recv_node is None and name in ("require", "require_relative", "load"):
                arg = _first_string(node)
                if arg is not None:
                    imports.append(
                        [arg, None, line, "relative" if name == "require_relative" else ""]
                    )
            elif (
                recv_node is None
                and name in ("include", "extend", "prepend")
                and enclosing >= 0
                and defs[enclosing].kind == "class"
            ):
                for constant in _constant_args(node):
                    bases.append([enclosing, normalize_type(_text(constant)), line])
        calls.append([name, recv, line, enclosing, kind, text])
        if dialect == "java" and name in jvm_services.CLIENT_CALLS:
            http.append(jvm_services.call_row(node, name, recv, enclosing))
        if dialect == "go" and name in go_services.HTTP_CALLEES:
            row = go_services.call_row(node, enclosing)
            if row is not None:
                http.append(row)

    for node in sorted(import_nodes, key=lambda n: n.start_byte):
        imports.extend(_imports(dialect, node))
    for node in sorted(base_nodes, key=lambda n: n.start_byte):
        owner_index = enclosing_at(node.start_byte)
        if owner_index >= 0 and defs[owner_index].kind in CLASS_KINDS | {"type"}:
            base = normalize_type(_text(node))
            if base:
                bases.append([owner_index, base, node.start_point[0] + 1])
    for node, owner, trait in impls:
        if trait is None:
            continue
        target = by_qual.get(_impl_qual(containers, node, owner))
        if target is not None:
            bases.append([target, normalize_type(_text(trait)), trait.start_point[0] + 1])
    bases.sort(key=lambda b: (b[TAGS_BASE_OWNER], b[TAGS_BASE_LINE]))
    imports.sort(key=lambda i: i[TAGS_IMPORT_LINE])

    return {
        "v": FACTS_VERSION,
        "language": language,
        "dialect": dialect,
        "lines": _line_count(source),
        "errors": errors,
        "package": package_names[0] if package_names else "",
        "defs": facts_defs,
        "calls": calls,
        "imports": imports,
        "bases": bases,
        "http": http,
    }


def _impl_qual(containers: list[tuple[int, int, str, str]], node: Node, owner: str) -> str:
    """The qualname an impl block's owner type has: the enclosing inline modules + owner."""
    path = [
        name
        for start, end, kind, name in sorted(containers)
        if kind in ("scope", "pkg") and start <= node.start_byte and node.end_byte <= end
    ]
    return ".".join([*path, owner])


def _first_string(call: Node) -> str | None:
    args = call.child_by_field_name("arguments")
    if args is None or not args.named_children:
        return None
    first = args.named_children[0]
    if first.type != "string":
        return None
    return _text(first).strip("'\"")


def _constant_args(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    if args is None:
        return []
    return [c for c in args.named_children if c.type in ("constant", "scope_resolution")]


def interface_of(facts: dict) -> bytes:
    """What other files can observe of this one, as bytes to digest: its package, its
    definitions' names, kinds, qualnames, exported flags and bases, its imports — no line
    numbers and no call sites, so an edit inside a body leaves it unchanged."""
    defs = facts.get("defs", [])
    shape = [
        facts.get("v"),
        facts.get("language"),
        facts.get("dialect"),
        facts.get("package", ""),
        [
            [
                d[TAGS_DEF_KIND],
                d[TAGS_DEF_NAME],
                d[TAGS_DEF_QUALNAME],
                d[TAGS_DEF_EXPORTED],
                d[TAGS_DEF_NS],
                d[TAGS_DEF_MEMBER],
                d[TAGS_DEF_DECL],
                defs[d[TAGS_DEF_PARENT]][TAGS_DEF_QUALNAME] if d[TAGS_DEF_PARENT] >= 0 else None,
            ]
            for d in defs
        ],
        sorted(
            [defs[owner][TAGS_DEF_QUALNAME], base] for owner, base, _line in facts.get("bases", [])
        ),
        # a subclass elsewhere resolves this file's bases through this file's imports
        sorted(
            [path, alias or "", flags] for path, alias, _line, flags in facts.get("imports", [])
        ),
        # the string constants another file's requests may take their URL from
        [row for row in facts.get("http", ()) if row[0] == "const"],
    ]
    return json.dumps(shape, separators=(",", ":"), ensure_ascii=False).encode()
