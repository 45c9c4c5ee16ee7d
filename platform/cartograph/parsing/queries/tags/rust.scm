; Cartograph's by-name tier (cartograph.parsing.tags) for Rust. An inline `mod` is a
; @definition.module; an `impl` block is an @impl whose functions are methods of its @owner
; type (`impl Foo { fn new() }` → `Foo.new`); `impl Trait for Foo` makes Trait a base of
; Foo.
; The captures are described in cartograph/parsing/tags.py.

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
