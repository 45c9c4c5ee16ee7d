; Cartograph's by-name tier (cartograph.parsing.tags) for Go.
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

(package_clause (package_identifier) @package)

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      name: (identifier)? @self
      type: [
        (type_identifier) @owner
        (pointer_type (type_identifier) @owner)
        (generic_type type: (type_identifier) @owner)
        (pointer_type (generic_type type: (type_identifier) @owner))
      ]))
  name: (field_identifier) @name) @definition.method

(type_spec name: (type_identifier) @name type: (struct_type)) @definition.class
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(method_elem name: (field_identifier) @name) @definition.method

(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (selector_expression operand: (_) @recv field: (field_identifier) @name)) @reference.call
(composite_literal type: (type_identifier) @name) @reference.class
(composite_literal
  type: (qualified_type package: (package_identifier) @recv name: (type_identifier) @name)) @reference.class

(import_spec) @import

(field_declaration_list
  (field_declaration !name type: [(type_identifier) (qualified_type)] @reference.implementation))
(interface_type (type_elem . [(type_identifier) (qualified_type)] @reference.implementation .))

(comment) @doc
(ERROR) @error
