; Cartograph's by-name tier (cartograph.parsing.tags) for Kotlin. An unnamed companion
; object is transparent: its members are named after the class (`Foo.create`).
; The captures are described in cartograph/parsing/tags.py.

(package_header (qualified_identifier) @package)

(class_declaration name: (identifier) @name) @definition.class
(class_declaration "interface" name: (identifier) @name) @definition.interface
(class_declaration
  (modifiers (class_modifier) @_enum (#eq? @_enum "enum"))
  name: (identifier) @name) @definition.enum
(object_declaration name: (identifier) @name) @definition.class
(function_declaration name: (identifier) @name) @definition.function
(type_alias type: (identifier) @name) @definition.type

(call_expression . (identifier) @name) @reference.call
(call_expression
  . (navigation_expression . (_) @recv (identifier) @name .)) @reference.call

(import) @import

(delegation_specifier [(user_type) (constructor_invocation (user_type))] @reference.implementation)

(line_comment) @doc
(block_comment) @doc
(ERROR) @error
