; Cartograph's by-name tier (cartograph.parsing.tags) for Ruby. Modules are definitions of
; kind class; `include`/`extend`/`prepend` in a class body add bases and
; `require`/`require_relative` calls are imports (both read from the @reference.call
; captures).
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

(module name: (_) @name) @definition.class
(class name: (_) @name) @definition.class
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method

(call receiver: (_) @recv method: (identifier) @name) @reference.call
(call !receiver method: (identifier) @name) @reference.call

(class superclass: (superclass (_) @reference.implementation))

(body_statement
  (identifier) @visibility
  (#match? @visibility "^(private|protected|public|private_class_method|module_function)$"))

(comment) @doc
(ERROR) @error
