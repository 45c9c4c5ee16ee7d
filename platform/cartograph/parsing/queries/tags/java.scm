; Cartograph generic tier: Java (see go.scm for the capture vocabulary).

(package_declaration [(identifier) (scoped_identifier)] @package)

(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(annotation_type_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method
(compact_constructor_declaration name: (identifier) @name) @def.method

(method_invocation !object name: (identifier) @name) @call
(method_invocation object: (_) @recv name: (identifier) @name) @call
(object_creation_expression
  type: [(type_identifier) (scoped_type_identifier) (generic_type)] @name) @new

(import_declaration) @import

(superclass (_) @base)
(super_interfaces (type_list (_) @base))
(extends_interfaces (type_list (_) @base))

(line_comment) @comment
(block_comment) @comment
(ERROR) @error
