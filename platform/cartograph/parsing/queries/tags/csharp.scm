; Cartograph generic tier: C# (see go.scm for the capture vocabulary). @scope is a namespace
; block; a file-scoped namespace is a @package.

(file_scoped_namespace_declaration name: (_) @package)
(namespace_declaration name: (_) @name) @scope

(class_declaration name: (identifier) @name) @def.class
(struct_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(delegate_declaration name: (identifier) @name) @def.type
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method
(local_function_statement name: (identifier) @name) @def.function

(invocation_expression function: (identifier) @name) @call
(invocation_expression function: (generic_name (identifier) @name)) @call
(invocation_expression
  function: (member_access_expression
    expression: (_) @recv name: [(identifier) (generic_name (identifier))] @name)) @call
(invocation_expression
  function: (member_access_expression
    . ["this" "base"] @recv name: [(identifier) (generic_name (identifier))] @name)) @call
(object_creation_expression type: (_) @name) @new

(using_directive) @import

(base_list (_) @base)

(comment) @comment
(ERROR) @error
