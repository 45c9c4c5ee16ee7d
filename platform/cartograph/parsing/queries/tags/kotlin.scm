; Cartograph generic tier: Kotlin (see go.scm for the capture vocabulary). An unnamed
; companion object is transparent: its members are named after the class (`Foo.create`).

(package_header (qualified_identifier) @package)

(class_declaration name: (identifier) @name) @def.class
(class_declaration "interface" name: (identifier) @name) @def.interface
(class_declaration
  (modifiers (class_modifier) @_enum (#eq? @_enum "enum"))
  name: (identifier) @name) @def.enum
(object_declaration name: (identifier) @name) @def.class
(function_declaration name: (identifier) @name) @def.function
(type_alias type: (identifier) @name) @def.type

(call_expression . (identifier) @name) @call
(call_expression
  . (navigation_expression . (_) @recv (identifier) @name .)) @call

(import) @import

(delegation_specifier [(user_type) (constructor_invocation (user_type))] @base)

(line_comment) @comment
(block_comment) @comment
(ERROR) @error
