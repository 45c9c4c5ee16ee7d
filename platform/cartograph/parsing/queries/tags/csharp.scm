; Cartograph's by-name tier (cartograph.parsing.tags) for C#. @definition.module is a
; namespace block; a file-scoped namespace is a @package.
; The captures are described in cartograph/parsing/tags.py.

(file_scoped_namespace_declaration name: (_) @package)
(namespace_declaration name: (_) @name) @definition.module

(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(local_function_statement name: (identifier) @name) @definition.function

(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression function: (generic_name (identifier) @name)) @reference.call
(invocation_expression
  function: (member_access_expression
    expression: (_) @recv name: [(identifier) (generic_name (identifier))] @name)) @reference.call
(invocation_expression
  function: (member_access_expression
    . ["this" "base"] @recv name: [(identifier) (generic_name (identifier))] @name)) @reference.call
(object_creation_expression type: (_) @name) @reference.class

(using_directive) @import

(base_list (_) @reference.implementation)

(comment) @doc
(ERROR) @error
