; Cartograph's by-name tier (cartograph.parsing.tags) for Go.
; The captures are described in cartograph/parsing/tags.py.

(package_clause (package_identifier) @package)

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      name: (identifier)? @self
      type: [
        (type_identifier) @owner
        (pointer_type (type_identifier) @owner)
        (generic_type type: (type_identifier) @owner)
        (pointer_type (generic_type type: (type_identifier) @owner))
      ]))
  name: (field_identifier) @name) @definition.method

(type_spec name: (type_identifier) @name type: (struct_type)) @definition.class
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(method_elem name: (field_identifier) @name) @definition.method

(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (selector_expression operand: (_) @recv field: (field_identifier) @name)) @reference.call
(composite_literal type: (type_identifier) @name) @reference.class
(composite_literal
  type: (qualified_type package: (package_identifier) @recv name: (type_identifier) @name)) @reference.class

(import_spec) @import

(field_declaration_list
  (field_declaration !name type: [(type_identifier) (qualified_type)] @reference.implementation))
(interface_type (type_elem . [(type_identifier) (qualified_type)] @reference.implementation .))

(comment) @doc
(ERROR) @error
