"""What Python names, containers and decorated definitions hold when no single value says:
the values a callee expression may be (an element of a container, a name bound by a `for` or
by unpacking, one of the functions a factory returns), a container's elements (its display's
items and what was stored into it), and what a decorated name holds once its decorators ran.
"""

from __future__ import annotations

import marshal
from typing import TYPE_CHECKING

from cartograph.parsing.facts import BINDING_POS, BINDING_VALUE, SCOPE_KIND, SCOPE_PARENT
from cartograph.resolve.core import Found
from cartograph.resolve.values import (
    RETURNED_KINDS,
    TYPING,
    Box,
    Class,
    FixedTuple,
    Function,
    Instance,
    Returning,
    Sequence,
    names_no_function,
)

if TYPE_CHECKING:
    from cartograph.resolve.python import ModuleFacts, Program

CONTAINER_GETTERS = frozenset({"get", "pop", "setdefault"})
MAX_CALLABLES_DEPTH = 12


class HeldValues:
    def __init__(self, program: Program) -> None:
        self.program = program
        self._callables_depth = 0

    def callables(
        self, mod: ModuleFacts, scope: int, expr: list | None, pos: int, evaluated: bool = False
    ) -> list[Found]:
        """Every value a callee expression may hold, for the call sites `evaluate` cannot pin
        to one value — an element of a container (by a literal key, or any element), a name
        bound by a `for` over a container or by unpacking, a function that returns one of
        several functions. `evaluated`: `evaluate` already found nothing. A cycle answers
        nothing where it closes; a chain deeper than MAX_CALLABLES_DEPTH answers nothing past
        it (and is not cached)."""
        memo = self.program.memo
        if self._callables_depth >= MAX_CALLABLES_DEPTH:
            memo.cut()
            return []
        key = ("callables", mod.path, scope, marshal.dumps(expr), pos, evaluated)
        self._callables_depth += 1
        try:
            # once per run: a container whose elements come from itself (`tree[n] = tree[m]`
            # in a loop over `tree`) is a cycle, cut where it closes (not after 12 levels of
            # every element again: exponential)
            found = memo.cached(key, lambda: self._callables(mod, scope, expr, pos, evaluated), [])
            return list(found)
        finally:
            self._callables_depth -= 1

    def _callables(
        self, mod: ModuleFacts, scope: int, expr: list | None, pos: int, evaluated: bool
    ) -> list[Found]:
        program = self.program
        if expr is None or expr[0] not in ("n", "i", "c", "box", "lam", "op", "a"):
            return []
        if not evaluated:
            single = program.evaluate(mod, scope, expr, pos)
            if single.value is not None and not names_no_function(single.value):
                return [] if isinstance(single.value, Box) else [single]
        kind = expr[0]
        if kind == "n":
            found = program.live_binding(mod, scope, expr[1], pos)
            if found is None:
                return []
            where, row = found
            binding = row[BINDING_VALUE]
            if binding[0] == "val":
                if binding[1] is None or binding[1][0] not in ("n", "i", "c"):
                    return []
                return self.callables(mod, where, binding[1], row[BINDING_POS] - 1)
            if binding[0] == "for":
                return [
                    element
                    for box in self.containers(mod, where, binding[1], row[BINDING_POS] - 1)
                    for element in self.elements(box, None)
                ]
            if binding[0] == "unpack":
                return self.unpacked(mod, where, binding[1], binding[2], row[BINDING_POS] - 1)
            return []
        if kind == "i":
            literal = expr[2] if len(expr) > 2 else None
            return [
                element
                for box in self.containers(mod, scope, expr[1], pos)
                for element in self.elements(box, literal)
            ]
        if kind == "c":
            func = expr[1]
            if func[0] == "a" and func[2] in CONTAINER_GETTERS:
                literal = expr[3] if len(expr) > 3 else None
                boxes = self.containers(mod, scope, func[1], pos)
                if boxes:
                    return [e for box in boxes for e in self.elements(box, literal)]
            results: list[Found] = []
            for callee, _via in self.callables(mod, scope, func, pos):
                if isinstance(callee, Function):
                    results.extend(
                        Found(value, "return")
                        for value in self.returned(callee.module, callee.scope)
                    )
                elif isinstance(callee, Class):
                    results.append(Found(Instance(callee.module, callee.scope), "constructor"))
            return distinct(results)
        return []

    def containers(self, mod: ModuleFacts, scope: int, expr: list | None, pos: int) -> list:
        """The containers (box or typed sequence values) an expression is: one it evaluates
        to, or the containers a name bound by unpacking holds (`head, *rest = f, g, h`)."""
        program = self.program
        single = program.evaluate(mod, scope, expr, pos).value
        if single is not None:
            return [single] if isinstance(single, (Box, Sequence)) else []
        if expr is not None and expr[0] == "n":
            found = program.live_binding(mod, scope, expr[1], pos)
            if found is not None and found[1][BINDING_VALUE][0] == "unpack":
                where, row = found
                binding = row[BINDING_VALUE]
                unpacked = self.unpacked(
                    mod, where, binding[1], binding[2], row[BINDING_POS] - 1, boxes=True
                )
                return [v for v, _ in unpacked if isinstance(v, (Box, Sequence))]
        return []

    def elements(self, box: Box | Sequence, literal: str | int | None) -> list[Found]:
        """Found(value, "container") for each element of a container that a subscript with
        this literal key (None: any key) may reach: its display's items and what was stored
        in it."""
        if isinstance(box, Sequence):
            element = box.element
            return [Found(element, "container")] if element is not None else []
        # once per run and container, whatever the key: a container whose elements are made
        # from its own elements (`reps.append(reps[0].with_differentials(1))`) is a cycle, cut
        # where it closes; followed again from every element and every key, it was
        # exponential in the number of stores
        key = ("elements", box.module.path, box.scope, box.name, box.items)
        keyed = self.program.memo.cached(key, lambda: self._elements(box), [])
        return distinct(
            [
                Found(value, "container")
                for stored_key, value in keyed
                if literal is None or stored_key is None or stored_key == literal
            ]
        )

    def _elements(self, box: Box) -> list:
        """(key or None, value) of every element of a display container and what was stored
        in it."""
        mod, scope, name = box.module, box.scope, box.name
        entries = [(k, e) for k, e in box.entries()]
        if name is not None:
            stored = self._stored(mod, scope, name)
            if stored:
                # `d["a"] = g` after `d = {"a": f}` replaces what the display put there
                replaced = {k for k, _e in stored if isinstance(k, str)}
                entries = [(k, e) for k, e in entries if k not in replaced] + stored
        results = []
        for key, expr in entries:
            if expr is not None and expr[0] == "box":
                results.append((key, Box.of(mod, scope, None, expr[1])))
                continue
            for value, _via in self.callables(mod, scope, expr, 1 << 62):
                results.append((key, value))
        return results

    def _stored(self, mod: ModuleFacts, scope: int, name: str) -> list:
        """(key, expr) stored into the container `name` of `scope`: `c[k] = f`, `.append(f)`,
        `.setdefault(k, f)`, and the items of a display passed to `.update`/`.extend`."""
        entries = []
        for where, _base, key, value, _pos, spread in mod.stores_into(name):
            if where != scope and (scope != 0 or name in mod.bindings(where)):
                continue
            if not spread:
                entries.append((key, value))
            elif value[0] == "box":
                entries.extend((k, e) for k, e in value[1])
        return entries

    def unpacked(
        self, mod: ModuleFacts, scope: int, value: list, path: list, pos: int, boxes: bool = False
    ) -> list[Found]:
        """What `a, (b, *c) = value` binds a name to, following its path into a display
        (`a, b = f, g`) or into a value typed as a fixed tuple (`a, b = pair()` where `pair`
        returns `tuple[A, B]`); unpacking any other value binds nothing known."""
        if value is None:
            return []
        if value[0] != "box":
            return self._unpacked_tuple(mod, scope, value, path, pos)
        current: list = [("expr", value)]
        for step in path:
            following: list = []
            for kind, item in current:
                items = None
                if kind == "expr" and item is not None and item[0] == "box":
                    items = item[1]
                elif kind == "value" and item.name is None:
                    items = item.entries()
                if items is None:
                    continue
                if isinstance(step, int):
                    if -len(items) <= step < len(items):
                        following.append(("expr", items[step][1]))
                else:
                    _, start, after = step
                    rest_items = items[start : len(items) - after]  # a list: its own positions
                    rest = Box.of(mod, scope, None, [[i, e[1]] for i, e in enumerate(rest_items)])
                    following.append(("value", rest))
            current = following
        results: list[Found] = []
        for kind, item in current:
            if kind == "value":
                if boxes:
                    results.append(Found(item, "container"))
            elif item is not None and item[0] == "box":
                if boxes:
                    results.append(Found(Box.of(mod, scope, None, item[1]), "container"))
            else:
                results.extend(
                    Found(v, "container") for v, _ in self.callables(mod, scope, item, pos)
                )
        return distinct(results)

    def _unpacked_tuple(
        self, mod: ModuleFacts, scope: int, value: list, path: list, pos: int
    ) -> list[Found]:
        """Unpacking a value typed as a fixed tuple: the positions of the path (a starred
        target binds nothing known)."""
        found, via = self.program.evaluate(mod, scope, value, pos)
        for step in path:
            if not isinstance(found, FixedTuple) or not isinstance(step, int):
                return []
            found = found.items[step] if -len(found.items) <= step < len(found.items) else None
        return [Found(found, via)] if found is not None else []

    def returned(self, mod: ModuleFacts, scope: int) -> list:
        """Every value a function may return (a function, a closure, a bound method, an
        instance), one per distinct result of its `return` statements; when its one `return` is
        a call no single value describes, what the functions that call may run return."""
        program = self.program

        def compute() -> list:
            single = program.returns(mod, scope).value
            if single is not None and not names_no_function(single):
                return [single]
            # annotated `-> Callable[...]`: the functions the code returns are what runs (an
            # instance a `return` makes is the other overload's result, not the callable)
            callable_declared = single is not None and single != TYPING
            values = []
            unknown_calls = []
            for pos, expr in mod.returns_of(scope):
                value = program.evaluate(mod, scope, expr, pos).value
                if callable_declared and isinstance(value, Instance):
                    continue
                if isinstance(value, RETURNED_KINDS):
                    values.append(value)
                elif value is None and expr is not None and expr[0] == "c":
                    unknown_calls.append((pos, expr))
            if not values and len(unknown_calls) == len(mod.returns_of(scope)) == 1:
                # the one `return` is a call no single value describes (`return
                # self.route(rule, **opts)`): what the functions called return (a decorator
                # factory behind another: flask's `get` → `_method_route` → `route`'s
                # `decorator`). With several returns, which one runs depends on the arguments
                # (click's `group`: `command(...)(name)` when given a function, else the
                # decorator `command(...)` returns): left out
                for pos, expr in unknown_calls:
                    found = self.callables(mod, scope, expr, pos, evaluated=True)
                    values.extend(v for v, _via in found if isinstance(v, RETURNED_KINDS))
            return list(dict.fromkeys(values))

        return program.memo.cached(("returned", mod.path, scope), compute, [])

    def gives_back_argument(self, function: Function, bound: bool, every: bool) -> bool:
        """Whether a function's `return` gives back its first argument as it is (`def
        identity(a): return a`; `bound`: called through an instance, the argument after
        `self`): every `return` (`every`: the call is its argument), or any (a decorator that
        may hand back what it decorates)."""
        mod, scope = function.module, function.scope
        params = [p[1] for p in self.program.signature(mod, scope) if not p[2]]
        if bound:
            params = params[1:]
        returns = mod.returns_of(scope)
        if not params or not returns:
            return False
        gives_back = (e == ["n", params[0]] for _p, e in returns)
        return all(gives_back) if every else any(gives_back)

    def decorated_value(self, mod: ModuleFacts, scope: int):
        """What a decorated name holds once its decorators ran (innermost first): the wrapper
        a decorator returns, an instance a class decorator makes; the function itself when a
        decorator returns its argument or is not known."""
        return self.decorations_applied(mod, scope)[1]

    def _declared_result(self, mod: ModuleFacts, scope: int, applied: list, pos: int):
        """What a decorator made by a factory call makes, by the factory's return annotation
        (`def group(...) -> Group | Callable[[F], Group]`, so `@group()` makes a `Group`):
        the one result of the `Callable` members of what the call returns; None when the
        call is not a factory's or its annotation says no single thing."""
        if applied is None or applied[0] != "c":
            return None
        returned = self.program.evaluate(mod, scope, applied, pos).value
        if returned is None:
            return None
        results = {m.result for m in returned.alternatives() if isinstance(m, Returning)}
        return results.pop() if len(results) == 1 else None

    def decorations_applied(self, mod: ModuleFacts, scope: int) -> tuple[list, object]:
        """Each decorator of a definition, innermost first, with what it receives — the
        definition, or what the decorator below returned — and what the name holds at the
        end: ([(decorator values as Found, received)], final value)."""

        def compute() -> tuple[list, object]:
            kind = Class if mod.scopes[scope][SCOPE_KIND] == "class" else Function
            value: object = kind(mod, scope)
            parent = mod.scopes[scope][SCOPE_PARENT]
            steps = []
            for pos, applied in reversed(mod.decorations().get(scope, ())):
                decorators = self.callables(mod, parent, applied, pos)
                steps.append((decorators, value))
                declared = self._declared_result(mod, parent, applied, pos)
                if declared is not None:  # what the factory's annotation says its decorator makes
                    value = declared
                    continue
                if len(decorators) != 1:
                    continue
                decorator = decorators[0].value
                if isinstance(decorator, Class):
                    value = Instance(decorator.module, decorator.scope)
                elif isinstance(decorator, Function) and not self.gives_back_argument(
                    decorator, bound=False, every=False
                ):
                    results = self.returned(decorator.module, decorator.scope)
                    if len(results) == 1 and isinstance(results[0], (Function, Instance)):
                        value = results[0]
            return steps, value

        return self.program.memo.cached(("decorated", mod.path, scope), compute, ([], None))


def distinct(found: list) -> list[Found]:
    """Found values, the first via of each value."""
    seen: dict = {}
    for value, via in found:
        if value is not None and value not in seen:
            seen[value] = via
    return [Found(value, via) for value, via in seen.items()]
