; Cartograph generic tier: Go. Captures are read by cartograph.parsing.tags: @def.<kind>
; with @name (and @owner, the receiver's type, and @self, its name, for methods), @call and
; @new with @name and an optional @recv, @import, @base (embedded types), @package.

(package_clause (package_identifier) @package)

(function_declaration name: (identifier) @name) @def.function

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
  name: (field_identifier) @name) @def.method

(type_spec name: (type_identifier) @name type: (struct_type)) @def.class
(type_spec name: (type_identifier) @name type: (interface_type)) @def.interface
(type_spec name: (type_identifier) @name) @def.type
(type_alias name: (type_identifier) @name) @def.type
(method_elem name: (field_identifier) @name) @def.method

(call_expression function: (identifier) @name) @call
(call_expression
  function: (selector_expression operand: (_) @recv field: (field_identifier) @name)) @call
(composite_literal type: (type_identifier) @name) @new
(composite_literal
  type: (qualified_type package: (package_identifier) @recv name: (type_identifier) @name)) @new

(import_spec) @import

(field_declaration_list
  (field_declaration !name type: [(type_identifier) (qualified_type)] @base))
(interface_type (type_elem . [(type_identifier) (qualified_type)] @base .))

(comment) @comment
(ERROR) @error
