"""One Python file's resolution: its symbols, and for each reference the parser recorded
(a call, a decorator applied, an annotation, a protocol's syntax, an attribute access, a name
used) the edges it makes, or why it is unresolved; plus its flow rows (`python_flows`)."""

from __future__ import annotations

import marshal
from collections.abc import Iterable
from typing import TYPE_CHECKING

from cartograph.model import Unresolved
from cartograph.parsing.facts import (
    ATTR_NAME,
    ATTR_OBJECT,
    ATTR_SCOPE,
    BINDING_VALUE,
    REF_EXPR,
    REF_KIND,
    REF_LINE,
    REF_SOURCE,
    REF_TEXT,
    SCOPE_KIND,
    SCOPE_PARENT,
    SCOPE_START,
)
from cartograph.resolve.core import EdgeSet, FileResolution, Found, OverBudget, render
from cartograph.resolve.plugins import PLUGINS
from cartograph.resolve.python_classes import ClassInfo
from cartograph.resolve.python_flows import FlowRows
from cartograph.resolve.python_symbols import module_symbols
from cartograph.resolve.services import http_rows
from cartograph.resolve.standard import Reach, standard_method_reach
from cartograph.resolve.values import (
    BUILTIN,
    BUILTINS,
    STDLIB,
    TYPING,
    Box,
    Builtin,
    Class,
    Definition,
    External,
    Function,
    Instance,
    Lambda,
    Union,
    Value,
    declares_callable,
)

if TYPE_CHECKING:
    from cartograph.resolve.python import ModuleFacts, Program

MODULE_PLUGINS = tuple(p for p in PLUGINS if hasattr(p, "module_edges"))
# methods an external base never calls back: the constructor ran already
CALLBACK_SKIPPED = frozenset({"__init__", "__new__", "__init_subclass__", "__class_getitem__"})
DESCRIPTOR_METHODS = {"p": "__get__", "s": "__set__", "e": "__delete__"}
# builtins that call a function they are handed while the caller runs (map's and filter's
# when the result is iterated), by the arguments that may hold it: "*" any positional one
SYNCHRONOUS_CALLERS = {"map": "*", "filter": "*", "sorted": "key", "min": "key", "max": "key"}


class RememberedEvaluation:
    """`Program.evaluate` for one file, remembered for expressions whose meaning cannot depend
    on where they stand: their first name is a parameter or comes from an outer scope
    (`self.client.get`, an imported function) — the same call repeats a lot in a file."""

    def __init__(self, program: Program, mod: ModuleFacts) -> None:
        self.program = program
        self.mod = mod
        self._remembered: dict[tuple, Found] = {}
        # (scope, name) → whether the name is a parameter or an outer scope's there
        self._stable_roots: dict[tuple[int, str], bool] = {}

    def __call__(self, mod: ModuleFacts, scope: int, expr: list, pos: int) -> Found:
        evaluate = self.program.evaluate
        root = _root_name(expr)
        if root is None or scope == 0 or mod is not self.mod:
            return evaluate(mod, scope, expr, pos)
        stable = self._stable_roots.get((scope, root))
        if stable is None:
            rows = mod.bindings(scope).get(root)
            stable = not rows or all(r[BINDING_VALUE][0] == "param" for r in rows)
            self._stable_roots[(scope, root)] = stable
        if not stable:
            return evaluate(mod, scope, expr, pos)
        if expr[0] == "n":
            key: tuple = (scope, expr[1])
        elif expr[0] == "a" and expr[1][0] == "n":  # `self.x`: the common shape, no encoding
            key = (scope, expr[1][1], expr[2])
        else:
            key = (scope, marshal.dumps(expr))
        found = self._remembered.get(key)
        if found is None:
            found = self._remembered[key] = evaluate(mod, scope, expr, pos)
        return found


class FileResolver:
    """Resolves one module: `resolve()` gives its `FileResolution`."""

    def __init__(self, program: Program, mod: ModuleFacts) -> None:
        self.program = program
        self.mod = mod
        self.ids = mod.symbol_ids
        self.edges = EdgeSet()
        self.unresolved: list[Unresolved] = []
        # the file's remembered evaluation, shared with its flow rows (a separate object, so
        # that nothing refers back to this one: a resolved file is freed by reference counting,
        # though an index runs with the cycle collector off)
        self.evaluate_ref = RememberedEvaluation(program, mod)
        self.flows = FlowRows(program, mod, self.evaluate_ref)

    def resolve(self) -> FileResolution:
        """Symbols, edges and unresolved calls of the module, and its flow rows."""
        program, mod, memo = self.program, self.mod, self.program.memo
        with memo.recording() as recorded:
            symbols = module_symbols(program.repo, mod)
            over_budget = 0
            with memo.budget(memo.file_budget):
                for ref in mod.facts["refs"]:
                    try:
                        with memo.budget(memo.reference_budget):
                            self._reference(ref)
                        continue
                    except RecursionError:  # generated code beyond any sensible depth
                        reason = "too-deep"
                    except OverBudget:  # its work is past a budget: unknown, never a hang
                        over_budget += 1
                        reason = "budget"
                    text = ref[REF_TEXT] if isinstance(ref[REF_TEXT], str) else "?"
                    source = self.ids[ref[REF_SOURCE]]
                    self._unresolved(source, text, ref[REF_LINE], reason)
            with memo.budget(memo.file_budget):
                try:
                    self.flows.definitions()
                    self.flows.stores()
                except OverBudget:
                    over_budget += 1
            for scope, row in enumerate(mod.scopes):
                if row[SCOPE_KIND] == "class":
                    try:
                        with memo.budget(memo.reference_budget):
                            self._class_edges(scope)
                    except OverBudget:
                        over_budget += 1
            for plugin in MODULE_PLUGINS:
                plugin.module_edges(program, mod, self.edges)
            self._exports()
            imports = self._imports()
            http = http_rows(program, mod)
        deps = recorded.deps
        deps.discard(mod.name)
        resolution = FileResolution(
            mod.path, mod.name, symbols, self.edges.edges(), self.unresolved, deps, imports
        )
        rows = self.flows.rows
        resolution.flows = sorted({marshal.dumps(row): row for row in rows}.values())
        resolution.http = http
        resolution.over_budget = over_budget
        return resolution

    def _unresolved(self, source_id: str, name: str, line: int, reason: str, external="") -> None:
        self.unresolved.append(Unresolved(source_id, name, line, external, reason=reason))

    def _calls(self, source_id: str, target: Definition, line: int, via: str | None) -> None:
        self.edges.add("CALLS", source_id, target.symbol_id, line, via)

    # ------------------------------------------------------------ references
    def _reference(self, ref: list) -> None:
        scope, source, kind, expr, pos, line, text = ref
        source_id = self.ids[source]
        if kind == "c":
            self._call(scope, expr, pos, line, text, source_id)
        elif kind == "a":  # a decorator applied where the `def` stands
            for target, _via in self.program.held.callables(self.mod, scope, expr, pos):
                if isinstance(target, (Function, Class, Instance)):
                    self._call_edges(target, "decorator", source_id, line)
        elif kind == "o":
            self._protocol(scope, expr, pos, text, source_id, line)
        elif kind in ("p", "s", "e"):
            base = self.evaluate_ref(self.mod, scope, expr[1], pos).value
            for target in self._accessors_of(base, kind, expr[2]) if base is not None else ():
                self._calls(source_id, target, line, "property")
        elif kind == "t":
            for name in type_names(expr):
                value, via = self.program.evaluate(self.mod, scope, name, 1 << 62)
                if isinstance(value, Definition):
                    self.edges.add("REFERENCES", source_id, value.symbol_id, line, via)
        elif expr is not None:  # a value the parser keeps no expression of: nothing to bind
            self._use(scope, expr, pos, line, source_id)

    def _use(self, scope: int, expr: list, pos: int, line: int, source_id: str) -> None:
        """A name or attribute used as a value: REFERENCES to the function or class it is;
        reading a property calls its getter (not a use)."""
        self._held_through(scope, expr, source_id, line)
        if expr[0] == "a":  # the receiver once: a property read, or what the attribute holds
            self.flows.handed_on(scope, expr, source_id, line)
            base, base_via = self.evaluate_ref(self.mod, scope, expr[1], pos)
            if base is None:
                return
            getters = self._accessors_of(base, "p", expr[2])
            if getters:
                for getter in getters:
                    self._calls(source_id, getter, line, "property")
                return
            value, via = base.attribute(self.program, base_via, expr[2])
        else:
            value, via = self.evaluate_ref(self.mod, scope, expr, pos)
        if isinstance(value, Definition):
            self.edges.add("REFERENCES", source_id, value.symbol_id, line, via)

    def _call(self, scope: int, expr: list | None, pos: int, line: int, text, source_id) -> None:
        mod, program, flows = self.mod, self.program, self.flows
        if expr is None:
            self._unresolved(source_id, text or "?", line, "unparsed")
            return
        if expr[0] == "n" and expr[1] == "super":
            return
        name = text or render(expr)
        flows.receiver(scope, expr, source_id, line)
        self._held_through(scope, expr, source_id, line)
        value, via = self.evaluate_ref(mod, scope, expr, pos)
        if value is None or isinstance(value, Box) or declares_callable(value):
            targets = program.held.callables(mod, scope, expr, pos, evaluated=value is None)
            made = [self._call_edges(t, v, source_id, line) for t, v in targets]
            if not any(made):
                # a parameter's value is known to the flow stage only (what callers pass),
                # and so are the subclasses whose methods a computed getattr may find:
                # the call is still unresolved here
                flows.computed_getattr(scope, expr, pos, source_id, line)
                if flows.hook(expr, source_id, line):
                    reason = "plugin-hook"
                elif flows.parameter_call(scope, expr, pos, source_id, line):
                    reason = "parameter"
                else:
                    reason = _unknown_callee(expr)
                self._unresolved(source_id, name, line, reason)
            return
        if isinstance(value, Union):  # one of several: each member's call
            if any(isinstance(member, External) for member in value.members):
                # `cb: Command | Callable[..., V]`: any callable too, what callers pass
                flows.parameter_call(scope, expr, pos, source_id, line)
            if not self._call_edges(value, via, source_id, line):
                self._unresolved(source_id, name, line, "not-callable")
            return
        if isinstance(value, Definition):
            flows.arguments(scope, expr, value, pos)
            if self._decorated_call(value, source_id, line):
                return
        if isinstance(value, Lambda):
            self._call_edges(value, via, source_id, line)
            self._lambda_arguments(value, scope, expr, pos, source_id, line)
        elif isinstance(value, Function):
            self._calls(source_id, value, line, via)
        elif isinstance(value, Class):
            self._calls(source_id, value, line, "constructor")
            init = program.classes.method(value, "__init__", instance=False)
            if init is not None:
                self._calls(source_id, init, line, "constructor")
            elif program.classes.has_external_base(value.module, value.scope):
                # an external __init__
                self._external_callbacks(scope, expr, pos, source_id, line, constructed=value)
        elif isinstance(value, Instance):
            if not self._call_edges(value, via, source_id, line):
                self._unresolved(source_id, name, line, "not-callable")
        elif value == TYPING:
            # typed `Callable[...]` (a parameter, an attribute): what it was given
            if flows.parameter_call(scope, expr, pos, source_id, line):
                reason = "parameter"
            else:
                reason = "unknown-value"
            self._unresolved(source_id, name, line, reason)
        elif isinstance(value, External):
            self._external_callbacks(scope, expr, pos, source_id, line)
            self._decorated_receiver(scope, expr, pos, source_id, line)
            self._unresolved(source_id, name, line, "external", external=value.top)
        elif isinstance(value, Builtin):
            self._synchronous_callbacks(expr, pos, scope, source_id, line)
        elif not self._call_edges(value, via, source_id, line):
            self._unresolved(source_id, name, line, "unknown-value")

    def _held_through(self, scope: int, expr: list, source_id: str, line: int) -> None:
        """A use of a module-level object that code outside the repository made
        (`_env_file_option`, made by `click.Option(..., callback=_env_file_callback)`), or a
        call of its method, from a function of the same module: a use of the functions and
        classes it was given (REFERENCES), which it may call (`parsing.facts` "holds"). What a
        function or class of the repository makes of its arguments the graph follows itself."""
        mod = self.mod
        root = expr[1] if expr[0] == "a" else expr
        if scope <= 0 or root[0] != "n":
            return
        found = mod.holds().get(root[1])
        if found is None or not self._module_level_name(scope, root[1]):
            return
        callee, at, held = found
        if callee is None or not isinstance(self.evaluate_ref(mod, 0, callee, at).value, External):
            return
        for held_expr, pos, _line in held:
            value, via = self.evaluate_ref(mod, 0, held_expr, pos)
            if isinstance(value, Definition):
                self.edges.add("REFERENCES", source_id, value.symbol_id, line, via)

    def _module_level_name(self, scope: int, name: str) -> bool:
        """Whether `name` in `scope` is the module's (no enclosing function binds it; a
        class body's names are not seen from its methods)."""
        mod = self.mod
        while scope > 0:
            if mod.scopes[scope][SCOPE_KIND] == "function" and name in mod.bindings(scope):
                return False
            scope = mod.scopes[scope][SCOPE_PARENT]
        return True

    def _decorated_receiver(
        self, scope: int, expr: list, pos: int, source_id: str, line: int
    ) -> None:
        """`run_command.make_context(["--cert", path])`: a method from outside called on what
        a decorator made of a repository function (a click command, a Celery task) runs that
        object, which holds the function and what the decorators attached to it (an option's
        type and callback: `_held_by_decorated` in the parser): a use of the function
        (REFERENCES via `framework`), whose own body may or may not run, and which the
        framework calls with the arguments it derives itself (no call here to judge)."""
        if expr[0] != "a":
            return
        receiver = self.evaluate_ref(self.mod, scope, expr[1], pos).value
        if isinstance(receiver, Function) and receiver.module.decorators(receiver.scope):
            self.edges.add("REFERENCES", source_id, receiver.symbol_id, line, "framework")

    def _lambda_arguments(
        self, value: Lambda, scope: int, expr: list, pos: int, source_id: str, line: int
    ) -> None:
        """`apply = lambda f: f()` then `apply(build)`: the lambda calls what the call passes
        to the parameter its body calls (via `lambda`)."""
        called = {c[1] for c, _pos in marshal.loads(value.calls) if c and c[0] == "param"}
        if called:
            self._call_passed(scope, expr, pos, called.__contains__, "lambda", source_id, line)

    def _synchronous_callbacks(
        self, expr: list, pos: int, scope: int, source_id: str, line: int
    ) -> None:
        """`map(parse, lines)`, `sorted(items, key=rank)`: the builtin calls the function it
        is handed while the caller runs, so the caller calls it (via `callback`; a function
        handed to code that keeps it for later, `atexit.register(f)`, is only referenced)."""
        if expr[0] != "n" or expr[1] not in SYNCHRONOUS_CALLERS:
            return
        slots = SYNCHRONOUS_CALLERS[expr[1]]

        def wanted(slot: int | str) -> bool:
            return isinstance(slot, int) if slots == "*" else slot == slots

        self._call_passed(scope, expr, pos, wanted, "callback", source_id, line)

    def _call_passed(self, scope, expr, pos, wanted, via: str, source_id: str, line: int) -> None:
        """CALLS (via `via`) to the functions and classes a call passes in the argument slots
        `wanted` accepts (a position or a keyword)."""
        for slot, argument in self.mod.arguments(pos, expr):
            if wanted(slot):
                found = self.evaluate_ref(self.mod, scope, argument, pos).value
                if isinstance(found, (Function, Class, Lambda)):
                    self._call_edges(found, via, source_id, line)

    def _decorated_call(self, value: Definition, source_id: str, line: int) -> bool:
        """A call of a decorated name runs the decorator's wrapper (CALLS), which calls the
        function back ("wrapped", the flow stage); the name binds it to the function too
        (model.CALLING_REFERENCE_VIAS), so the function's callers are the code that names
        it, not every caller of a wrapper shared by many functions. False when the name holds
        the definition itself (no decorator, or one that returns its argument)."""
        if not value.module.decorators(value.scope):
            return False
        decorated = self.program.held.decorated_value(value.module, value.scope)
        if decorated == value:
            return False
        if decorated is not None:
            self._call_edges(decorated, "decorator", source_id, line)
        self.edges.add("REFERENCES", source_id, value.symbol_id, line, "decorated")
        return True

    def _call_edges(self, value: Value, via: str | None, source_id: str, line: int) -> bool:
        """The CALLS a call of `value` makes (`Value.called`); False when it makes none."""
        made = value.called(self.program, via)
        for target, edge_via in made:
            self._calls(source_id, target, line, edge_via)
        return bool(made)

    def _external_callbacks(
        self,
        scope: int,
        expr: list,
        pos: int,
        source_id: str,
        line: int,
        constructed: Class | None = None,
    ) -> None:
        """Code outside the repository may call back what a call hands it (via `callback`).
        An instance handed over may be called: REFERENCES to its `__call__` (like a function
        handed over, which is a REFERENCES of its own: the caller does not call it). A method a
        repository class inherits from an external base (`client.get()` on a subclass of an
        external client) runs code that may call the class's own methods, overrides of what
        the base calls (a template method calling `self.open()`): CALLS to those of them the
        base's code can reach. When every external base is a class of the standard library,
        that is what the inherited method may look up on its instance, read from the source
        of the Python that indexes (`standard_method_reach`: `self.assertEqual()` in a
        `unittest.TestCase` may reach the class's `fail`, never its `setUpClass`, which the
        test runner calls), or when that cannot be known each method named like a member of
        the bases (`setUp`, not `test_login`); else, or when the class hands the base names
        of its own to look up (`_keeps_names`), each method the class defines but its tests
        (`test*` methods of a test file: a runner finds them by their names, which no base
        knows). A class whose `__init__` is external (`constructed`) is called back only
        where the reach of that `__init__` is known (`BaseRequestHandler.__init__` calls
        `setup`, `handle`, `finish`)."""
        mod, classes = self.mod, self.program.classes
        for _slot, argument in mod.arguments(pos, expr):
            found = self.evaluate_ref(mod, scope, argument, pos).value
            if isinstance(found, Instance):
                call = classes.method(found, "__call__")
                if call is not None:
                    self.edges.add("REFERENCES", source_id, call.symbol_id, line, "callback")
        receiver: Value | None
        if constructed is not None:
            receiver = Instance(constructed.module, constructed.scope)
            method = "__init__"
        elif expr[0] == "a":
            receiver = self.evaluate_ref(mod, scope, expr[1], pos).value
            method = expr[2]
        else:
            return
        if not isinstance(receiver, Instance):
            return
        key = ("called-back", receiver.module.path, receiver.scope, method, constructed is not None)
        called_back = self.program.memo.cached(
            key, lambda: self._called_back(receiver, method, constructed is not None), []
        )
        for function in called_back:
            self._calls(source_id, function, line, "callback")

    def _called_back(self, receiver: Instance, method: str, constructed: bool) -> list[Function]:
        """The methods of the receiver's class that an external base's `method` may call
        back (see `_external_callbacks`): the same for every call site of that method on an
        instance of that class."""
        info = self.program.classes.info(receiver.module, receiver.scope)
        if info is None or not info.external_bases:
            return []
        overridable = info.external_members  # None: any name the class defines
        reach = None
        if info.standard_bases is not None:
            reach = standard_method_reach(info.standard_bases, method)
        if reach is not None and self._keeps_names(info, reach):
            # the repository's own names where the base looks names up: any of its methods
            overridable = None
        elif reach is not None:
            # what the method may look up on the instance: `__missing__` too, which the base
            # does not define but `UserDict.get` calls
            overridable = reach.looked_up
        elif constructed:
            return []  # what an external constructor calls back is not known: nothing claimed
        called_back = []
        for owner_mod, owner_scope in info.linearization:
            in_tests = owner_mod.is_test
            for name, rows in owner_mod.bindings(owner_scope).items():
                if name in CALLBACK_SKIPPED:
                    continue
                # a name the base only sets on the instance: a property's setter runs
                only_set = overridable is not None and name not in overridable
                if only_set and (reach is None or name not in reach.stored):
                    continue
                if in_tests and name.startswith("test"):
                    continue  # a test: its name is its author's, no base knows it (runners find it)
                for row in rows:
                    binding = row[BINDING_VALUE]
                    if binding[0] != "def":
                        continue
                    if owner_mod.scopes[binding[1]][SCOPE_KIND] != "function":
                        continue
                    function = Function(owner_mod, binding[1])
                    if not only_set or function.is_property():
                        called_back.append(function)
        return called_back

    def _keeps_names(self, info: ClassInfo, reach: Reach) -> bool:
        """Whether the reach took the strings of an attribute of the instance for names the
        base looks up (`reach.state`: `assertEqual` reads `_type_equality_funcs`), and a
        repository class of the order sets that attribute, or calls the function that stores
        its parameter there (`reach.feeds`: `self.addTypeEqualityFunc(Money,
        'assertMoneyEqual')`): then the names may be the repository's own, any of them."""
        if not reach.state:
            return False
        for owner_mod, owner_scope in info.linearization:
            sets, calls = self._attribute_uses(owner_mod, owner_scope)
            if sets & reach.state or calls & reach.feeds:
                return True
        return False

    def _attribute_uses(
        self, mod: ModuleFacts, scope: int
    ) -> tuple[frozenset[str], frozenset[str]]:
        """The names a class binds in its body or sets on `self` in its methods, and the
        attribute names its methods call (`x.name(...)`)."""

        def compute() -> tuple[frozenset[str], frozenset[str]]:
            sets = set(mod.bindings(scope))
            for row in mod.facts["attrs"]:
                method = row[ATTR_SCOPE]
                if mod.scopes[method][SCOPE_PARENT] == scope and (
                    mod.first_param(method) == row[ATTR_OBJECT]
                ):
                    sets.add(row[ATTR_NAME])
            calls = set()
            for ref in mod.facts["refs"]:
                expr = ref[REF_EXPR]
                if (
                    ref[REF_KIND] == "c"
                    and expr is not None
                    and expr[0] == "a"
                    and mod.scopes[ref[REF_SOURCE]][SCOPE_PARENT] == scope
                ):
                    calls.add(expr[2])
            return frozenset(sets), frozenset(calls)

        return self.program.memo.cached(("attribute uses", mod.path, scope), compute)

    # ------------------------------------------------------------ protocols and accessors
    def _protocol(self, scope: int, expr: list, pos: int, dunder: str, source_id, line) -> None:
        """Syntax calling a dunder method of the operand's class: `for` (`__iter__`, then the
        iterator's `__next__`; `__getitem__` without `__iter__`), `with`, `[]`, operators,
        `in`, `len()`…, and a bare `raise Err` (the class is instantiated)."""
        builtin, _, method = dunder.rpartition(":")
        if builtin and self.program.lookup(self.mod, scope, builtin, pos).value != BUILTIN:
            return  # `len` shadowed by something else
        value = self.evaluate_ref(self.mod, scope, expr, pos).value
        if value is None and method != "raise":  # a parameter's: what callers pass decides
            self.flows.protocol_call(scope, expr, pos, method, source_id, line)
        for member in value.alternatives() if value is not None else ():
            self._protocol_call(member, method, source_id, line)

    def _protocol_call(self, value: Value, method: str, source_id: str, line: int) -> None:
        """The dunder `method` (or "raise") syntax runs on `value`, one value (not a union)."""
        if method == "raise":
            if isinstance(value, Class):
                self._call_edges(value, "protocol", source_id, line)
            return
        if not isinstance(value, Instance):
            return
        classes = self.program.classes
        found = classes.member(value.module, value.scope, method)
        if found is None and method == "__iter__":
            found = classes.member(value.module, value.scope, "__getitem__")
        if found is None or not isinstance(found.value, Function):
            return
        target = found.value
        self._calls(source_id, target, line, "protocol")
        if method == "__iter__" and target.name == "__iter__":
            iterator = self.program.returns(target.module, target.scope).value
            if isinstance(iterator, Instance):
                step = classes.method(iterator, "__next__")
                if step is not None:
                    self._calls(source_id, step, line, "protocol")

    def _accessors_of(self, base: Value, kind: str, name: str) -> list[Function]:
        """The functions an attribute read ("p"), assignment ("s") or `del` ("e") of `name`
        on `base` runs: a property's (getter, setter and deleter are one symbol) or a
        descriptor's `__get__`, `__set__`, `__delete__` (a class attribute holding an instance
        of such a class); one per member of a union that has one."""
        found = (self._accessor_of(member, kind, name) for member in base.alternatives())
        return [target for target in found if target is not None]

    def _accessor_of(self, base: Value, kind: str, name: str) -> Function | None:
        if not isinstance(base, Instance):
            return None
        classes = self.program.classes
        found = classes.member(base.module, base.scope, name, instance=False)
        if found is None:
            return None
        value = found.value
        if isinstance(value, Function):
            return value if value.is_property() else None
        if isinstance(value, Instance) and found.via != "annotation":
            return classes.method(value, DESCRIPTOR_METHODS[kind])
        return None

    # ------------------------------------------------------------ classes and the module
    def _class_edges(self, scope: int) -> None:
        """A class's INHERITS edges, its external bases, and the names set on it."""
        mod = self.mod
        info = self.program.classes.info(mod, scope)
        if info is None:
            return
        line = mod.scopes[scope][SCOPE_START]
        for base_mod, base_scope, via, order in info.bases:
            target = base_mod.symbol_ids[base_scope]
            self.edges.add("INHERITS", self.ids[scope], target, line, via, order=order)
        for base, top in info.direct_external:
            if base not in BUILTINS:
                self.unresolved.append(
                    Unresolved(self.ids[scope], base, line, top, "base", "external")
                )
        self._set_names(scope)

    def _set_names(self, scope: int) -> None:
        """A class attribute holding an instance whose class has `__set_name__`: creating the
        class calls it."""
        mod = self.mod
        for rows in mod.bindings(scope).values():
            for row in rows:
                binding = row[BINDING_VALUE]
                if binding[0] != "val" or binding[1] is None or binding[1][0] != "c":
                    continue
                value = self.program.binding_value(mod, scope, row).value
                if not isinstance(value, Instance):
                    continue
                hook = self.program.classes.method(value, "__set_name__")
                if hook is not None:
                    line = mod.scopes[scope][SCOPE_START]
                    self._calls(self.ids[scope], hook, line, "protocol")

    def _exports(self) -> None:
        """A module's public interface as REFERENCES (via export) from the module: the names of
        a static `__all__`; without one, in a package `__init__`, its public from-imports
        (`from .core import Command`: the package re-exports it)."""
        mod = self.mod
        listed = mod.facts.get("all")
        if listed is None and mod.facts.get("all_parts") is not None:
            listed = sorted(self.program.exports(mod))
        exported: list[tuple[str, int]] = []
        if listed:
            line = mod.facts.get("all_line") or 1
            exported = [(name, line) for name in listed]
        elif mod.is_package and listed is None:
            lines: dict[tuple[int, str, str], int] = {}  # (level, module, name) → line
            for scope, line, level, module, names, _typing in mod.facts["imports"]:
                if scope == 0:
                    for name in names:
                        lines.setdefault((level, module, name), line)
            for name, rows in mod.bindings(0).items():
                if name.startswith("_"):
                    continue
                for row in rows:
                    binding = row[BINDING_VALUE]
                    if binding[0] == "from":
                        exported.append((name, lines.get(tuple(binding[1:4]), 1)))
                        break
        for name, line in exported:
            value = self.program.module_member(mod, name).value
            if isinstance(value, Definition):
                self.edges.add("REFERENCES", self.ids[0], value.symbol_id, line, "export")

    def _imports(self) -> list[tuple[str, str, list[str]]]:
        """IMPORTS targets: ("file", path, names) inside the repo, ("package", top, names) outside."""
        mod, program = self.mod, self.program
        found: dict[tuple[str, str], list[str]] = {}
        for _scope, _line, level, module, names, _typing in mod.facts["imports"]:
            target = program.resolve_relative(mod, level, module)
            if target is None:
                continue
            found_mod = program.module(target)
            if found_mod is not None and found_mod.repo != program.repo:
                # a module another repository provides: the link is to its package
                entry = found.setdefault(("package", target.split(".")[0]), [])
                entry.extend(name for name in names if name not in entry)
                continue
            if found_mod is not None:
                entry = found.setdefault(("file", found_mod.path), [])
                for name in names:
                    sub = program.module(f"{target}.{name}") if name != "*" else None
                    if sub is not None:
                        found.setdefault(("file", sub.path), []).append(name)
                    elif name not in entry:
                        entry.append(name)
                continue
            if level == 0 or not target:
                top = target.split(".")[0]
                if top and top not in STDLIB and not program.module(top):
                    entry = found.setdefault(("package", top), [])
                    for name in names:
                        if name not in entry:
                            entry.append(name)
            # a relative import that does not resolve: broken import, nothing to link
        found.pop(("file", mod.path), None)
        return [(kind, target, names) for (kind, target), names in found.items()]


def type_names(annotation: list | None) -> Iterable[list]:
    """Every name or dotted name inside an annotation (for REFERENCES)."""
    if annotation is None:
        return
    kind = annotation[0]
    if kind in ("n", "a"):
        yield annotation
    elif kind == "u":
        for alternative in annotation[1]:
            yield from type_names(alternative)
    elif kind == "g":
        yield annotation[1]
        for arg in annotation[2]:
            yield from type_names(arg)


def _unknown_callee(expr: list) -> str:
    """Why a callee no value was found for is unknown: a name computed at run time
    (`getattr(obj, name)(...)`), or a value of unknown type."""
    if expr[0] == "c" and expr[1] == ["n", "getattr"]:
        return "computed-name"
    return "unknown-value"


def _root_name(expr: list | None) -> str | None:
    """The name an expression starts from (`self` in `self.a.b()`), or None."""
    while expr is not None and expr[0] in ("a", "c", "i"):
        expr = expr[1]
    return expr[1] if expr is not None and expr[0] == "n" else None
