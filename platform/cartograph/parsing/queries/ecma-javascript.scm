; Cartograph: what JavaScript adds to ecma.scm (same capture names, see there).

(field_definition) @field
