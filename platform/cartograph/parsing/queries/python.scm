; Cartograph: Python facts. Every capture is handled by cartograph.parsing.python;
; the capture name says what the node is. Definitions, calls, bindings and value
; references are found here, so extraction never walks a whole tree in Python. Names and
; parts are read from the captured node's fields (so no @name captures).
;
; tree-sitter's standard tag names: @definition.function (also methods: the parser tells
; them by their parent), @definition.class, @reference.call.
; Cartograph's own: @import, @assign, @aug (augmented assignment: `__all__ += ...`),
; @bind.* (what binds a name: for, comprehension, as, walrus, lambda parameters), @global,
; @nonlocal, @ref (a function or class used as a value; @ref.keyword: as a keyword argument
; or dict value), @return, @type_checking (an `if` that may be `if TYPE_CHECKING:`), @error.

(function_definition) @definition.function
(class_definition) @definition.class

(call) @reference.call

(import_statement) @import
(import_from_statement) @import

(assignment) @assign
(augmented_assignment left: (identifier)) @aug

(for_statement) @bind.for
(for_in_clause left: (_) @bind.comp)
(as_pattern alias: (as_pattern_target) @bind.as)
(named_expression name: (identifier) @bind.walrus)
(lambda parameters: (lambda_parameters) @bind.lambda)
(global_statement (identifier) @global)
(nonlocal_statement (identifier) @nonlocal)

; functions, methods and classes used as values (callbacks, registrations, ...)
(argument_list [(identifier) (attribute)] @ref)
(keyword_argument value: [(identifier) (attribute)] @ref.keyword)
(return_statement [(identifier) (attribute)] @ref)
(list [(identifier) (attribute)] @ref)
(tuple [(identifier) (attribute)] @ref)
(set [(identifier) (attribute)] @ref)
(pair value: [(identifier) (attribute)] @ref.keyword)
(expression_list [(identifier) (attribute)] @ref)
(default_parameter value: [(identifier) (attribute)] @ref)
(typed_default_parameter value: [(identifier) (attribute)] @ref)

(return_statement) @return
(yield) @yield

(with_item) @with
(raise_statement) @raise
(binary_operator) @operator
(comparison_operator) @compare
(subscript) @subscript
(attribute) @attribute

(if_statement condition: [(identifier) (attribute)] @type_checking)

(ERROR) @error
