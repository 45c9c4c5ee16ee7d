"""What one definition of a standard-library class does with its instance (`Uses`), read from
its syntax tree by `_Uses`: the names it looks up or sets on the instance, the definitions
it runs next (`super().name`, `Base.name(self)`), the strings of the instance's state it takes
for names, and whether it returns the instance. An object of the standard library that keeps
the instance (`_AssertRaisesContext(expected, self)`) is read too (`holder_uses`). Runs in the
computing process only (`standard_process.py`)."""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import inspect
import sys
import types
from dataclasses import dataclass, field
from functools import cache

from cartograph.resolve.standard_answers import is_standard_module
from cartograph.resolve.standard_source import (
    CONTAINER_READS,
    Strings,
    Unknown,
    class_source,
    constant_names,
    definition_of,
    state_names,
)


@dataclass
class Uses:
    """What one definition reaches. A value a cache keeps is never changed: `add` merges one
    into a definition's own."""

    names: set[str] = field(default_factory=set)  # looked up on the instance
    stored: set[str] = field(default_factory=set)  # set or deleted on it (and not looked up)
    supers: set[str] = field(default_factory=set)  # `super().name`: the definition after this
    # `Base.name(self)`: ("module:Base", name), the first definition at or after `Base`; and
    # `super(Base, self).name`: the first after `Base`
    from_class: set[tuple[str, str]] = field(default_factory=set)
    after_class: set[tuple[str, str]] = field(default_factory=set)
    # attributes of the instance whose strings were taken for names, and the functions whose
    # parameters are stored there (`Strings`)
    state: set[str] = field(default_factory=set)
    feeds: set[str] = field(default_factory=set)
    # it may return the instance, or an object holding it, to its caller
    returns: bool = False

    def add(self, other: Uses) -> None:
        self.names |= other.names
        self.stored |= other.stored
        self.supers |= other.supers
        self.from_class |= other.from_class
        self.after_class |= other.after_class
        self.state |= other.state
        self.feeds |= other.feeds
        self.returns = self.returns or other.returns


def class_key(owner: type) -> str:
    return f"{owner.__module__}:{owner.__qualname__}"


TRUTH = ("__bool__", "__len__")
ITERATION = ("__iter__", "__getitem__", "__len__", "__length_hint__")
TEXT = ("__str__", "__repr__", "__format__")
# the special methods a builtin called with the instance as its first argument looks up on
# it (a builtin missing here that gets the instance: unknown)
PROTOCOL_BUILTINS: dict[str, tuple[str, ...]] = {
    "len": ("__len__",),
    "iter": ITERATION,
    "next": ("__next__",),
    "repr": ("__repr__",),
    "ascii": ("__repr__",),
    "str": TEXT,
    "format": TEXT,
    "print": TEXT,
    "hash": ("__hash__",),
    "bool": TRUTH,
    "reversed": ("__reversed__", "__len__", "__getitem__"),
    "abs": ("__abs__",),
    "list": ITERATION,
    "tuple": ITERATION,
    "set": ITERATION,
    "frozenset": ITERATION,
    "sorted": ITERATION,
    "enumerate": ITERATION,
    "any": ITERATION,
    "all": ITERATION,
    "dict": (*ITERATION, "keys"),
    "isinstance": ("__class__",),
    "issubclass": (),
    "type": (),
    "id": (),
    "callable": (),
    "vars": ("__dict__",),
    "dir": ("__dir__", "__dict__", "__class__"),
    "super": (),
}
BINARY = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.MatMult: "matmul",
    ast.Div: "truediv",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.Pow: "pow",
    ast.LShift: "lshift",
    ast.RShift: "rshift",
    ast.BitOr: "or",
    ast.BitXor: "xor",
    ast.BitAnd: "and",
}
UNARY = {ast.USub: ("__neg__",), ast.UAdd: ("__pos__",), ast.Invert: ("__invert__",)}
COMPARE = {
    ast.Eq: ("__eq__", "__ne__"),
    ast.NotEq: ("__ne__", "__eq__"),
    ast.Lt: ("__lt__", "__gt__"),
    ast.Gt: ("__gt__", "__lt__"),
    ast.LtE: ("__le__", "__ge__"),
    ast.GtE: ("__ge__", "__le__"),
}
NAME_FUNCTIONS = {"getattr": "__getattribute__", "hasattr": "__getattribute__"}
NAME_FUNCTIONS |= {"setattr": "__setattr__", "delattr": "__delattr__"}
ESCAPES = frozenset({"eval", "exec", "locals"})


class _Uses:
    """One definition's reach: its instance (its first parameter, `first`) is followed
    through the syntax tree; any use not understood raises `Unknown`."""

    def __init__(self, first: str, node: ast.AST, globals_: dict, sources: tuple[str, ...]):
        self.first = first
        self.node = node
        self.globals = globals_
        self.sources = sources
        self.found = Uses()
        self.parents: dict[ast.AST, ast.AST] = {}
        self.params: set[str] = set()
        self.assigned: dict[str, list[ast.AST]] = {}
        self.owner = ""  # the class the definition is written in

    def _mangled(self, name: str) -> str:
        """A private name as Python stores it: `__x` in class `_K` is `_K__x`."""
        owner = self.owner.lstrip("_")
        if owner and name.startswith("__") and not name.endswith("__"):
            return f"_{owner}{name}"
        return name

    def run(self) -> Uses | None:
        try:
            for parent in ast.walk(self.node):
                for child in ast.iter_child_nodes(parent):
                    self.parents[child] = parent
                if isinstance(parent, ast.arg):
                    self.params.add(parent.arg)
                self._note_binding(parent)
            for node in ast.walk(self.node):
                self._visit(node)
        except Unknown:
            return None
        return self.found

    def _visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.Name) and node.id == self.first:
            self._instance_use(node)
        elif isinstance(node, ast.Call):
            self._call(node)
        elif isinstance(node, ast.Attribute):
            self._super(node)

    # ------------------------------------------------------------ the instance
    def _is_instance(self, node: ast.AST) -> bool:
        """`self`, `type(self)`, `self.__class__` (its class: lookups on it are its own)."""
        if isinstance(node, ast.Name):
            return node.id == self.first
        if isinstance(node, ast.Call):
            return (
                isinstance(node.func, ast.Name)
                and node.func.id == "type"
                and len(node.args) == 1
                and self._is_instance(node.args[0])
            )
        if isinstance(node, ast.Attribute):
            return node.attr == "__class__" and self._is_instance(node.value)
        return False

    def _instance_use(self, name: ast.Name | ast.Attribute) -> None:
        if not isinstance(name.ctx, ast.Load):
            raise Unknown  # the name rebound: what it holds is not followed
        node: ast.AST = name
        parent = self.parents[node]
        # `type(self)`, `self.__class__`: the class, used as the instance is
        while True:
            if (
                isinstance(parent, ast.Call)
                and isinstance(parent.func, ast.Name)
                and parent.func.id == "type"
                and parent.args == [node]
                and not parent.keywords
            ):
                node, parent = parent, self.parents[parent]
            elif (
                isinstance(parent, ast.Attribute)
                and parent.value is node
                and parent.attr == "__class__"
            ):
                self.found.names.update(("__class__", "__getattribute__", "__getattr__"))
                node, parent = parent, self.parents[parent]
            else:
                break
        if isinstance(parent, ast.Attribute) and parent.value is node:
            self._attribute(self._mangled(parent.attr), not isinstance(parent.ctx, ast.Load))
            self.found.names.update(_access_methods(parent.ctx))
            return
        if isinstance(parent, ast.Call):
            self._argument_use(node, parent)
            return
        self._protocol_use(node, parent)

    def _argument_use(self, node: ast.AST, call: ast.Call) -> None:
        func = call.func
        if func is node:
            raise Unknown  # `cls(...)`, `type(self)(...)`: a new instance, not followed
        first = bool(call.args) and call.args[0] is node
        if isinstance(func, ast.Name):
            if func.id in NAME_FUNCTIONS and first:
                self.found.names.add(NAME_FUNCTIONS[func.id])
                if len(call.args) < 2:
                    raise Unknown
                self._named(call.args[1], func.id in ("setattr", "delattr"))
                return
            if func.id in ("isinstance", "issubclass", "super") and node in call.args:
                self.found.names.update(PROTOCOL_BUILTINS[func.id])
                return
            if func.id in PROTOCOL_BUILTINS and first and not self._shadowed(func.id):
                self.found.names.update(PROTOCOL_BUILTINS[func.id])
                return
        elif isinstance(func, ast.Attribute) and first and self._is_instance(func.value):
            # `self.__class__.__missing__(self, key)`: found as a lookup already
            return
        elif isinstance(func, ast.Attribute) and first:
            # `Base.method(self, ...)`, `object.__setattr__(self, name, value)`: a method of
            # a class of the order, called on the instance
            owner = self._global(func.value)
            if isinstance(owner, type) and (
                owner is object or owner.__module__.split(".")[0] in sys.stdlib_module_names
            ):
                self.found.from_class.add((class_key(owner), self._mangled(func.attr)))
                if func.attr in ("__getattribute__", "__setattr__", "__delattr__"):
                    if len(call.args) < 2:
                        raise Unknown
                    self._named(call.args[1], func.attr != "__getattribute__")
                return
        self._handed(node, call)

    def _handed(self, node: ast.AST, call: ast.Call) -> None:
        """The instance passed to a call that is not one of the above: followed into a
        standard class that keeps it in an attribute (`_AssertRaisesContext(expected,
        self)`: `holder_uses`), else handed to code that is not read."""
        holder = self._global(call.func)
        if not isinstance(holder, type) or class_source(holder) is None:
            raise Unknown
        slot = _slot(node, call)
        kept = holder_uses(holder, slot, self.sources) if slot is not None else None
        if kept is None:
            raise Unknown
        uses, held = kept
        self.found.add(uses)
        self._holder_goes(call, held)

    def _holder_goes(self, call: ast.Call, held: frozenset[str]) -> None:
        """Where the object made by `call`, which holds the instance in its attributes
        `held`, goes: only its methods called (their results discarded or returned),
        returned, a `with` statement, a local name used so: else unknown."""
        parent = self.parents[call]
        if isinstance(parent, ast.Assign | ast.AnnAssign) and parent.value is call:
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            if len(targets) != 1 or not isinstance(targets[0], ast.Name):
                raise Unknown
            name = targets[0].id
            for node in ast.walk(self.node):
                if (
                    isinstance(node, ast.Name)
                    and node.id == name
                    and isinstance(node.ctx, ast.Load)
                ):
                    self._holder_value(node, held)
            return
        self._holder_value(call, held)

    def _holder_value(self, node: ast.AST, held: frozenset[str]) -> None:
        parent = self.parents[node]
        if isinstance(parent, ast.Expr) or (
            isinstance(parent, ast.withitem)
            and parent.context_expr is node
            and parent.optional_vars is None
        ):
            return
        if isinstance(parent, ast.Return):
            self.found.returns = True
            return
        if isinstance(parent, ast.Attribute) and parent.value is node:
            if parent.attr in held or parent.attr == "__dict__":
                raise Unknown
            if not isinstance(parent.ctx, ast.Load):
                return
            call = self.parents[parent]
            if isinstance(call, ast.Call) and call.func is parent:  # a method of the holder
                after = self.parents[call]
                if isinstance(after, ast.Expr):
                    return
                if isinstance(after, ast.Return):
                    self.found.returns = True
                    return
        raise Unknown

    def _protocol_use(self, node: ast.AST, parent: ast.AST) -> None:
        """Syntax that calls special methods of the instance."""
        if isinstance(parent, ast.Subscript) and parent.value is node:
            kind = {ast.Load: "__getitem__", ast.Store: "__setitem__", ast.Del: "__delitem__"}
            self.found.names.add(kind[type(parent.ctx)])
            return
        if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and parent.test is node:
            self.found.names.update(TRUTH)
            return
        if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
            self.found.names.update(TRUTH)
            return
        if isinstance(parent, ast.BoolOp):
            # `self or x`, `a and self` may give the instance on: where it goes next matters
            self.found.names.update(TRUTH)
            self._instance_use_of(parent)
            return
        if isinstance(parent, ast.UnaryOp):
            self.found.names.update(UNARY[type(parent.op)])
            return
        if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
            self.found.names.update(ITERATION)
            return
        if isinstance(parent, ast.AsyncFor) and parent.iter is node:
            self.found.names.update(("__aiter__", "__anext__"))
            return
        if isinstance(parent, ast.withitem) and parent.context_expr is node:
            if parent.optional_vars is not None:
                raise Unknown  # `with self as x`: x is whatever __enter__ returns
            self.found.names.update(("__enter__", "__exit__", "__aenter__", "__aexit__"))
            return
        if isinstance(parent, ast.Await):
            self.found.names.add("__await__")
            return
        if isinstance(parent, ast.FormattedValue) and parent.value is node:
            self.found.names.update(TEXT)
            return
        if isinstance(parent, ast.Compare):
            self._compare(node, parent)
            return
        if isinstance(parent, ast.BinOp):
            other = parent.right if parent.left is node else parent.left
            if not _literal(other):
                raise Unknown  # the other operand's code gets the instance
            op = BINARY[type(parent.op)]
            self.found.names.update((f"__{op}__", f"__r{op}__", f"__i{op}__"))
            if isinstance(parent.op, ast.Mod):
                self.found.names.update(TEXT)  # `"%s" % self`
            return
        if isinstance(parent, ast.AugAssign) and parent.target is node:
            raise Unknown  # `self += x` rebinds the name
        if isinstance(parent, ast.Expr):
            return  # a bare `self`: evaluated, not used
        self._stored(node, parent)

    def _stored(self, node: ast.AST, parent: ast.AST) -> None:
        """The instance returned (to the repository's code when the method is the one it
        calls: `Uses.returns`), else stored, put in a container, passed on: unknown."""
        if isinstance(parent, ast.Return):
            self.found.returns = True
            return
        raise Unknown

    def _instance_use_of(self, expression: ast.BoolOp) -> None:
        """The instance may be what `expression` gives (`a or self`): only its truth may be
        used (a test, `not`, another such operation), else it is passed on."""
        parent = self.parents[expression]
        if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and (
            parent.test is expression
        ):
            return
        if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
            return
        if isinstance(parent, ast.BoolOp):
            self._instance_use_of(parent)
            return
        raise Unknown

    def _compare(self, node: ast.AST, parent: ast.Compare) -> None:
        operands = [parent.left, *parent.comparators]
        at = next(i for i, o in enumerate(operands) if o is node)
        # (the other operand, the operator, whether the instance is its right operand)
        sides = []
        if at > 0:
            sides.append((operands[at - 1], parent.ops[at - 1], True))
        if at < len(parent.ops):
            sides.append((operands[at + 1], parent.ops[at], False))
        for other, op, right in sides:
            if isinstance(op, (ast.Is, ast.IsNot)):
                continue
            if isinstance(op, (ast.In, ast.NotIn)):
                if not right:
                    raise Unknown  # `self in x`: x's __contains__ gets the instance
                self.found.names.update(("__contains__", *ITERATION))
            elif _literal(other):
                self.found.names.update(COMPARE[type(op)])
            else:
                raise Unknown  # the other operand's comparison gets the instance

    # ------------------------------------------------------------ calls
    def _call(self, call: ast.Call) -> None:
        func = call.func
        if isinstance(func, ast.Name) and func.id in ESCAPES and not self._shadowed(func.id):
            raise Unknown
        if isinstance(func, ast.Name) and func.id == "vars" and not call.args:
            raise Unknown  # `vars()`: the locals, the instance among them

    def _super(self, node: ast.Attribute) -> None:
        """`super().name`, `super(Class, self).name`: the next definition of name."""
        inner = node.value
        if not (
            isinstance(inner, ast.Call)
            and isinstance(inner.func, ast.Name)
            and inner.func.id == "super"
        ):
            return
        self.found.names.update(_access_methods(node.ctx))
        name = self._mangled(node.attr)
        if not inner.args:
            self.found.supers.add(name)
            return
        after = self._global(inner.args[0])
        if not isinstance(after, type):
            raise Unknown
        self.found.after_class.add((class_key(after), name))

    def _global(self, node: ast.AST) -> object:
        """The module-level object a name or dotted name stands for (None: not one)."""
        if isinstance(node, ast.Name):
            if node.id in self.params:
                return None
            if node.id in self.assigned:
                return self._imported(node.id)
            return self.globals.get(node.id, getattr(builtins, node.id, None))
        if isinstance(node, ast.Attribute):
            owner = self._global(node.value)
            return getattr(owner, node.attr, None) if owner is not None else None
        return None

    def _imported(self, name: str) -> object:
        """What a local `from module import name` of the standard library gives."""
        values = self.assigned.get(name, [])
        if len(values) != 1 or not isinstance(values[0], ast.ImportFrom):
            return None
        statement = values[0]
        alias = next((a for a in statement.names if (a.asname or a.name) == name), None)
        package = str(self.globals.get("__package__") or "")
        if alias is None or (statement.level > 0 and not package):
            return None
        module = statement.module or ""
        if statement.level:
            base = package.rsplit(".", statement.level - 1)[0] if statement.level > 1 else package
            module = f"{base}.{module}" if module else base
        top = module.split(".")[0]
        if not is_standard_module(top):
            return None
        try:  # what the function imports when it runs (`unittest._log` in `assertLogs`)
            return getattr(importlib.import_module(module), alias.name, None)
        except Exception:
            return None

    def _shadowed(self, name: str) -> bool:
        return name in self.assigned or name in self.params or name in self.globals

    # ------------------------------------------------------------ computed names
    def _named(self, expression: ast.AST, stored: bool) -> None:
        """The member names `expression`, a name given to getattr & co., may hold."""
        strings = self._names(expression, set())
        self.found.state |= strings.state
        self.found.feeds |= strings.feeds
        for name in strings.names:
            self._attribute(name, stored)

    def _attribute(self, name: str, stored: bool) -> None:
        """A name looked up on the instance, or set or deleted there: that runs a property's
        setter or deleter, never a method of that name (`self.default = default` in
        `JSONEncoder.__init__`)."""
        (self.found.stored if stored else self.found.names).add(name)

    def _names(self, expression: ast.AST, seen: set[str]) -> Strings:
        if isinstance(expression, ast.Constant):
            if isinstance(expression.value, str):
                return Strings({expression.value})
            raise Unknown
        if isinstance(expression, ast.Name):
            if expression.id in seen:
                return Strings()
            seen.add(expression.id)
            if expression.id in self.params:
                raise Unknown  # the caller's: any name
            values = self.assigned.get(expression.id)
            if values is None:
                return Strings(constant_names(self.globals.get(expression.id)))
            return self._union(values, seen)
        if isinstance(expression, ast.Attribute) and self._is_instance(expression.value):
            return self._state(expression.attr)
        if isinstance(expression, ast.Subscript):
            return self._names(expression.value, seen)  # an element of the container
        if isinstance(expression, ast.Call):
            func = expression.func
            if isinstance(func, ast.Attribute) and func.attr in CONTAINER_READS:
                return self._names(func.value, seen)
            if (
                isinstance(func, ast.Name)
                and func.id == "getattr"
                and expression.args
                and self._is_instance(expression.args[0])
            ):
                # what the named attributes hold: names when the module stored names there
                found = Strings()
                for name in self._names(expression.args[1], seen).names:
                    found.add(self._state(name))
                return found
            raise Unknown
        if isinstance(expression, ast.IfExp):
            return self._union([expression.body, expression.orelse], seen)
        if isinstance(expression, ast.BoolOp):
            return self._union(expression.values, seen)
        if isinstance(expression, (ast.Tuple, ast.List, ast.Set)):
            return self._union(expression.elts, seen)
        raise Unknown  # composed, computed: any name

    def _union(self, expressions: list, seen: set[str]) -> Strings:
        found = Strings()
        for expression in expressions:
            found.add(self._names(expression, seen))
        return found

    def _state(self, attribute: str) -> Strings:
        found = state_names(self.sources, attribute)
        if found is None:
            raise Unknown
        return found.copy()

    def _note_binding(self, node: ast.AST) -> None:
        """The values a local name is bound to; the element of a `for` is its container."""
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._bind(target, node.value)
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            self._bind(node.target, node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            self._bind(node.target, node.iter)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            self.assigned.setdefault(node.target.id, []).append(node)  # composed: unknown
        elif isinstance(node, (ast.withitem,)) and node.optional_vars is not None:
            self._bind(node.optional_vars, node)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            self.assigned.setdefault(node.name, []).append(node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                self.assigned.setdefault(alias.asname or alias.name, []).append(node)
        elif (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node is not self.node
        ):
            self.assigned.setdefault(node.name, []).append(node)

    def _bind(self, target: ast.AST, value: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self.assigned.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                # unpacked: an element of what is unpacked
                self._bind(element.value if isinstance(element, ast.Starred) else element, value)


def _access_methods(ctx: ast.expr_context) -> tuple[str, ...]:
    if isinstance(ctx, ast.Store):
        return ("__setattr__",)
    if isinstance(ctx, ast.Del):
        return ("__delattr__",)
    return ("__getattribute__", "__getattr__")


def _literal(node: ast.AST) -> bool:
    return isinstance(node, (ast.Constant, ast.JoinedStr))


# ---------------------------------------------------------------- objects holding the instance
def _slot(node: ast.AST, call: ast.Call) -> int | str | None:
    """Where `node` is passed in `call`: its position, its keyword; None when not known."""
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            return None
        if argument is node:
            return index
    return next((k.arg for k in call.keywords if k.value is node), None)


def _parameter(function: object, slot: int | str, bound: bool) -> str:
    """The parameter of `function` an argument at `slot` binds (`bound`: a method called on
    an object, whose first parameter is that object)."""
    if not isinstance(function, types.FunctionType) or hasattr(function, "__wrapped__"):
        raise Unknown
    code = function.__code__
    names = code.co_varnames
    if isinstance(slot, int):
        index = slot + bound
        if index < code.co_argcount:
            return names[index]
        raise Unknown  # into *args, or an error
    if slot in names[code.co_posonlyargcount : code.co_argcount + code.co_kwonlyargcount]:
        return slot
    raise Unknown  # into **kwargs, or an error


def _definition_after(order: tuple[type, ...], name: str, start: int) -> object:
    for owner in order[start:]:
        if name in owner.__dict__:
            return owner.__dict__[name]
    raise Unknown


@cache
def holder_uses(
    holder: type, slot: int | str, sources: tuple[str, ...]
) -> tuple[Uses, frozenset[str]] | None:
    """What constructing the standard class `holder` with the instance at `slot` looks up on
    the instance, and the attributes of the new object that hold it: its `__init__` may
    look it up and store it (`self.test_case = test_case`, through `Base.__init__(self,
    test_case)` and `super().__init__(...)` too); then any method of the holder may look
    it up through those attributes (`self.test_case._formatMessage(...)`), and no method
    may hand the holder over (it may return it, if no method uses what another returns).
    None when not so: the instance is handed to code that is not read. The holder itself
    goes where its maker's code takes it (`_Uses._holder_goes`)."""
    try:
        order = holder.__mro__
        for owner in order:
            if owner is not object and (class_source(owner) is None or "__new__" in owner.__dict__):
                raise Unknown  # C code, or a constructor of its own
        init = _definition_after(order, "__init__", 0)
        found, held = _param_uses(order, init, _parameter(init, slot, True), sources, ())
        if not held:
            raise Unknown  # not kept: whatever the rest does with it is not followed
        returns = results = False
        for owner in order[:-1]:
            for value in vars(owner).values():
                for function in _functions_of(value):
                    uses = _HolderUses(function, held, order, sources)
                    found.add(uses.scan())
                    returns = returns or uses.returns
                    results = results or uses.results_used
        if returns and results:
            raise Unknown  # a method may use the holder another one returns
        return found, frozenset(held)
    except Unknown:
        return None


def _functions_of(value: object) -> list[types.FunctionType]:
    """The Python functions a class attribute runs (a property's accessors too)."""
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        accessors = [value.fget, value.fset, value.fdel]
        if not all(f is None or isinstance(f, types.FunctionType) for f in accessors):
            raise Unknown
        return [f for f in accessors if isinstance(f, types.FunctionType)]
    if isinstance(value, functools.cached_property):
        value = value.func
    if isinstance(value, types.FunctionType):
        return [value]
    if hasattr(type(value), "__get__") and not isinstance(
        value, (types.GetSetDescriptorType, types.MemberDescriptorType)
    ):
        raise Unknown  # a descriptor whose code is not read
    return []


def _param_uses(
    order: tuple[type, ...],
    function: object,
    param: str,
    sources: tuple[str, ...],
    visiting: tuple,
) -> tuple[Uses, set[str]]:
    """What a holder's `__init__` (or a method it calls with the parameter) does with the
    parameter `param`, the instance: its lookups, and the holder's attributes it is stored
    in."""
    if (function, param) in visiting or not isinstance(function, types.FunctionType):
        raise Unknown
    node = definition_of(function)
    if node is None or function.__code__.co_argcount == 0:
        raise Unknown
    uses = _ParamUses(param, node, function.__globals__, sources)
    uses.holder = function.__code__.co_varnames[0]
    uses.order = order
    uses.visiting = (*visiting, (function, param))
    owner = next((k for k in order if function in vars(k).values()), None)
    if owner is None:
        raise Unknown
    uses.owner_class = owner
    uses.owner = owner.__name__
    if uses.run() is None:
        raise Unknown
    return uses.found, uses.held


class _ParamUses(_Uses):
    """A holder's `__init__` reading its parameter `first`, the instance."""

    holder = ""
    order: tuple[type, ...] = ()
    visiting: tuple = ()
    owner_class: type = object

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.held: set[str] = set()

    def _super(self, node: ast.Attribute) -> None:
        return  # `super()` here is the holder's

    def _handed(self, node: ast.AST, call: ast.Call) -> None:
        func = call.func
        slot = _slot(node, call)
        if isinstance(func, ast.Attribute) and isinstance(slot, int):
            inner = func.value
            if call.args and isinstance(call.args[0], ast.Name) and call.args[0].id == self.holder:
                base = self._global(inner)  # `Base.__init__(self, test_case)`
                if isinstance(base, type) and base in self.order:
                    target = _definition_after(self.order, func.attr, self.order.index(base))
                    self._follow(target, _parameter(target, slot, False))
                    return
            elif (
                isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Name)
                and inner.func.id == "super"
                and not inner.args
            ):  # `super().__init__(test_case)`
                start = self.order.index(self.owner_class) + 1
                target = _definition_after(self.order, func.attr, start)
                self._follow(target, _parameter(target, slot, True))
                return
        super()._handed(node, call)

    def _follow(self, function: object, param: str) -> None:
        found, held = _param_uses(self.order, function, param, self.sources, self.visiting)
        self.found.add(found)
        self.held |= held

    def _stored(self, node: ast.AST, parent: ast.AST) -> None:
        """`self.test_case = test_case`: kept in the holder's attribute."""
        if (
            isinstance(parent, ast.Assign)
            and parent.value is node
            and all(
                isinstance(t, ast.Attribute)
                and isinstance(t.value, ast.Name)
                and t.value.id == self.holder
                for t in parent.targets
            )
        ):
            self.held.update(t.attr for t in parent.targets if isinstance(t, ast.Attribute))
            return
        raise Unknown


class _HolderUses(_Uses):
    """A method of a holder: the instance is what its attributes `held` give
    (`self.test_case`); the holder (its first parameter) may be used, not handed over."""

    def __init__(
        self,
        function: types.FunctionType,
        held: set[str] | frozenset[str],
        order: tuple[type, ...],
        sources: tuple[str, ...],
    ) -> None:
        super().__init__("", ast.Pass(), function.__globals__, sources)
        self.function = function
        self.held = held
        self.order = order
        self.holder = ""
        self.returns = False  # it may return the holder or the instance
        self.results_used = False  # it uses what a method of the holder returns

    def scan(self) -> Uses:
        code = self.function.__code__
        if code.co_argcount == 0:
            if code.co_flags & inspect.CO_VARARGS:
                raise Unknown
            return Uses()
        node = definition_of(self.function)
        if node is None:
            raise Unknown
        self.node = node
        self.holder = code.co_varnames[0]
        if self.run() is None:
            raise Unknown
        return self.found

    def _held_attribute(self, node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == self.holder
            and node.attr in self.held
        )

    def _is_instance(self, node: ast.AST) -> bool:
        return self._held_attribute(node) or super()._is_instance(node)

    def _visit(self, node: ast.AST) -> None:
        if self._held_attribute(node):
            assert isinstance(node, ast.Attribute)
            if isinstance(node.ctx, ast.Load):
                self._instance_use(node)
        elif isinstance(node, ast.Name) and node.id == self.holder:
            self._holder_use(node)
        elif isinstance(node, ast.Call):
            self._call(node)

    def _stored(self, node: ast.AST, parent: ast.AST) -> None:
        if isinstance(parent, ast.Return):
            self.returns = True
            return
        raise Unknown

    def _holder_use(self, node: ast.Name) -> None:
        if not isinstance(node.ctx, ast.Load):
            return  # `self = None`: the name rebound
        parent = self.parents[node]
        if isinstance(parent, ast.Attribute) and parent.value is node:
            if parent.attr in self.held:
                return  # the instance: `_visit` follows it
            if parent.attr == "__dict__":
                raise Unknown
            call = self.parents.get(parent)
            if isinstance(call, ast.Call) and call.func is parent:
                after = self.parents[call]
                if isinstance(after, ast.Return):
                    self.returns = True
                elif not isinstance(after, ast.Expr):
                    self.results_used = True
                return
            if isinstance(parent.ctx, ast.Load) and any(
                _functions_of(k.__dict__[parent.attr])
                for k in self.order
                if parent.attr in k.__dict__
            ):
                raise Unknown  # a bound method of the holder, handed on
            return
        if isinstance(parent, ast.Return):
            self.returns = True
            return
        if isinstance(parent, ast.Expr) or (
            isinstance(parent, ast.withitem)
            and parent.context_expr is node
            and parent.optional_vars is None
        ):
            return
        if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and (parent.test is node):
            return
        if isinstance(parent, ast.Call):
            func = parent.func
            if isinstance(func, ast.Name) and func.id in ("isinstance", "type", "id"):
                return
            if (
                isinstance(func, ast.Attribute)
                and parent.args
                and parent.args[0] is node
                and self._global(func.value) in self.order
            ):
                return  # `Base.method(self, ...)`: the holder's own method
        raise Unknown  # the holder handed over
