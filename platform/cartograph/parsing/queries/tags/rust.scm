; Cartograph generic tier: Rust (see go.scm for the capture vocabulary). An inline `mod` is a
; @scope; an `impl` block is an @impl whose functions are methods of its @owner type
; (`impl Foo { fn new() }` → `Foo.new`); `impl Trait for Foo` makes Trait a base of Foo.

(mod_item name: (identifier) @name body: (declaration_list)) @scope
(impl_item trait: (_)? @trait type: (_) @owner) @impl

(struct_item name: (type_identifier) @name) @def.class
(union_item name: (type_identifier) @name) @def.class
(enum_item name: (type_identifier) @name) @def.enum
(trait_item name: (type_identifier) @name) @def.interface
(type_item name: (type_identifier) @name) @def.type
(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.function

(call_expression function: (identifier) @name) @call
(call_expression
  function: (scoped_identifier path: (_) @recv name: (identifier) @name)) @call
(call_expression
  function: (field_expression value: (_) @recv field: (field_identifier) @name)) @call
(call_expression
  function: (generic_function
    function: [
      (identifier) @name
      (scoped_identifier path: (_) @recv name: (identifier) @name)
      (field_expression value: (_) @recv field: (field_identifier) @name)
    ])) @call
(struct_expression name: (type_identifier) @name) @new
(struct_expression
  name: (scoped_type_identifier path: (_) @recv name: (type_identifier) @name)) @new

(use_declaration) @import

(trait_item bounds: (trait_bounds (_) @base))

(line_comment) @comment
(block_comment) @comment
(ERROR) @error
