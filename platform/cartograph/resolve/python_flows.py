"""The flow rows one Python file gives the flow stage (`index.flows`): what values pass
between functions, which a file's own resolution cannot see — what callers pass to a parameter
a function calls, what a function stores into a container called elsewhere, `self.m()` that
may reach a subclass's override, a plugin manager's hook, a computed `getattr` — as rows:

  ["call", key, name, source, line, mode]   a call of a parameter's or a container's value
                                             (mode ".m": of its method m)
  ["pass", key, name, target, param]         a parameter's values passed on to another's
  ["arg", target, param, symbol, mode]       a function or class passed to a parameter
                                             (mode "i": an instance of the class)
  ["self", source, class, method, line]      `self.method()`: the overrides may run
  ["hook", source, name, line]               `pm.hook.name(...)`: every implementation runs
  ["getattr", source, class, prefix, line]   `getattr(obj, "visit_" + kind)(...)`
  ["class", class, [bases], [methods]]       a class's indexed bases and own methods
  ["functions", module, [names]]             functions a plugin manager may call by name

Rows hold symbol ids and container keys only, never values (they are stored with the file).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from cartograph.parsing.facts import (
    ATTR_NAME,
    ATTR_SCOPE,
    BINDING_NAME,
    BINDING_POS,
    BINDING_VALUE,
    SCOPE_BODY,
    SCOPE_DECORATORS,
    SCOPE_KIND,
    SCOPE_NAME,
    SCOPE_PARENT,
)
from cartograph.resolve.core import Found
from cartograph.resolve.python_held import CONTAINER_GETTERS
from cartograph.resolve.values import (
    BUILTIN,
    Box,
    Class,
    Definition,
    Function,
    Instance,
    Lambda,
    Super,
)

if TYPE_CHECKING:
    from cartograph.resolve.python import ModuleFacts, Program

# a name a plugin manager may call (pluggy's hooks are `project_event`): public, with an "_"
HOOKABLE = re.compile(r"[a-z][a-z0-9]*_[A-Za-z0-9_]+\Z")
# builtins whose result holds a container's elements (a copy, a view, an iterator over it)
CONTAINER_COPIES = frozenset({"reversed", "list", "tuple", "sorted", "iter", "set", "frozenset"})
MAX_CONTAINER_STEPS = 16  # subscripts, getters, copies and locals between a use and its container
HOOK_CALLERS = frozenset({"call_historic", "call_extra"})  # a pluggy hook's other calls


class FlowRows:
    """The flow rows of one file, collected while its references are resolved (`rows`)."""

    def __init__(
        self,
        program: Program,
        mod: ModuleFacts,
        evaluate_ref: Callable[[ModuleFacts, int, list, int], Found],
    ) -> None:
        self.program = program
        self.mod = mod
        self.evaluate_ref = evaluate_ref  # the file's remembered evaluation
        self.rows: list[list] = []

    # ------------------------------------------------------------ calls of what was passed
    def parameter(
        self, mod: ModuleFacts, scope: int, name: str, pos: int, starred: bool = False
    ) -> tuple | None:
        """(function scope, parameter name) when `name` at `pos` is a parameter of the
        enclosing function or of a function around it (a closure), not rebound before; a
        `*args` parameter only when `starred` (its elements are what callers pass)."""
        found = self.program.live_binding(mod, scope, name, pos)
        if found is None:
            return None
        where, row = found
        binding = row[BINDING_VALUE]
        if binding[0] != "param" and where > 0:
            # rebound in the function (`if isinstance(cb, Command): cb = cb.callback`): the
            # parameter's values still reach here (flow-insensitive, as every binding counts)
            params = [
                r for r in mod.bindings(where).get(name, ()) if r[BINDING_VALUE][0] == "param"
            ]
            if params:
                row = params[0]
                binding = row[BINDING_VALUE]
        if binding[0] != "param" or where <= 0:
            return None
        if binding[4] and (binding[4] != "*" or not starred):
            return None
        return where, row[BINDING_NAME]

    def parameter_call(self, scope: int, expr: list, pos: int, source_id: str, line: int) -> bool:
        """A call of a parameter's value (`callback()`), of an element of it (`for f in fns:
        f()`, `table[k]()`): a flow row the flow stage turns into CALLS to what callers pass."""
        mod = self.mod
        mode = "v"
        target = None
        if expr[0] == "n":
            target = self.parameter(mod, scope, expr[1], pos)
            if target is None:
                found = self.program.live_binding(mod, scope, expr[1], pos)
                if found is not None and found[1][BINDING_VALUE][0] == "for":
                    iterated = found[1][BINDING_VALUE][1]
                    if iterated is not None and iterated[0] == "n":
                        at = found[1][BINDING_POS]
                        target = self.parameter(mod, found[0], iterated[1], at, starred=True)
                        mode = "e"
        elif expr[0] == "i" and expr[1][0] == "n":
            target = self.parameter(mod, scope, expr[1][1], pos, starred=True)
            mode = "e"
        if target is None:
            if self._container_call(scope, expr, pos, source_id, line):
                return True
            return expr[0] == "a" and self._method_call(scope, expr, pos, source_id, line)
        owner, name = target
        self.rows.append(["call", mod.symbol_ids[owner], name, source_id, line, mode])
        return True

    def protocol_call(
        self, scope: int, expr: list, pos: int, dunder: str, source_id: str, line: int
    ) -> None:
        """Syntax calling a dunder of a parameter's value (`for item in items`, `with lock`):
        the method call rows of that dunder (`__iter__`, and `__next__` of an iterator that
        is its own, the usual shape)."""
        self._method_call(scope, ["a", expr, dunder], pos, source_id, line)
        if dunder == "__iter__":
            self._method_call(scope, ["a", expr, "__next__"], pos, source_id, line)

    def _method_call(self, scope: int, expr: list, pos: int, source_id: str, line: int) -> bool:
        """`handler.handle(...)` on a parameter, `self.handler.handle(...)` on an attribute
        fed by one (`self.handler = handler`), whose value the file cannot know: a call row
        whose mode names the method (".handle"); the flow stage binds it to the method of each
        instance (or class) callers pass."""
        mod, receiver, mode = self.mod, expr[1], "." + expr[2]
        if receiver[0] == "n":
            target = self.parameter(mod, scope, receiver[1], pos)
            if target is None:
                return False
            owner, name = target
            if name == mod.first_param(owner) and mod.kind(owner) == "method":
                return False  # `self.m()`: the file's own, and the dispatch rule's
            self.rows.append(["call", mod.symbol_ids[owner], name, source_id, line, mode])
            return True
        if (
            receiver[0] != "a"
            or receiver[1][0] != "n"
            or not self._assigned_attribute(scope, receiver, pos)
        ):
            return False
        key = self.container_key(mod, scope, receiver, pos)
        if key is None:
            return False
        self.rows.append(["call", key, "*", source_id, line, mode])
        return True

    def container_key(self, mod: ModuleFacts, scope: int, base: list, pos: int) -> str | None:
        """The flow stage's key of the container an expression names: a display bound to a
        name (`REGISTRY`, from any module that imports it), or an attribute of an instance of
        a repository class (`self.commands`: keyed by the class that assigns the attribute);
        `c.setdefault(k, [])`, `c.get(k, [])` and `c[k]` name the containers held in `c`, and
        a builtin copy (`reversed(c)`, `list(c)`) the container it reads."""
        for _step in range(MAX_CONTAINER_STEPS):
            if base[0] == "i":  # `self.funcs[name]`: the containers held in `self.funcs`
                base = base[1]
            elif base[0] == "c" and base[1][0] == "a" and base[1][2] in CONTAINER_GETTERS:
                base = base[1][1]
            elif base[0] == "c" and base[1][0] == "n" and base[1][1] in CONTAINER_COPIES:
                # `reversed(self.funcs)`, `list(REGISTRY)`: the container they read
                if base[2] is None or len(base) > 3:
                    return None
                if self.program.lookup(mod, scope, base[1][1], pos).value != BUILTIN:
                    return None
                base = base[2]
            elif base[0] == "n" and scope > 0:
                # `handler_map = self.spec[name][c]`: a local bound to a container's element
                found = self.program.live_binding(mod, scope, base[1], pos)
                if found is None or found[0] != scope:
                    break
                binding = found[1][BINDING_VALUE]
                held = binding[1] if binding[0] == "val" else None
                if held is None or held[0] not in ("i", "c"):
                    break
                # the value is read before the name is bound (`x = x[0]`)
                base, pos = held, found[1][BINDING_POS] - 1
            else:
                break
        else:
            return None  # a chain longer than any real one (a name bound to itself)
        if base[0] == "a":
            owner = self.evaluate_ref(mod, scope, base[1], pos).value
            if not isinstance(owner, Instance):
                return None
            holder = self.program.classes.attribute_holder(owner.module, owner.scope, base[2])
            return f"{holder[0].symbol_ids[holder[1]]}::{base[2]}"
        value = self.evaluate_ref(mod, scope, base, pos).value
        if not isinstance(value, Box) or value.name is None:
            return None
        return f"{value.module.symbol_ids[value.scope]}::{value.name}"

    def _assigned_attribute(self, scope: int, expr: list, pos: int) -> bool:
        """Whether `obj.name` is an attribute some method of obj's class or its bases assigns
        (`self.name = ...`), not a name nothing binds."""
        owner = self.evaluate_ref(self.mod, scope, expr[1], pos).value
        if not isinstance(owner, Instance):
            return False
        holder_mod, holder_scope = self.program.classes.attribute_holder(
            owner.module, owner.scope, expr[2]
        )

        def compute() -> frozenset[tuple[int, str]]:
            scopes = holder_mod.scopes
            return frozenset(
                (scopes[row[ATTR_SCOPE]][SCOPE_PARENT], row[ATTR_NAME])
                for row in holder_mod.facts["attrs"]
            )

        # (class, name) of every `self.name = …` in the module, once per module
        assigned = self.program.memo.cached(("assigned", holder_mod.path), compute, frozenset())
        return (holder_scope, expr[2]) in assigned

    def _container_call(self, scope: int, expr: list, pos: int, source_id: str, line: int) -> bool:
        """A call through a container (`self.commands[name]()`, `REGISTRY[k]()`, `for f in
        self.hooks: f()`, `handler = self.table.get(k); handler()`): a call row on its key."""
        mod = self.mod
        base = None
        literal = None
        if expr[0] == "i":
            base, literal = expr[1], expr[2] if len(expr) > 2 else None
        elif expr[0] == "c" and expr[1][0] == "a" and expr[1][2] in CONTAINER_GETTERS:
            base, literal = expr[1][1], expr[3] if len(expr) > 3 else None
        elif expr[0] == "n":
            found = self.program.live_binding(mod, scope, expr[1], pos)
            if found is not None:
                binding = found[1][BINDING_VALUE]
                held = binding[1] if binding[0] in ("for", "val") else None
                if held is not None and (binding[0] == "for" or held[0] in ("i", "c")):
                    at = found[1][BINDING_POS]
                    if binding[0] == "for":
                        return self._container_rows(found[0], held, None, at, source_id, line)
                    return self._container_call(found[0], held, at, source_id, line)
            return False
        elif expr[0] == "a":  # `self.callback()`: what the attribute was given
            if not self._assigned_attribute(scope, expr, pos):
                return False  # a method the class does not have, not an attribute it holds
            base = expr
        elif expr[0] == "c" and expr[2] is not None and self._gives_back(scope, expr, pos):
            # `self.ensure_sync(self.view_functions[k])()`: the argument, given back, is called
            return self.parameter_call(scope, expr[2], pos, source_id, line)
        elif expr[0] == "c":
            # `handler = self._find_error_handler(e)` returning `handler_map.get(cls)`
            # of `self.error_handler_spec[name][c]`: an element of that container is called
            keys = self._returned_element_keys(scope, expr, pos)
            for key in keys:
                self.rows.append(["call", key, "*", source_id, line, "v"])
            return bool(keys)
        if base is None:
            return False
        return self._container_rows(scope, base, literal, pos, source_id, line)

    def _returned_element_keys(self, scope: int, call: list, pos: int) -> list[str]:
        """The containers whose elements the function `call` calls may return (a `return`
        of a subscript or `.get` of a container, or of a name bound to one)."""
        callee = self.evaluate_ref(self.mod, scope, call[1], pos).value
        if not isinstance(callee, Function):
            return []
        fmod, fscope = callee.module, callee.scope
        keys = []
        for at, returned in fmod.returns_of(fscope):
            if returned is None:
                continue
            if returned[0] == "n":  # `return handler`, `handler = handler_map.get(cls)`
                found = self.program.live_binding(fmod, fscope, returned[1], at)
                if found is None:
                    continue
                binding = found[1][BINDING_VALUE]
                if binding[0] != "val" or binding[1] is None:
                    continue
                returned, at = binding[1], found[1][BINDING_POS] - 1
            if returned[0] == "i" or (
                returned[0] == "c" and returned[1][0] == "a" and returned[1][2] in CONTAINER_GETTERS
            ):
                key = self.container_key(fmod, fscope, returned, at)
                if key is not None and key not in keys:
                    keys.append(key)
        return keys

    def _gives_back(self, scope: int, call: list, pos: int) -> bool:
        """Whether the function `call` calls may return its first argument as it is
        (`def ensure_sync(self, func): ... return func`; a bound method's `self` skipped)."""
        callee = self.evaluate_ref(self.mod, scope, call[1], pos).value
        if not isinstance(callee, Function):
            return False
        return self.program.held.gives_back_argument(callee, _called_bound(callee), every=False)

    def _bound_params(self, function: Function) -> list[str]:
        """The positional parameters a call of `function` fills: a method's `self` or `cls`
        left out (a method is called through its instance or class), a staticmethod's not."""
        params = [p[1] for p in self.program.signature(function.module, function.scope) if not p[2]]
        return params[1:] if _called_bound(function) else params

    def _container_rows(self, scope, base, literal, pos, source_id: str, line: int) -> bool:
        key = self.container_key(self.mod, scope, base, pos)
        if key is None:
            return False
        if literal is not None:
            key = f"{key}[{literal!r}]"
        self.rows.append(["call", key, "*", source_id, line, "v"])
        return True

    # ------------------------------------------------------------ dispatch the stage decides
    def receiver(self, scope: int, expr: list, source_id: str, line: int) -> None:
        """`self.m()` / `cls.m()` in a method, or in a function nested in one that does not
        bind that name itself (`def decorator(f): self.add_url_rule(rule, f)` inside
        `route`): may reach the overrides of m in the subclasses of the method's class (the
        flow stage's dispatch rule)."""
        owner = self._method_class(scope, expr)
        if owner is not None:
            self.rows.append(["self", source_id, owner, expr[2], line])

    def handed_on(self, scope: int, expr: list, source_id: str, line: int) -> None:
        """`self.m` handed on as a value there (`add_url_rule(view_func=self.send_static_file)`
        in a base class whose subclass defines the method): the overrides of m in the
        subclasses are referenced (the dispatch rule, as REFERENCES)."""
        owner = self._method_class(scope, expr)
        if owner is not None:
            self.rows.append(["self-use", source_id, owner, expr[2], line])

    def _method_class(self, scope: int, expr: list) -> str | None:
        """The id of the class whose method's `self`/`cls` is the receiver of `expr`, if it
        is one."""
        mod = self.mod
        if expr[0] != "a" or expr[1][0] != "n" or scope <= 0:
            return None
        name = expr[1][1]
        method = scope
        while mod.scopes[method][SCOPE_KIND] == "function":
            parent = mod.scopes[method][SCOPE_PARENT]
            if parent < 0 or mod.scopes[parent][SCOPE_KIND] == "class":
                break
            if name in mod.bindings(method):
                return None  # a closure's own binding of the name: not the method's `self`
            method = parent
        row = mod.scopes[method]
        parent = row[SCOPE_PARENT]
        if row[SCOPE_KIND] != "function" or parent < 0 or mod.scopes[parent][SCOPE_KIND] != "class":
            return None
        if name != mod.first_param(method) or "staticmethod" in row[SCOPE_DECORATORS]:
            return None
        return mod.symbol_ids[parent]

    def hook(self, expr: list, source_id: str, line: int) -> bool:
        """`config.hook.pytest_x(...)`, `item.ihook.pytest_x(...)`, `pm.hook.x(...)`: a plugin
        manager's hook, which calls every implementation registered for that name (the flow
        stage's hook rule binds the functions and methods of that name). pluggy's other ways
        to call a hook, `hook.pytest_x.call_historic(...)` and `.call_extra(...)`, too."""
        if expr[0] == "a" and expr[2] in HOOK_CALLERS and expr[1][0] == "a":
            expr = expr[1]
        if expr[0] != "a" or not HOOKABLE.match(expr[2]):
            return False
        relay = expr[1]
        if relay not in (["n", "hook"], ["n", "ihook"]) and not (
            relay[0] == "a" and relay[2] in ("hook", "ihook")
        ):
            return False
        self.rows.append(["hook", source_id, expr[2], line])
        return True

    def computed_getattr(self, scope: int, expr: list, pos: int, source_id: str, line: int) -> None:
        """`getattr(obj, "visit_" + kind)(...)` on an instance or class of the repository: may
        reach every method of that class, its bases and its subclasses whose name has that
        prefix (the flow stage's getattr rule)."""
        if expr[0] != "c" or expr[1] != ["n", "getattr"] or len(expr) < 4 or expr[2] is None:
            return
        prefix = expr[3]
        if not isinstance(prefix, str) or not prefix.endswith("*") or len(prefix) < 2:
            return
        receiver = self.evaluate_ref(self.mod, scope, expr[2], pos).value
        if not isinstance(receiver, (Instance, Class)):
            return
        cls_id = receiver.module.symbol_ids[receiver.scope]
        self.rows.append(["getattr", source_id, cls_id, prefix[:-1], line])

    # ------------------------------------------------------------ what a call passes
    def arguments(self, scope: int, expr: list, callee: Definition, pos: int) -> None:
        """What a call passes to the parameters a function uses as callables: functions,
        classes, lambdas and the elements of displays ("arg" rows), and the caller's own
        parameters ("pass" rows). A method called on an instance whose class is not known
        exactly (`self.add_url_rule(rule, f)`, a parameter typed as the base) may run an
        override in a subclass, which may call what the method itself does not: its rows go
        to the dispatch key `class->name` (the flow stage passes them to the method found on
        that class and to every override below it), for every parameter."""
        mod, program = self.mod, self.program
        passed = mod.arguments(pos, expr)
        if not passed:
            return
        target: Definition | None = callee
        if isinstance(callee, Class):
            target = program.classes.method(callee, "__init__", instance=False)
            if target is None:
                return
        assert target is not None
        tmod, tscope = target.module, target.scope
        wanted: frozenset[str] | None = tmod.callable_params().get(tscope, frozenset())
        bound = isinstance(callee, Class)
        if not wanted and (bound or expr[0] != "a" or tmod.kind(tscope) != "method"):
            return  # a function that never calls, iterates, passes on or stores a parameter
        target_id = tmod.symbol_ids[tscope]
        if expr[0] == "a" and not bound:
            base, base_via = self.evaluate_ref(mod, scope, expr[1], pos)
            decorators = tmod.decorators(tscope)
            if isinstance(base, (Instance, Super)):
                bound = "staticmethod" not in decorators
            elif isinstance(base, Class):
                bound = "classmethod" in decorators
            if isinstance(base, Instance) and base_via != "constructor" and bound:
                target_id = f"{base.module.symbol_ids[base.scope]}->{expr[2]}"
                wanted = None  # an override may call any parameter
        if wanted is not None and not wanted:
            return  # the callee never calls, iterates, passes on or stores a parameter
        params = program.signature(tmod, tscope)
        positional = [p for p in params if not p[2]]
        by_name = {p[1] for p in positional}
        star = next((p for p in params if p[2] == "*"), None)
        offset = 1 if bound else 0
        for slot, value in passed:
            element = False
            if isinstance(slot, str):
                name = slot if slot in by_name else None
            else:
                index = slot + offset
                name = positional[index][1] if index < len(positional) else None
                if star is not None and index >= star[0]:  # collected by `*args`
                    name, element = star[1], True
            if name is not None and (wanted is None or name in wanted):
                self._value(scope, value, pos, target_id, name, element)

    def _value(
        self, scope: int, value: list, pos: int, target_id: str, name: str, element: bool
    ) -> None:
        mod, rows = self.mod, self.rows
        if element:  # one of the `*args` a call passes: an element of the parameter
            found = self.evaluate_ref(mod, scope, value, pos).value
            if isinstance(found, Definition):
                rows.append(["arg", target_id, name, found.symbol_id, "e"])
            return
        if value[0] == "n":
            parameter = self.parameter(mod, scope, value[1], pos)
            if parameter is not None:
                owner, own = parameter
                rows.append(["pass", mod.symbol_ids[owner], own, target_id, name])
                return
        found = self.evaluate_ref(mod, scope, value, pos).value
        if found is None:
            if value[0] == "a":  # `ctx.invoke(self.callback)`: what the attribute was given
                key = self.container_key(mod, scope, value, pos)
                if key is not None:
                    rows.append(["pass", key, "*", target_id, name])
            return
        if isinstance(found, Definition):
            rows.append(["arg", target_id, name, found.symbol_id, "v"])
        elif isinstance(found, Instance):  # its methods run where the parameter's are called
            rows.append(["arg", target_id, name, found.module.symbol_ids[found.scope], "i"])
        elif isinstance(found, Box):
            for item, _via in self.program.held.elements(found, None):
                if isinstance(item, Definition):
                    rows.append(["arg", target_id, name, item.symbol_id, "e"])
        elif isinstance(found, Lambda):
            for called in found.body_calls(self.program):
                rows.append(["arg", target_id, name, called.symbol_id, "l"])

    # ------------------------------------------------------------ a module's definitions
    def stores(self) -> None:
        """What each function stores into a container the flow stage follows: its parameters'
        values (`self.commands[name] = func`), and, for instance-attribute containers (which a
        file's own resolution does not follow), the functions and classes stored."""
        mod, rows = self.mod, self.rows
        for scope, base, literal, value, pos, spread in mod.facts.get("stores", ()):
            if spread or value is None:
                continue
            key = self.container_key(mod, scope, base, pos)
            if key is None:
                continue
            keys = [key] if literal is None else [key, f"{key}[{literal!r}]"]
            if value[0] == "n":
                parameter = self.parameter(mod, scope, value[1], pos)
                if parameter is not None:
                    owner, name = parameter
                    rows.extend(["pass", mod.symbol_ids[owner], name, k, "*"] for k in keys)
                    continue
            if base[0] != "a":
                continue  # a module-level display's own stores: its file resolves them
            found = self.evaluate_ref(mod, scope, value, pos).value
            if isinstance(found, Definition):
                rows.extend(["arg", k, "*", found.symbol_id, "v"] for k in keys)
        for scope, obj, attr, pos, value, _typ in mod.facts["attrs"]:
            # `self.callback = callback`: what callers pass is what the attribute holds
            if value is None or value[0] != "n" or obj != mod.first_param(scope):
                continue
            parameter = self.parameter(mod, scope, value[1], pos)
            key = self.container_key(mod, scope, ["a", ["n", obj], attr], pos)
            if parameter is not None and key is not None:
                owner, name = parameter
                rows.append(["pass", mod.symbol_ids[owner], name, key, "*"])

    def definitions(self) -> None:
        """Flows a module's definitions make: each decorator receives what it decorates (the
        function, or what the decorator below it returned); a parameter's default value is
        passed to it; and each class's indexed bases and own methods (for dispatch)."""
        mod, rows, program = self.mod, self.rows, self.program
        ids = mod.symbol_ids
        for scope in mod.decorations():
            for decorators, received in program.held.decorations_applied(mod, scope)[0]:
                if not isinstance(received, Definition):
                    continue
                for decorator, _via in decorators:
                    if not isinstance(decorator, Function):
                        continue
                    # a method used as a decorator (`@app.teardown_appcontext`) is bound:
                    # the definition goes to the parameter after `self`
                    params = self._bound_params(decorator)
                    if params:  # "d": the wrapper it returns calls it back ("wrapped")
                        rows.append(
                            ["arg", decorator.symbol_id, params[0], received.symbol_id, "d"]
                        )
        for scope, row in enumerate(mod.scopes):
            kind = row[SCOPE_KIND]
            if kind == "function":
                self._defaults(scope, row)
            elif kind == "class":
                info = program.classes.info(mod, scope)
                bases = [b[0].symbol_ids[b[1]] for b in info.bases] if info is not None else []
                methods = sorted(
                    name
                    for name, bound in mod.bindings(scope).items()
                    if any(
                        r[BINDING_VALUE][0] == "def"
                        and mod.scopes[r[BINDING_VALUE][1]][SCOPE_KIND] == "function"
                        for r in bound
                    )
                )
                rows.append(["class", ids[scope], bases, methods])
        # the module's functions a plugin manager may call by name (pluggy's hooks): public
        # names with an underscore (`pytest_runtest_setup`), hook specifications left out
        hookable = sorted(
            row[SCOPE_NAME]
            for row in mod.scopes[1:]
            if row[SCOPE_KIND] == "function"
            and row[SCOPE_PARENT] == 0
            and HOOKABLE.match(row[SCOPE_NAME])
            and not any(d.partition("(")[0].endswith("hookspec") for d in row[SCOPE_DECORATORS])
        )
        if hookable:
            rows.append(["functions", ids[0], hookable])

    def _defaults(self, scope: int, row: list) -> None:
        """A function or class named as a parameter's default is passed to it (a default
        matters only to a parameter used as a callable)."""
        mod = self.mod
        wanted = mod.callable_params().get(scope)
        if not wanted:
            return
        parent = row[SCOPE_PARENT]
        header = parent if parent >= 0 else 0
        for name in sorted(wanted):
            binding = mod.bindings(scope)[name][0][BINDING_VALUE]
            default = binding[3] if binding[0] == "param" else None
            if default is not None and default[0] in ("n", "a"):
                found = self.program.evaluate(mod, header, default, row[SCOPE_BODY]).value
                if isinstance(found, Definition):
                    self.rows.append(["arg", mod.symbol_ids[scope], name, found.symbol_id, "v"])


def _called_bound(function: Function) -> bool:
    """Whether a call of `function` fills its first parameter itself: a method called
    through its instance or class (`self`, `cls`), not a staticmethod."""
    is_method = function.module.kind(function.scope) == "method"
    return is_method and "staticmethod" not in function.row[SCOPE_DECORATORS]
