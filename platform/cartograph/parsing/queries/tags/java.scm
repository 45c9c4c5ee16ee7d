; Cartograph's by-name tier (cartograph.parsing.tags) for Java.
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

(package_declaration [(identifier) (scoped_identifier)] @package)

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method

(method_invocation !object name: (identifier) @name) @reference.call
(method_invocation object: (_) @recv name: (identifier) @name) @reference.call
(object_creation_expression
  type: [(type_identifier) (scoped_type_identifier) (generic_type)] @name) @reference.class

(import_declaration) @import

(superclass (_) @reference.implementation)
(super_interfaces (type_list (_) @reference.implementation))
(extends_interfaces (type_list (_) @reference.implementation))

(line_comment) @doc
(block_comment) @doc
(ERROR) @error
