; Cartograph's by-name tier (cartograph.parsing.tags) for Java.
; The captures are described in cartograph/parsing/tags.py.

(package_declaration [(identifier) (scoped_identifier)] @package)

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method

(method_invocation !object name: (identifier) @name) @reference.call
(method_invocation object: (_) @recv name: (identifier) @name) @reference.call
(object_creation_expression
  type: [(type_identifier) (scoped_type_identifier) (generic_type)] @name) @reference.class

(import_declaration) @import

(superclass (_) @reference.implementation)
(super_interfaces (type_list (_) @reference.implementation))
(extends_interfaces (type_list (_) @reference.implementation))

(line_comment) @doc
(block_comment) @doc
(ERROR) @error
