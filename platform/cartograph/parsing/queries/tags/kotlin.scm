; Cartograph's by-name tier (cartograph.parsing.tags) for Kotlin. An unnamed companion
; object is transparent: its members are named after the class (`Foo.create`).
;
; Captures, read by cartograph.parsing.tags (tree-sitter's standard tag names where one
; exists, so a grammar's own queries/tags.scm can seed a language):
;   @definition.<kind> with @name: a definition; kind: class, interface, enum, type, method,
;       function (enum is Cartograph's: no standard name). Cartograph's markers inside one:
;       @owner (the receiver's or qualifier's type), @self (the Go receiver's name), @decl
;       (a declaration without a body).
;   @definition.module with @name: a named scope (namespace block, inline module) whose
;       name prefixes the qualnames inside it.
;   @reference.call with @name and an optional @recv (Cartograph's: the receiver): a call.
;   @reference.class with @name (and an optional @recv, its qualifier): a construction
;       (`new X()`, `X{}`); a seed's other @reference.class patterns (type uses) go.
;   @reference.implementation: a base class, an implemented interface, an embedded type.
;   @doc: a comment (the one right above a definition is its doc).
; Cartograph's own: @import (an import statement), @package (the file's package or
; namespace), @impl with @owner and an optional @trait (a Rust impl block), @visibility (an
; access label or a bare `private`), @error (a syntax error region).

(package_header (qualified_identifier) @package)

(class_declaration name: (identifier) @name) @definition.class
(class_declaration "interface" name: (identifier) @name) @definition.interface
(class_declaration
  (modifiers (class_modifier) @_enum (#eq? @_enum "enum"))
  name: (identifier) @name) @definition.enum
(object_declaration name: (identifier) @name) @definition.class
(function_declaration name: (identifier) @name) @definition.function
(type_alias type: (identifier) @name) @definition.type

(call_expression . (identifier) @name) @reference.call
(call_expression
  . (navigation_expression . (_) @recv (identifier) @name .)) @reference.call

(import) @import

(delegation_specifier [(user_type) (constructor_invocation (user_type))] @reference.implementation)

(line_comment) @doc
(block_comment) @doc
(ERROR) @error
