; Cartograph's by-name tier (cartograph.parsing.tags) for C. Only definitions with a body
; are definitions; prototypes are left to the file that defines the function.
; The captures are described in cartograph/parsing/tags.py.

(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type

(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (field_expression argument: (_) @recv field: (field_identifier) @name)) @reference.call

(preproc_include) @import

(comment) @doc
(ERROR) @error
