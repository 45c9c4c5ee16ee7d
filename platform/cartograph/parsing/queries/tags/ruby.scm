; Cartograph generic tier: Ruby (see go.scm for the capture vocabulary). Modules are
; definitions of kind class; `include`/`extend`/`prepend` in a class body add bases and
; `require`/`require_relative` calls are imports (both read from the @call captures).

(module name: (_) @name) @def.class
(class name: (_) @name) @def.class
(method name: (_) @name) @def.method
(singleton_method name: (_) @name) @def.method

(call receiver: (_) @recv method: (identifier) @name) @call
(call !receiver method: (identifier) @name) @call

(class superclass: (superclass (_) @base))

(body_statement
  (identifier) @visibility
  (#match? @visibility "^(private|protected|public|private_class_method|module_function)$"))

(comment) @comment
(ERROR) @error
