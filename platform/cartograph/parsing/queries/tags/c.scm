; Cartograph generic tier: C (see go.scm for the capture vocabulary). Only definitions with a
; body are definitions; prototypes are left to the file that defines the function.

(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))
  ]) @def.function
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @def.class
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @def.class
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @def.enum
(type_definition declarator: (type_identifier) @name) @def.type

(call_expression function: (identifier) @name) @call
(call_expression
  function: (field_expression argument: (_) @recv field: (field_identifier) @name)) @call

(preproc_include) @import

(comment) @comment
(ERROR) @error
