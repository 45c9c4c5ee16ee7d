; Cartograph's by-name tier (cartograph.parsing.tags) for PHP. `namespace X;` is a @package
; (until the next one), `namespace X { }` a @definition.module.
; The captures are described in cartograph/parsing/tags.py.

(namespace_definition name: (namespace_name) @package !body)
(namespace_definition name: (namespace_name) @name body: (compound_statement)) @definition.module

(class_declaration name: (name) @name) @definition.class
(trait_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(enum_declaration name: (name) @name) @definition.enum
(method_declaration name: (name) @name) @definition.method
(function_definition name: (name) @name) @definition.function

(function_call_expression function: [(name) (qualified_name)] @name) @reference.call
(member_call_expression object: (_) @recv name: (name) @name) @reference.call
(nullsafe_member_call_expression object: (_) @recv name: (name) @name) @reference.call
(scoped_call_expression scope: (_) @recv name: (name) @name) @reference.call
(object_creation_expression [(name) (qualified_name)] @name) @reference.class

(namespace_use_declaration) @import

(base_clause [(name) (qualified_name)] @reference.implementation)
(class_interface_clause [(name) (qualified_name)] @reference.implementation)
(use_declaration [(name) (qualified_name)] @reference.implementation)

(comment) @doc
(ERROR) @error
