; Cartograph's by-name tier (cartograph.parsing.tags) for Ruby. Modules are definitions of
; kind class; `include`/`extend`/`prepend` in a class body add bases and
; `require`/`require_relative` calls are imports (both read from the @reference.call
; captures).
; The captures are described in cartograph/parsing/tags.py.

(module name: (_) @name) @definition.class
(class name: (_) @name) @definition.class
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method

(call receiver: (_) @recv method: (identifier) @name) @reference.call
(call !receiver method: (identifier) @name) @reference.call

(class superclass: (superclass (_) @reference.implementation))

(body_statement
  (identifier) @visibility
  (#match? @visibility "^(private|protected|public|private_class_method|module_function)$"))

(comment) @doc
(ERROR) @error
