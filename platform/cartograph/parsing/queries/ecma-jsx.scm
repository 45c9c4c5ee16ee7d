; Cartograph: JSX, for TSX and JavaScript (same capture names as ecma.scm, see there).

(jsx_expression [(identifier) (member_expression)] @ref)
(jsx_opening_element name: (_) @jsx)
(jsx_self_closing_element name: (_) @jsx)
