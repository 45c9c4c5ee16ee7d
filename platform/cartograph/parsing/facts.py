"""The layout of facts: what each position of each fact row holds, for the three families.

Facts are plain data (dicts of lists, strings, numbers, booleans and None): they cross process
boundaries and are stored marshalled beside each file, so rows stay lists and are read by
position. These names are those positions; read a row as `row[SCOPE_KIND]`, or unpack it.
A change to a layout bumps that parser's FACTS_VERSION (stored facts of another version are
parsed again).

Tagged values (expressions, types, bindings) are lists whose first item says what they are;
they are read by that tag, then unpacked: ["n", name], ["a", base, attr], ...

Every family's facts also hold `words` (added by `parsing.extract_facts`): the searchable words
of each line of the file (`identifiers.line_words`: identifiers whole and split, the words of
strings and comments), one line of words per line of source. A symbol's body text for search is
the lines of its range less those of its members (`index.resolve.symbol_bodies`).

Python (`cartograph.parsing.python`, resolved by `cartograph.resolve.python`)
===========================================================================

A facts dict holds: v (FACTS_VERSION), lines, errors (syntax-error regions; the rest of the
file is still extracted), and these tables. Positions are byte offsets in the file.

- scopes: one row per definition; scope 0 is the module. Qualnames are relative to the module
  ("Class.method"); the resolver prefixes the module name.
- bindings: a name bound in a scope at a position. The value is tagged:
  ["def", scope] | ["val", expr] | ["ann", type, expr] | ["param", index, type, default_expr,
  star] | ["imp", module] | ["from", level, module, name] | ["for", iter_expr] |
  ["exc", class_expr] | ["with", context_expr] | ["global"] | ["nonlocal"] | ["unknown"]
  (the resolver adds ["star", module] for a name a star import binds).
- attrs: `obj.attr = value` in a function (the resolver keeps those whose object is the
  method's `self`).
- refs: a use of a name: kind "c" call, "r" value use, "d" decorator, "t" annotation (the
  expression is then a type).
- stars: `from module import *`.
- imports: every import statement, for the IMPORTS relation.
- variables: module- and class-level variables holding a call, lambda, name or annotated
  instance (the `variable` symbols).
- all: the names of `__all__` when it is a literal list, else None; all_line: its line;
  all_parts: [["lit", names] | ["ref", expr]] when `__all__` is composed (`base.__all__ +
  ["x"]`), None when absent or computed otherwise.
- returns: the value of each `return` of a function (None when it is not an expression the
  resolver follows; bare `return` and `return None` are left out).
- parametrize: [scope, names, [[expr per name] per case], position]: the values
  `@pytest.mark.parametrize` gives a test's parameters (`pytest.param(...)` unwrapped).
- holds: [name, callee, position, [[expr, position, line], ...]]: a module-level name bound to
  a call (its callee's expression and position), and the functions and classes the call's
  arguments name or construct (`option = click.Option(..., callback=check)`): what the object
  may hold and call later.
- arguments: [call position, [[index | keyword, expr], ...], calls]: the arguments of a call
  that may be callable values; `calls` is how many calls its callee is made of
  (`chained_calls`): `f(a)(b)` and its `f(a)` start at one position, 1 and 0 tell them apart.

Expressions: ["n", name] | ["a", base, attr] | ["c", func, first_arg] | ["i", base] | None.
A call's expression may end with a key: its first argument as a literal (`d.get("a")`), or for
`getattr(obj, name)` "prefix*" when the name is a literal prefix joined to a computed rest
(`getattr(self, "visit_" + kind)`, f"visit_{kind}"); `getattr(obj, "name")` is encoded as
`obj.name`.
Types add: ["g", base, [args]] (generic), ["u", [alternatives]] (union), ["none"].

TypeScript, TSX and JavaScript (`cartograph.parsing.ecma`, resolved by `cartograph.resolve.ecma`)
===============================================================================================

A facts dict holds: v, lines, errors, module_value (the local name `module.exports = name`
makes the whole module, CommonJS; "=" + a scope index when it is an unnamed definition) and:

- scopes: scope 0 is the module. kind: module | class | interface | enum | type | function |
  method | object (an object literal bound to a name: its methods are members). info (a
  dict): classes {"ext": expr, "impl": [types], "dec": [expr]}; interfaces {"ext": None,
  "impl": [types]} (what they extend); type aliases {"value": type}; functions and methods
  {"params": [[name, type, is_property]], "ret": type, "static": bool, "dec": [expr],
  "async": bool, "arrow": bool, "accessor": bool (getters and setters)}; a decorator factory
  (`@Get(":id")`) is ["c", callee]; objects {"props": [[key, expr]]} (`{a: handleA, b}`).
- bindings: a name bound in a scope, visible between byte offsets start..end (None, None: the
  whole scope). The value is tagged: ["def", scope] | ["val", expr, type] | ["param", type] |
  ["imp", source, imported] (imported: a name, "default" or "*") | ["req", source, imported
  | None].
- members: what `this.name` holds: constructor parameter properties (via "injection"), field
  declarations ("annotation" when typed, else "field"), `this.name = value` in a method
  ("value"; such rows also carry the method's scope).
- refs: kind "c" call, "n" new, "r" a value used (a callback), "j" a JSX element, "t" a type
  named in an annotation (the expression is a type), "d" a decorator.
- exports: `export function f`, `export { a as b }`, `export default x` (exported
  "default"), `exports.x = y`, `module.exports = {a}`; local is a name, "=" + a scope index
  as text for an unnamed definition, or ["expr", expr].
- reexports: `export { a as b } from` (a, b), `export * from` ("*", "*"), `export * as ns
  from` ("*", "ns"), `module.exports = require(x)` ("*", "=").
- imports: every module a file loads, for the IMPORTS relation (kind "esm", "cjs",
  "dynamic", "type").
- arguments: [call position, [[index, expr], ...]]: the arguments of a call that are names or
  member accesses (values that may be functions passed), for the flow stage.
- returns: [scope, expr, position]: `return value` in a named function (a callback's own
  returns are left out).
- http: calls and decorators that may be routes, routers, mounts or requests, and module-level
  string constants (`cartograph.parsing.ecma_services` lays the rows out).

Expressions: ["n", name] | ["a", base, attr] | ["c", func] | ["new", class_expr] | ["this"] |
["super"] | ["cast", type] | ["i", base] / ["i", base, literal key] (a subscript) | ["?", text]
(kept for display only) | None. Types: ["n", name] |
["a", base, name] | ["g", base, [args]] | ["u", [alternatives]] | ["arr", element] | None.

The generic tier: Go, Java, Kotlin, C#, Rust, Ruby, PHP, C, C++ (`cartograph.parsing.tags`,
resolved by `cartograph.resolve.generic` and a rules module per language)
===============================================================================================

A facts dict holds: v, language, lines, errors, and:

- dialect: the grammar used: "cpp" for a `.h` file with C++ constructs (class, namespace,
  template, access labels), else the language.
- package: the file's package or namespace, dotted ("" when none): Go `package x`, Java/Kotlin
  `package a.b`, PHP `namespace A\\B` (as "A.B"), a C# file-scoped namespace; block namespaces
  (C#, C++, PHP) and Rust inline `mod`s are in each definition's ns.
- defs: in document order. kind: class | interface | enum | type | function | method (class:
  also structs, records, objects, Ruby modules and PHP traits; interface: also Rust traits;
  type: aliases, typedefs, delegates). An unnamed Kotlin companion object is transparent
  (`Foo.create`). C/C++ prototypes outside classes are not definitions. The qualname is
  dotted and includes the package and the enclosing namespaces, classes and owner
  (`srv.Server.Run`, `a.b.Outer.Inner.run`, `Foo.new` for a Rust impl, `ns.Foo.bar` for C++
  `void ns::Foo::bar()`). Exported follows the language: Go capitalized; Java/C# `public`
  (interface members always); Kotlin and PHP unless private/protected (Kotlin: internal);
  Rust `pub` (trait items and trait-impl methods always); Ruby unless after a bare
  `private`/`protected`; C/C++ unless `static`, C++ members by their access label (class:
  private by default).
- calls: receiver is the source text before the name (`fmt`, `obj`, `this`, `Foo::Bar`,
  `a.b()`), None for a bare call, cut to MAX_TEXT characters. kind: "call" | "new" (`new
  X()`, a composite literal `X{}`, a struct expression, Ruby `X.new`; the name is the type,
  the receiver its qualifier). text: the callee as written (receiver, separator, name) when
  it differs from the name.
- imports: the path as the language writes it, with "." for Java, Kotlin, C# and PHP
  (`a.b.Foo`, `a.b.*`), "::" for Rust (`crate::util::help`), the Go import path, the C/C++
  header, the Ruby required path. flags: "" | "static" (Java/C# static import) | "function"
  (PHP `use function`) | "system" (`#include <x>`) | "local" (`#include "x"`) | "relative"
  (Ruby `require_relative`).
- bases: a base class, implemented interface, Rust trait impl, Go embedded type, Ruby
  include/extend/prepend, PHP used trait (dotted, generic arguments stripped), sorted by
  owner and line.
"""

from __future__ import annotations

# ---------------------------------------------------------------- Python: scopes
SCOPE_KIND = 0  # "module" | "class" | "function" (a method is a function whose parent is a class)
SCOPE_NAME = 1
SCOPE_QUALNAME = 2  # relative to the module: "Outer.Inner.method" ("" for the module)
SCOPE_PARENT = 3  # the enclosing scope (-1 for the module)
SCOPE_START = 4  # first line (1-based)
SCOPE_END = 5  # last line
SCOPE_SIGNATURE = 6
SCOPE_DOC = 7  # the first line of the docstring
SCOPE_DECORATORS = 8  # list[str]: each decorator as written, without "@"
SCOPE_BASES = 9  # list[expr]: a class's bases, in declaration order
SCOPE_RETURNS = 10  # type | None: a function's return annotation
SCOPE_BODY = 11  # byte offset where the body starts

# ---------------------------------------------------------------- Python: bindings
BINDING_SCOPE = 0
BINDING_NAME = 1
BINDING_POS = 2  # the byte offset from which the binding holds (0 for parameters)
BINDING_VALUE = 3  # the tagged value (see above)
BINDING_UNTIL = 4  # end of the range a comprehension or lambda variable holds in, else None

# ---------------------------------------------------------------- Python: attrs
ATTR_SCOPE = 0  # the function that assigns
ATTR_OBJECT = 1  # the name of the object (`self`)
ATTR_NAME = 2
ATTR_POS = 3
ATTR_VALUE = 4  # expr | None
ATTR_TYPE = 5  # the annotation (`self.x: T = ...`) | None

# ---------------------------------------------------------------- Python: refs
REF_LOOKUP = 0  # the scope names are looked up in (a decorator's: where the `def` stands)
REF_SOURCE = 1  # the scope the edge starts from (the innermost enclosing definition)
REF_KIND = 2  # "c" | "r" | "d" | "t"
REF_EXPR = 3  # expr (a type for "t"), None when the callee is not an expression followed
REF_POS = 4
REF_LINE = 5
REF_TEXT = 6  # the callee as written when it is not a plain dotted name, else None

# ---------------------------------------------------------------- Python: stars
STAR_SCOPE = 0
STAR_LEVEL = 1  # leading dots of a relative import
STAR_MODULE = 2
STAR_POS = 3

# ---------------------------------------------------------------- Python: imports
IMPORT_SCOPE = 0
IMPORT_LINE = 1
IMPORT_LEVEL = 2
IMPORT_MODULE = 3
IMPORT_NAMES = 4  # list[str]: the names of a from-import ("*" for a star import), else []
IMPORT_TYPING = 5  # inside `if TYPE_CHECKING:`

# ---------------------------------------------------------------- Python: variables
VARIABLE_SCOPE = 0  # the module or class
VARIABLE_NAME = 1
VARIABLE_START = 2
VARIABLE_END = 3
VARIABLE_TEXT = 4  # the assignment, shortened (its signature)

# ---------------------------------------------------------------- Python: returns
RETURN_SCOPE = 0
RETURN_POS = 1
RETURN_EXPR = 2


# ---------------------------------------------------------------- ECMA: scopes
ECMA_SCOPE_KIND = 0
ECMA_SCOPE_NAME = 1
ECMA_SCOPE_QUALNAME = 2  # relative to the file: "Class.method" ("" for the module)
ECMA_SCOPE_PARENT = 3  # -1 for the module
ECMA_SCOPE_START = 4  # first line (1-based)
ECMA_SCOPE_END = 5  # last line
ECMA_SCOPE_SIGNATURE = 6
ECMA_SCOPE_DOC = 7  # the first line of the JSDoc comment before it
ECMA_SCOPE_EXPORTED = 8
ECMA_SCOPE_INFO = 9  # dict (see above)
ECMA_SCOPE_START_BYTE = 10
ECMA_SCOPE_END_BYTE = 11

# ---------------------------------------------------------------- ECMA: bindings
ECMA_BINDING_SCOPE = 0
ECMA_BINDING_NAME = 1
ECMA_BINDING_VALUE = 2  # the tagged value (see above)
ECMA_BINDING_START = 3  # byte offset from which it holds | None
ECMA_BINDING_END = 4  # byte offset until which it holds | None

# ---------------------------------------------------------------- ECMA: members
ECMA_MEMBER_CLASS = 0
ECMA_MEMBER_NAME = 1
ECMA_MEMBER_VALUE = 2  # expr | None
ECMA_MEMBER_TYPE = 3  # type | None
ECMA_MEMBER_VIA = 4  # "injection" | "annotation" | "field" | "value"
ECMA_MEMBER_SCOPE = 5  # "value" rows only: the method that assigns

# ---------------------------------------------------------------- ECMA: refs
ECMA_REF_SCOPE = 0
ECMA_REF_KIND = 1  # "c" | "n" | "r" | "j" | "t" | "d"
ECMA_REF_EXPR = 2
ECMA_REF_LINE = 3
ECMA_REF_POS = 4

# ---------------------------------------------------------------- ECMA: exports
ECMA_EXPORT_NAME = 0
ECMA_EXPORT_LOCAL = 1

# ---------------------------------------------------------------- ECMA: reexports
ECMA_REEXPORT_SOURCE = 0
ECMA_REEXPORT_IMPORTED = 1
ECMA_REEXPORT_EXPORTED = 2

# ---------------------------------------------------------------- ECMA: imports
ECMA_IMPORT_SOURCE = 0
ECMA_IMPORT_NAMES = 1
ECMA_IMPORT_LINE = 2
ECMA_IMPORT_KIND = 3


# ---------------------------------------------------------------- tags: defs
TAGS_DEF_KIND = 0
TAGS_DEF_NAME = 1
TAGS_DEF_QUALNAME = 2
TAGS_DEF_PARENT = 3  # the enclosing definition, or the owner type defined in this file; -1
TAGS_DEF_START = 4  # first line (1-based, inclusive)
TAGS_DEF_END = 5  # last line
TAGS_DEF_SIGNATURE = 6  # the header up to the body, whitespace collapsed
TAGS_DEF_DOC = 7  # the first line of the comment block right above it
TAGS_DEF_EXPORTED = 8
TAGS_DEF_NS = 9  # the package or namespace it is declared in (dotted)
TAGS_DEF_MEMBER = 10  # it belongs to a type (its body, a receiver, an impl, a `Type::`)
TAGS_DEF_DECL = 11  # a declaration without a body (C++ member prototypes)
TAGS_DEF_SELF = 12  # the Go receiver's name (None elsewhere)

# ---------------------------------------------------------------- tags: calls
TAGS_CALL_NAME = 0
TAGS_CALL_RECEIVER = 1  # str | None
TAGS_CALL_LINE = 2
TAGS_CALL_ENCLOSING = 3  # the innermost enclosing definition, -1 at file level
TAGS_CALL_KIND = 4  # "call" | "new"
TAGS_CALL_TEXT = 5  # str | None

# ---------------------------------------------------------------- tags: imports
TAGS_IMPORT_PATH = 0
TAGS_IMPORT_ALIAS = 1  # str | None
TAGS_IMPORT_LINE = 2
TAGS_IMPORT_FLAGS = 3

# ---------------------------------------------------------------- tags: bases
TAGS_BASE_OWNER = 0  # the index of the class in defs
TAGS_BASE_NAME = 1  # dotted, generic arguments stripped
TAGS_BASE_LINE = 2


def chained_calls(expr: list | None) -> int:
    """How many calls a Python callee expression is made of, down its left side (`f(a)` in
    `f(a)(b)`, `f(a).g` in `f(a).g(b)`): what tells apart calls that start at one position."""
    count = 0
    while expr is not None and expr[0] in ("c", "a", "i"):
        count += expr[0] == "c"
        expr = expr[1]
    return count
