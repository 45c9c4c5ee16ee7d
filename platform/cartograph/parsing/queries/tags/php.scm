; Cartograph generic tier: PHP (see go.scm for the capture vocabulary). `namespace X;` is a
; @package (until the next one), `namespace X { }` a @scope.

(namespace_definition name: (namespace_name) @package !body)
(namespace_definition name: (namespace_name) @name body: (compound_statement)) @scope

(class_declaration name: (name) @name) @def.class
(trait_declaration name: (name) @name) @def.class
(interface_declaration name: (name) @name) @def.interface
(enum_declaration name: (name) @name) @def.enum
(method_declaration name: (name) @name) @def.method
(function_definition name: (name) @name) @def.function

(function_call_expression function: [(name) (qualified_name)] @name) @call
(member_call_expression object: (_) @recv name: (name) @name) @call
(nullsafe_member_call_expression object: (_) @recv name: (name) @name) @call
(scoped_call_expression scope: (_) @recv name: (name) @name) @call
(object_creation_expression [(name) (qualified_name)] @name) @new

(namespace_use_declaration) @import

(base_clause [(name) (qualified_name)] @base)
(class_interface_clause [(name) (qualified_name)] @base)
(use_declaration [(name) (qualified_name)] @base)

(comment) @comment
(ERROR) @error
