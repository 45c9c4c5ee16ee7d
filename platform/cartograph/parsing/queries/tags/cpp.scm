; Cartograph's by-name tier (cartograph.parsing.tags) for C++. A namespace is a
; @definition.module; `void Foo::bar() {}` is the method `Foo.bar` (its @name is qualified);
; member declarations in a class body are definitions marked @decl.
; The captures are described in cartograph/parsing/tags.py.

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
