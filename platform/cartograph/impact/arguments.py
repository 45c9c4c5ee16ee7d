"""Will a caller's call still bind after a signature change? Its arguments — how many
positional ones, which keywords, whether it passes `*args` or `**kwargs` on — are read from the
caller's source (Python's own parser on the caller's lines) and bound against the new
parameters the way Python binds them: "binds" (the caller is unaffected), "fails" (it will
break), or "unknown" (it passes arguments on with `*`/`**`, or its call cannot be found)."""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass

from cartograph.impact.symbols import Parameter


@dataclass(frozen=True, slots=True)
class CallShape:
    positional: int  # positional arguments written out
    keywords: tuple[str, ...]  # keyword arguments by name
    spread: bool  # `*args` or `**kwargs` passed on: what they hold is not known here


def call_shapes(source: str, first_line: int, lines: list[int], name: str) -> list[CallShape]:
    """The calls named `name` (`name(...)`, `x.name(...)`) that start on `lines` of a caller
    whose source (from its `def`, at line `first_line` of its file) is `source`."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return []
    wanted = {line - first_line + 1 for line in lines}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or node.lineno not in wanted:
            continue
        func = node.func
        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if called != name:
            continue
        spread = any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords
        )
        found.append(
            CallShape(
                sum(1 for a in node.args if not isinstance(a, ast.Starred)),
                tuple(k.arg for k in node.keywords if k.arg is not None),
                spread,
            )
        )
    return found


def still_binds(call: CallShape, before: list[Parameter], after: list[Parameter]) -> bool | None:
    """Whether a call written against the `before` parameters works against the `after` ones:
    it binds, and each positional argument it writes goes to a parameter of the same name
    (reordered parameters bind, with the values swapped). None when it cannot be told."""
    result = binds(call, after)
    if result is not True:
        return result
    positional_before = [p.name for p in before if not p.star and not p.keyword_only]
    positional_after = [p.name for p in after if not p.star and not p.keyword_only]
    # the same arguments must go to the same parameters
    return positional_before[: call.positional] == positional_after[: call.positional]


def binds(call: CallShape, parameters: list[Parameter]) -> bool | None:
    """Whether the call binds to these parameters (the bound `self` left out); None when it
    cannot be told (arguments passed on with `*` or `**`)."""
    if call.spread:
        return None
    positional = [p for p in parameters if not p.star and not p.keyword_only]
    takes_rest = any(p.star == "*" for p in parameters)
    takes_any_keyword = any(p.star == "**" for p in parameters)
    if call.positional > len(positional) and not takes_rest:
        return False
    bound = {p.name for p in positional[: call.positional]}
    by_name = {p.name: p for p in parameters if not p.star}
    for keyword in call.keywords:
        target = by_name.get(keyword)
        if target is None or target.positional_only:
            if not takes_any_keyword:
                return False
            continue
        if keyword in bound:
            return False  # given twice: positionally and by name
        bound.add(keyword)
    return all(p.optional or p.name in bound for p in by_name.values())
