; Cartograph's by-name tier (cartograph.parsing.tags) for Rust. An inline `mod` is a
; @definition.module; an `impl` block is an @impl whose functions are methods of its @owner
; type (`impl Foo { fn new() }` → `Foo.new`); `impl Trait for Foo` makes Trait a base of
; Foo.
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

(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(impl_item trait: (_)? @trait type: (_) @owner) @impl

(struct_item name: (type_identifier) @name) @definition.class
(union_item name: (type_identifier) @name) @definition.class
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.interface
(type_item name: (type_identifier) @name) @definition.type
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function

(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (scoped_identifier path: (_) @recv name: (identifier) @name)) @reference.call
(call_expression
  function: (field_expression value: (_) @recv field: (field_identifier) @name)) @reference.call
(call_expression
  function: (generic_function
    function: [
      (identifier) @name
      (scoped_identifier path: (_) @recv name: (identifier) @name)
      (field_expression value: (_) @recv field: (field_identifier) @name)
    ])) @reference.call
(struct_expression name: (type_identifier) @name) @reference.class
(struct_expression
  name: (scoped_type_identifier path: (_) @recv name: (type_identifier) @name)) @reference.class

(use_declaration) @import

(trait_item bounds: (trait_bounds (_) @reference.implementation))

(line_comment) @doc
(block_comment) @doc
(ERROR) @error
