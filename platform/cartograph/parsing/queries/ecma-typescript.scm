; Cartograph: what TypeScript and TSX add to ecma.scm (same capture names, see there).

(abstract_class_declaration) @definition.class
(interface_declaration) @definition.interface
(type_alias_declaration) @definition.type
(enum_declaration) @definition.enum
(public_field_definition) @field
(type_annotation) @reference.type
(method_signature) @definition.method
(abstract_method_signature) @definition.method
