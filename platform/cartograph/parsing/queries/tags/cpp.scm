; Cartograph generic tier: C++ (see go.scm for the capture vocabulary). A namespace is a
; @scope; `void Foo::bar() {}` is the method `Foo.bar` (its @name is qualified); member
; declarations in a class body are definitions marked as declarations (@decl).

(namespace_definition name: (_) @name body: (declaration_list)) @scope

(function_definition
  declarator: [
    (function_declarator declarator: (_) @name)
    (pointer_declarator declarator: (function_declarator declarator: (_) @name))
    (reference_declarator (function_declarator declarator: (_) @name))
  ]) @def.function
(field_declaration
  declarator: [
    (function_declarator declarator: (_) @name)
    (pointer_declarator declarator: (function_declarator declarator: (_) @name))
    (reference_declarator (function_declarator declarator: (_) @name))
  ] @decl) @def.function
(field_declaration_list
  (declaration declarator: (function_declarator declarator: (_) @name) @decl) @def.function)
(class_specifier name: (_) @name body: (field_declaration_list)) @def.class
(struct_specifier name: (_) @name body: (field_declaration_list)) @def.class
(union_specifier name: (_) @name body: (field_declaration_list)) @def.class
(enum_specifier name: (_) @name body: (enumerator_list)) @def.enum
(type_definition declarator: (type_identifier) @name) @def.type
(alias_declaration name: (type_identifier) @name) @def.type
(concept_definition name: (identifier) @name) @def.type

(call_expression function: [(identifier) (qualified_identifier)] @name) @call
(call_expression
  function: (template_function name: (identifier) @name)) @call
(call_expression
  function: (field_expression argument: (_) @recv field: (_) @name)) @call
(new_expression type: (_) @name) @new

(preproc_include) @import

(base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @base)
(field_declaration_list (access_specifier) @visibility)

(comment) @comment
(ERROR) @error
