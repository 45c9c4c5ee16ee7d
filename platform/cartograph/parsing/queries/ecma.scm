; Cartograph: TypeScript, TSX and JavaScript facts (every file of the family runs this one,
; then ecma-typescript.scm or ecma-javascript.scm, then ecma-jsx.scm for TSX and JavaScript;
; see cartograph.languages). Every capture is handled by cartograph.parsing.ecma, which reads
; names and parts from the captured node's fields (so no @name captures).
;
; tree-sitter's standard tag names: @definition.function, @definition.class,
; @definition.method, @definition.interface, @definition.type (a definition: a symbol),
; @reference.call (a call), @reference.class (`new X()`), @reference.type (an annotation).
; Cartograph's own: @definition.enum, @definition.object (an object literal bound to a name:
; its methods are members), @import, @export, @var (a declarator), @assign, @field (a class
; field: what `this.x` holds), @ref (a function or class used as a value), @jsx (an element
; name), @decorator, @error.

(function_declaration) @definition.function
(generator_function_declaration) @definition.function
(class_declaration) @definition.class
(class) @definition.class
(method_definition) @definition.method
(arrow_function) @definition.function
(function_expression) @definition.function
(variable_declarator value: (object) @definition.object)

(call_expression) @reference.call
(new_expression) @reference.class
(import_statement) @import
(export_statement) @export
(variable_declarator) @var
(assignment_expression) @assign

(arguments [(identifier) (member_expression)] @ref)
(pair value: [(identifier) (member_expression)] @ref)
(object (shorthand_property_identifier) @ref)
(array [(identifier) (member_expression)] @ref)
(return_statement [(identifier) (member_expression)] @ref)
(decorator) @decorator
(return_statement) @return
(ERROR) @error
