; Cartograph's by-name tier (cartograph.parsing.tags) for C++. A namespace is a
; @definition.module; `void Foo::bar() {}` is the method `Foo.bar` (its @name is qualified);
; member declarations in a class body are definitions marked @decl.
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

(namespace_definition name: (_) @name body: (declaration_list)) @definition.module

(function_definition
  declarator: [
    (function_declarator declarator: (_) @name)
    (pointer_declarator declarator: (function_declarator declarator: (_) @name))
    (reference_declarator (function_declarator declarator: (_) @name))
  ]) @definition.function
(field_declaration
  declarator: [
    (function_declarator declarator: (_) @name)
    (pointer_declarator declarator: (function_declarator declarator: (_) @name))
    (reference_declarator (function_declarator declarator: (_) @name))
  ] @decl) @definition.function
(field_declaration_list
  (declaration declarator: (function_declarator declarator: (_) @name) @decl) @definition.function)
(class_specifier name: (_) @name body: (field_declaration_list)) @definition.class
(struct_specifier name: (_) @name body: (field_declaration_list)) @definition.class
(union_specifier name: (_) @name body: (field_declaration_list)) @definition.class
(enum_specifier name: (_) @name body: (enumerator_list)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(concept_definition name: (identifier) @name) @definition.type

(call_expression function: [(identifier) (qualified_identifier)] @name) @reference.call
(call_expression
  function: (template_function name: (identifier) @name)) @reference.call
(call_expression
  function: (field_expression argument: (_) @recv field: (_) @name)) @reference.call
(new_expression type: (_) @name) @reference.class

(preproc_include) @import

(base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @reference.implementation)
(field_declaration_list (access_specifier) @visibility)

(comment) @doc
(ERROR) @error
