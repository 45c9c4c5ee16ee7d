; Cartograph's by-name tier (cartograph.parsing.tags) for PHP. `namespace X;` is a @package
; (until the next one), `namespace X { }` a @definition.module.
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

(namespace_definition name: (namespace_name) @package !body)
(namespace_definition name: (namespace_name) @name body: (compound_statement)) @definition.module

(class_declaration name: (name) @name) @definition.class
(trait_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(enum_declaration name: (name) @name) @definition.enum
(method_declaration name: (name) @name) @definition.method
(function_definition name: (name) @name) @definition.function

(function_call_expression function: [(name) (qualified_name)] @name) @reference.call
(member_call_expression object: (_) @recv name: (name) @name) @reference.call
(nullsafe_member_call_expression object: (_) @recv name: (name) @name) @reference.call
(scoped_call_expression scope: (_) @recv name: (name) @name) @reference.call
(object_creation_expression [(name) (qualified_name)] @name) @reference.class

(namespace_use_declaration) @import

(base_clause [(name) (qualified_name)] @reference.implementation)
(class_interface_clause [(name) (qualified_name)] @reference.implementation)
(use_declaration [(name) (qualified_name)] @reference.implementation)

(comment) @doc
(ERROR) @error
