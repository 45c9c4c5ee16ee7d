"""Classes of Python's standard library seen from the repository (the `callback` rule).

A repository class on a standard-library base (`unittest.TestCase`, `logging.Handler`,
`socketserver.BaseRequestHandler`) inherits methods whose code runs outside the repository and
may call back what the class overrides: `handler.handle(record)` runs `Handler.handle`, which
calls `self.emit(record)`, the subclass's `emit`. The Python that indexes has those classes and,
for the pure-Python ones, their source: `standard_class_members` names what a base has (what
an override can be called back as), `standard_method_reach` what one inherited method may
look up on its instance, read from its source (`assertEqual` reaches `fail`, never
`setUpClass`, which the test runner calls).
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import inspect
import linecache
import sys
import textwrap
import tokenize
import types
from dataclasses import dataclass, field
from functools import cache

from cartograph.resolve.mro import c3

# standard modules whose import does something (opens a browser, prints, starts a GUI)
IMPORT_SIDE_EFFECTS = frozenset(
    {"antigravity", "this", "turtle", "turtledemo", "tkinter", "idlelib", "__hello__", "__phello__"}
)


@cache
def standard_class(top: str, written: str) -> type | None:
    """The class of Python's standard library (of the Python that indexes) written `written`
    in a module that has it from the standard module `top`: `unittest.TestCase` after `import
    unittest`, `TestCase` after `from unittest import TestCase`, `mock.Mock` after `from
    unittest import mock`. None when it is not one (a module outside the standard library, an
    alias, a subscripted or computed base)."""
    if top not in sys.stdlib_module_names or top in IMPORT_SIDE_EFFECTS:
        return None
    parts = written.split("[")[0].split(".")
    for path in (parts[1:], parts):
        found = _standard_attribute(top, path) if path else None
        if isinstance(found, type):
            return found
    return None


@cache
def standard_class_members(top: str, written: str) -> frozenset[str] | None:
    """The attribute names of the standard class `standard_class(top, written)` (None when it
    is not one)."""
    found = standard_class(top, written)
    return None if found is None else frozenset(dir(found))


def _standard_attribute(top: str, path: list[str]) -> object:
    try:
        value: object = importlib.import_module(top)
        for name in path:
            if not hasattr(value, name) and isinstance(value, type(sys)):
                value = importlib.import_module(f"{value.__name__}.{name}")
            else:
                value = getattr(value, name)
        return value
    except Exception:  # not a class this Python can find
        return None


# ---------------------------------------------------------------- what a method reaches
@cache
def standard_method_reach(bases: tuple[tuple[str, str], ...], method: str) -> frozenset[str] | None:
    """The names that calling `method` on an instance of a class whose bases outside the
    repository are the standard classes `bases` ((top, written) pairs, see `standard_class`:
    those of the class and of its repository ancestors) may look up on that instance,
    directly or through the methods it reaches: the names a repository method can be called
    back as. None when that cannot be known (then any member of the bases can be).

    The definitions read are those the lookups find: a name in the bases' classes in the
    order Python looks them up (C3 of the bases), `super().name` from the definition after
    the one being read, `Base.name(self)` from `Base`. The answer is their fixed point:
    `assertEqual` reaches `_getAssertEqualityFunc`, which looks up `assertDictEqual` (and
    the other equality functions), which reaches `fail`. A repository class that overrides a
    reached name is a target itself; what its code calls is the repository's to resolve. A
    definition reaches (`_Uses`):
    - the names it looks up on the instance: `self.x` (read, written or deleted: a property
      runs; a bound method read and handed over counts, `_start_new_thread(self._bootstrap,
      ())` reaches `_bootstrap`), `cls.x`, `type(self).x`, `self.__class__.x`, `super().x`,
      `Base.x(self)`, `getattr`/`hasattr`/`setattr`/`delattr(self, "x")`, and
      `__getattribute__`/`__getattr__`, `__setattr__`, `__delattr__` with them; a name the
      base does not define counts (`UserDict.__getitem__` looks up `__missing__`);
    - the special methods that syntax or a builtin looks up on the instance: `self[k]`
      (`__getitem__`), `if self` (`__bool__`, `__len__`), `for x in self`, `x in self`,
      `with self`, `-self`, `self == 1`, `f"{self}"`, `len(self)`, `str(self)` …
      (`PROTOCOL_BUILTINS`);
    - for `getattr(self, name)` (and the three others) with a computed `name`: the strings
      `name` can hold, followed through the function's local names, elements of containers,
      `getattr` results and module constants to string literals, to the instance's state
      (`self._type_equality_funcs.get(type(first))`: the strings the classes' modules may
      store in that attribute, `_state_names`: `addTypeEqualityFunc(self, typeobj,
      function)` stores its parameter, which `TestCase.__init__` passes as
      `'assertDictEqual'`, `'assertListEqual'` …), or to a parameter of the function (the
      caller's: any name, as for `TestCase(methodName)`), or to a computation (`'do_' +
      self.command`: any name);
    - the instance handed to a standard class that keeps it (`_AssertRaisesContext(expected,
      self)` in `assertRaises`, `_holder_uses`): what that class's `__init__` looks up on it
      and what any method of the class looks up through the attributes it is kept in
      (`self.test_case.failureException`), when the holder is only used by its own methods
      and by the code that made it, which calls its methods, returns it or uses it in a
      `with` statement.
    The strings kept in the instance's state are those the standard library's own code puts
    there, as far as this function can see. The reach names the attributes it took strings
    from (`<state>_type_equality_funcs`) and the functions whose parameters store them
    (`<feed>addTypeEqualityFunc`), so that the resolver can check the repository: a class of
    the order that sets such an attribute or calls such a function
    (`self.addTypeEqualityFunc(Money, 'assertMoneyEqual')`) may have put any name there, and
    then any of its methods can be called back. The gap left: a string handed over by code
    outside the classes of the order (a helper function calling
    `case.addTypeEqualityFunc(...)`), or stored through an alias (`_state_names`).

    The instance (or such a holder) returned is fine from the method the repository calls:
    it goes back to the repository's code, which the resolver reads (`RETURNS_MARK`).

    Unknown (None), and the whole reach with it: the instance handed to other code
    (`Foo(self)` for a `Foo` that does not keep it so, `result.startTest(self)`,
    `_limbo[self] = self`, `x.attr = self`, an operator whose other operand is not a
    literal), returned to the bases' own code, a new instance of the class made (`cls()`,
    `type(self)(...)`: its methods are not followed), `eval`, `exec`, `locals()`, a
    definition without Python source (C code, but `object`'s, whose lookups are known:
    `OBJECT_CALLS`; a decorated method's wrapper, `@contextmanager def subTest`), a
    descriptor of another kind, `method` itself not defined by the bases (an instance
    attribute, what `Mock.__getattr__` makes)."""
    classes = []
    for top, written in bases:
        found = standard_class(top, written)
        if found is None:
            return None
        classes.append(found)
    try:
        return _reach(list(dict.fromkeys(classes)), method)
    except Exception:  # code this reading does not expect (a future syntax): not known
        return None


def _reach(classes: list[type], method: str) -> frozenset[str] | None:
    # the classes in the order the instance's class looks them up (the repository classes
    # between them left out: an override among them is a target of its own)
    order: list[type] = c3(object, classes, [c.__mro__ for c in classes])[1:]
    if object not in order:
        order.append(object)
    at = {f"{k.__module__}:{k.__qualname__}": i for i, k in enumerate(order)}
    sources = tuple(dict.fromkeys(f for f in map(_class_source, order) if f is not None))

    def definition(name: str, start: int) -> type | None:
        return next((k for k in order[start:] if name in k.__dict__), None)

    if definition(method, 0) is None:
        return None  # not a method of the bases (an instance attribute, `__getattr__`'s)
    reach: set[str] = set()
    done: set[tuple[type, str]] = set()
    todo = [(method, 0)]
    entry = True
    while todo:
        name, start = todo.pop()
        reach.add(name)
        if name.startswith(SET_MARK):  # a setter of the bases runs, a method does not
            name = name[len(SET_MARK) :]
            found = definition(name, 0)
            if found is None or not _data_descriptor(found.__dict__[name]):
                continue
        owner = definition(name, start)
        if owner is None:
            continue
        uses = _member_uses(owner, name, sources)
        if uses is None or (RETURNS_MARK in uses and not entry):
            return None  # (the instance returned to the base's own code, not the caller's)
        entry = False
        if (owner, name) in done:
            continue
        done.add((owner, name))
        for used in uses:
            if used.startswith(SUPER_MARK):  # `super().name`: the next definition
                todo.append((used[len(SUPER_MARK) :], order.index(owner) + 1))
            elif used.startswith((FROM_MARK, AFTER_MARK)):
                after = used.startswith(AFTER_MARK)
                mark = AFTER_MARK if after else FROM_MARK
                key, _, used_name = used[len(mark) :].rpartition(":")
                if key not in at:
                    return None  # another class's method run on the instance
                todo.append((used_name, at[key] + after))
            else:
                todo.append((used, 0))
    return frozenset(reach)


def _data_descriptor(value: object) -> bool:
    kind = type(value)
    return hasattr(kind, "__set__") or hasattr(kind, "__delete__")


def _class_source(owner: type) -> str | None:
    """The source file of the module whose code defines a class (`collections.abc.Mapping`'s
    is `_collections_abc.py`, whatever its `__module__` says); None for a class of C."""
    for value in vars(owner).values():
        value = getattr(value, "__func__", getattr(value, "fget", value))
        if isinstance(value, types.FunctionType):
            return _function_source(value)
    module = sys.modules.get(owner.__module__)
    filename = getattr(module, "__file__", None)
    if isinstance(filename, str) and filename.endswith(".py"):
        _SOURCE_GLOBALS.setdefault(filename, vars(module))
        return filename
    return None


def _function_source(function: types.FunctionType) -> str | None:
    """The file of a function's code; a frozen standard module's (`<frozen
    _collections_abc>`) is its module's `__file__`. Its globals are remembered for it."""
    filename = function.__code__.co_filename
    if filename.startswith("<frozen ") and filename.endswith(">"):
        module = sys.modules.get(filename[len("<frozen ") : -1])
        filename = getattr(module, "__file__", None) or ""
    if not filename.endswith(".py"):
        return None
    _SOURCE_GLOBALS.setdefault(filename, function.__globals__)
    return filename


# a source file's module globals (the module that ran it)
_SOURCE_GLOBALS: dict[str, dict] = {}


# what `object`'s own (C) methods look up on the instance
OBJECT_CALLS: dict[str, frozenset[str]] = {
    "__str__": frozenset({"__repr__"}),
    "__format__": frozenset({"__str__"}),
    "__ne__": frozenset({"__eq__"}),
    "__reduce_ex__": frozenset(
        {"__reduce__", "__getstate__", "__getnewargs_ex__", "__getnewargs__"}
    ),
    "__reduce__": frozenset({"__getstate__", "__getnewargs_ex__", "__getnewargs__"}),
    "__getstate__": frozenset({"__dict__"}),
    "__dir__": frozenset({"__dict__", "__class__"}),
}
C_CALLABLES = (
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    types.BuiltinFunctionType,
    types.ClassMethodDescriptorType,
    types.MethodWrapperType,
)
# what a definition reaches, besides the names it looks up on the instance (each found from
# the start of the order): `super().name` ("<super>name": the definition after the one
# read), `Base.name(self)` ("<from>module:Base:name": the first at or after Base) and
# `super(Base, self).name` ("<aftr>module:Base:name": the first after Base)
SUPER_MARK = "<super>"
FROM_MARK = "<from>"
AFTER_MARK = "<aftr>"
# in a definition's uses: it may return the instance, or an object holding it, to its
# caller; the repository's code when the definition is the method it calls, else unknown
RETURNS_MARK = "<returns>"
# in a reach: "<set>name", a name set or deleted on the instance (and not looked up): a
# repository property of that name runs, a method of that name does not
SET_MARK = "<set>"
# in a reach: "<state>name", an attribute of the instance whose strings the reach took as
# names (`_state_names`), and "<feed>name", a function whose parameter is stored there
# (`addTypeEqualityFunc`): a repository class that sets the one or calls the other may put
# any name there
STATE_MARK = "<state>"
FEED_MARK = "<feed>"


@cache
def _member_uses(owner: type, name: str, sources: tuple[str, ...]) -> frozenset[str] | None:
    """What the definition of `name` in the class `owner` itself reaches (see
    `standard_method_reach`; `sources`: the files of the classes of the order, whose code
    may keep names in the instance's state); None when unknown."""
    value = owner.__dict__[name]
    if isinstance(value, staticmethod):
        return frozenset()  # never given the instance (handing it over is the caller's)
    if isinstance(value, classmethod):
        return _function_uses(value.__func__, sources)
    if isinstance(value, property):
        found: set[str] = set()
        for accessor in (value.fget, value.fset, value.fdel):
            uses = _function_uses(accessor, sources) if accessor is not None else frozenset()
            if uses is None:
                return None
            found |= uses
        return frozenset(found)
    if isinstance(value, functools.cached_property):
        return _function_uses(value.func, sources)
    if isinstance(value, types.FunctionType):
        return _function_uses(value, sources)
    if isinstance(value, C_CALLABLES):
        return OBJECT_CALLS.get(name, frozenset()) if owner is object else None
    if isinstance(value, (types.GetSetDescriptorType, types.MemberDescriptorType)):
        return frozenset()  # a slot or a C attribute: no code of the class runs
    if hasattr(type(value), "__get__"):
        return None  # a descriptor whose code is not read here
    return frozenset()  # data: a constant, a class, a callable that is not bound


@cache
def _function_uses(function: object, sources: tuple[str, ...]) -> frozenset[str] | None:
    if not isinstance(function, types.FunctionType) or hasattr(function, "__wrapped__"):
        return None  # C code, or a wrapper (inspect would show the source it wraps)
    code = function.__code__
    if code.co_argcount == 0:
        # no positional parameter: the instance, if given, is in *args
        return None if code.co_flags & inspect.CO_VARARGS else frozenset()
    node = _definition(function)
    if node is None:
        return None
    uses = _Uses(code.co_varnames[0], node, function.__globals__, sources)
    parts = function.__qualname__.split(".")
    if len(parts) > 1 and parts[-2] != "<locals>":
        uses.owner = parts[-2]  # `self.__x` in class `K` is `self._K__x`
    return uses.run()


def _definition(function: types.FunctionType) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The syntax tree of a function's `def`, read from its file (inspect finds none for a
    frozen standard module's, `_collections_abc`'s)."""
    filename = _function_source(function)
    if filename is None:
        return None
    lines = linecache.getlines(filename)
    start = function.__code__.co_firstlineno - 1
    if not 0 <= start < len(lines):
        return None
    try:
        block = inspect.getblock(lines[start:])
        tree = ast.parse(textwrap.dedent("".join(block)))
    except (SyntaxError, IndentationError, tokenize.TokenError):
        return None
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    return node if node.name == function.__name__ else None


@cache
def _source_tree(filename: str) -> ast.Module | None:
    try:
        return ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        return None


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
# methods of a container that give its elements (or keys)
CONTAINER_READS = frozenset({"get", "pop", "setdefault", "items", "values", "keys", "copy"})


class _Unknown(Exception):
    """The reach of the definition being read cannot be known."""


class _Uses:
    """One definition's reach: its instance (its first parameter, `first`) is followed
    through the syntax tree; any use not understood raises `_Unknown`."""

    def __init__(self, first: str, node: ast.AST, globals_: dict, sources: tuple[str, ...]):
        self.first = first
        self.node = node
        self.globals = globals_
        self.sources = sources
        self.found: set[str] = set()
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

    def run(self) -> frozenset[str] | None:
        try:
            for parent in ast.walk(self.node):
                for child in ast.iter_child_nodes(parent):
                    self.parents[child] = parent
                if isinstance(parent, ast.arg):
                    self.params.add(parent.arg)
                self._note_binding(parent)
            for node in ast.walk(self.node):
                self._visit(node)
        except _Unknown:
            return None
        return frozenset(self.found)

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
            raise _Unknown  # the name rebound: what it holds is not followed
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
                self.found.update(("__class__", "__getattribute__", "__getattr__"))
                node, parent = parent, self.parents[parent]
            else:
                break
        if isinstance(parent, ast.Attribute) and parent.value is node:
            self._attribute(self._mangled(parent.attr), not isinstance(parent.ctx, ast.Load))
            self.found.update(_access_methods(parent.ctx))
            return
        if isinstance(parent, ast.Call):
            self._argument_use(node, parent)
            return
        self._protocol_use(node, parent)

    def _argument_use(self, node: ast.AST, call: ast.Call) -> None:
        func = call.func
        if func is node:
            raise _Unknown  # `cls(...)`, `type(self)(...)`: a new instance, not followed
        first = bool(call.args) and call.args[0] is node
        if isinstance(func, ast.Name):
            if func.id in NAME_FUNCTIONS and first:
                self.found.add(NAME_FUNCTIONS[func.id])
                if len(call.args) < 2:
                    raise _Unknown
                self._named(call.args[1], func.id in ("setattr", "delattr"))
                return
            if func.id in ("isinstance", "issubclass", "super") and node in call.args:
                self.found.update(PROTOCOL_BUILTINS[func.id])
                return
            if func.id in PROTOCOL_BUILTINS and first and not self._shadowed(func.id):
                self.found.update(PROTOCOL_BUILTINS[func.id])
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
                self.found.add(
                    f"{FROM_MARK}{owner.__module__}:{owner.__qualname__}:{self._mangled(func.attr)}"
                )
                if func.attr in ("__getattribute__", "__setattr__", "__delattr__"):
                    if len(call.args) < 2:
                        raise _Unknown
                    self._named(call.args[1], func.attr != "__getattribute__")
                return
        self._handed(node, call)

    def _handed(self, node: ast.AST, call: ast.Call) -> None:
        """The instance passed to a call that is not one of the above: followed into a
        standard class that keeps it in an attribute (`_AssertRaisesContext(expected,
        self)`: `_holder_uses`), else handed to code that is not read."""
        holder = self._global(call.func)
        if not isinstance(holder, type) or _class_source(holder) is None:
            raise _Unknown
        slot = _slot(node, call)
        kept = _holder_uses(holder, slot, self.sources) if slot is not None else None
        if kept is None:
            raise _Unknown
        uses, held = kept
        self.found |= uses
        self._holder_goes(call, held)

    def _holder_goes(self, call: ast.Call, held: frozenset[str]) -> None:
        """Where the object made by `call`, which holds the instance in its attributes
        `held`, goes: only its methods called (their results discarded or returned),
        returned, a `with` statement, a local name used so: else unknown."""
        parent = self.parents[call]
        if isinstance(parent, ast.Assign | ast.AnnAssign) and parent.value is call:
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            if len(targets) != 1 or not isinstance(targets[0], ast.Name):
                raise _Unknown
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
            self.found.add(RETURNS_MARK)
            return
        if isinstance(parent, ast.Attribute) and parent.value is node:
            if parent.attr in held or parent.attr == "__dict__":
                raise _Unknown
            if not isinstance(parent.ctx, ast.Load):
                return
            call = self.parents[parent]
            if isinstance(call, ast.Call) and call.func is parent:  # a method of the holder
                after = self.parents[call]
                if isinstance(after, ast.Expr):
                    return
                if isinstance(after, ast.Return):
                    self.found.add(RETURNS_MARK)
                    return
        raise _Unknown

    def _protocol_use(self, node: ast.AST, parent: ast.AST) -> None:
        """Syntax that calls special methods of the instance."""
        if isinstance(parent, ast.Subscript) and parent.value is node:
            kind = {ast.Load: "__getitem__", ast.Store: "__setitem__", ast.Del: "__delitem__"}
            self.found.add(kind[type(parent.ctx)])
            return
        if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and parent.test is node:
            self.found.update(TRUTH)
            return
        if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
            self.found.update(TRUTH)
            return
        if isinstance(parent, ast.BoolOp):
            # `self or x`, `a and self` may give the instance on: where it goes next matters
            self.found.update(TRUTH)
            self._instance_use_of(parent)
            return
        if isinstance(parent, ast.UnaryOp):
            self.found.update(UNARY[type(parent.op)])
            return
        if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
            self.found.update(ITERATION)
            return
        if isinstance(parent, ast.AsyncFor) and parent.iter is node:
            self.found.update(("__aiter__", "__anext__"))
            return
        if isinstance(parent, ast.withitem) and parent.context_expr is node:
            if parent.optional_vars is not None:
                raise _Unknown  # `with self as x`: x is whatever __enter__ returns
            self.found.update(("__enter__", "__exit__", "__aenter__", "__aexit__"))
            return
        if isinstance(parent, ast.Await):
            self.found.add("__await__")
            return
        if isinstance(parent, ast.FormattedValue) and parent.value is node:
            self.found.update(TEXT)
            return
        if isinstance(parent, ast.Compare):
            self._compare(node, parent)
            return
        if isinstance(parent, ast.BinOp):
            other = parent.right if parent.left is node else parent.left
            if not _literal(other):
                raise _Unknown  # the other operand's code gets the instance
            op = BINARY[type(parent.op)]
            self.found.update((f"__{op}__", f"__r{op}__", f"__i{op}__"))
            if isinstance(parent.op, ast.Mod):
                self.found.update(TEXT)  # `"%s" % self`
            return
        if isinstance(parent, ast.AugAssign) and parent.target is node:
            raise _Unknown  # `self += x` rebinds the name
        if isinstance(parent, ast.Expr):
            return  # a bare `self`: evaluated, not used
        self._stored(node, parent)

    def _stored(self, node: ast.AST, parent: ast.AST) -> None:
        """The instance returned (to the repository's code when the method is the one it
        calls: `RETURNS_MARK`), else stored, put in a container, passed on: unknown."""
        if isinstance(parent, ast.Return):
            self.found.add(RETURNS_MARK)
            return
        raise _Unknown

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
        raise _Unknown

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
                    raise _Unknown  # `self in x`: x's __contains__ gets the instance
                self.found.update(("__contains__", *ITERATION))
            elif _literal(other):
                self.found.update(COMPARE[type(op)])
            else:
                raise _Unknown  # the other operand's comparison gets the instance

    # ------------------------------------------------------------ calls
    def _call(self, call: ast.Call) -> None:
        func = call.func
        if isinstance(func, ast.Name) and func.id in ESCAPES and not self._shadowed(func.id):
            raise _Unknown
        if isinstance(func, ast.Name) and func.id == "vars" and not call.args:
            raise _Unknown  # `vars()`: the locals, the instance among them

    def _super(self, node: ast.Attribute) -> None:
        """`super().name`, `super(Class, self).name`: the next definition of name."""
        inner = node.value
        if not (
            isinstance(inner, ast.Call)
            and isinstance(inner.func, ast.Name)
            and inner.func.id == "super"
        ):
            return
        self.found.update(_access_methods(node.ctx))
        name = self._mangled(node.attr)
        if not inner.args:
            self.found.add(f"{SUPER_MARK}{name}")
            return
        after = self._global(inner.args[0])
        if not isinstance(after, type):
            raise _Unknown
        self.found.add(f"{AFTER_MARK}{after.__module__}:{after.__qualname__}:{name}")

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
        if top not in sys.stdlib_module_names or top in IMPORT_SIDE_EFFECTS:
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
        for name in self._names(expression, set()):
            if name.startswith((STATE_MARK, FEED_MARK)):
                self.found.add(name)
            else:
                self._attribute(name, stored)

    def _attribute(self, name: str, stored: bool) -> None:
        """A name looked up on the instance, or set or deleted there: that runs a property's
        setter or deleter, never a method of that name (`self.default = default` in
        `JSONEncoder.__init__`)."""
        self.found.add(f"{SET_MARK}{name}" if stored else name)

    def _names(self, expression: ast.AST, seen: set[str]) -> set[str]:
        if isinstance(expression, ast.Constant):
            if isinstance(expression.value, str):
                return {expression.value}
            raise _Unknown
        if isinstance(expression, ast.Name):
            if expression.id in seen:
                return set()
            seen.add(expression.id)
            if expression.id in self.params:
                raise _Unknown  # the caller's: any name
            values = self.assigned.get(expression.id)
            if values is None:
                return _constant_names(self.globals.get(expression.id))
            found: set[str] = set()
            for value in values:
                found |= self._names(value, seen)
            return found
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
                found = set()
                for name in self._names(expression.args[1], seen):
                    if not name.startswith((STATE_MARK, FEED_MARK)):
                        found |= self._state(name)
                return found
            raise _Unknown
        if isinstance(expression, ast.IfExp):
            return self._names(expression.body, seen) | self._names(expression.orelse, seen)
        if isinstance(expression, ast.BoolOp):
            found = set()
            for value in expression.values:
                found |= self._names(value, seen)
            return found
        if isinstance(expression, (ast.Tuple, ast.List, ast.Set)):
            found = set()
            for element in expression.elts:
                found |= self._names(element, seen)
            return found
        raise _Unknown  # composed, computed: any name

    def _state(self, attribute: str) -> set[str]:
        found = _state_names(self.sources, attribute)
        if found is None:
            raise _Unknown
        return set(found)

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


def _constant_names(value: object) -> set[str]:
    """The strings a module-level value holds (a string, a container of them)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {v for v in (*value, *value.values()) if isinstance(v, str)}
    if isinstance(value, (tuple, list, set, frozenset)):
        return {v for v in value if isinstance(v, str)}
    return set()


# ---------------------------------------------------------------- names kept in state
@cache
def _state_names(sources: tuple[str, ...], attribute: str) -> frozenset[str] | None:
    """The strings the code of the files `sources` may keep in an instance's attribute `attribute` (or in
    its elements), for `getattr(self, self.attribute[...])`: what it assigns to `x.attribute`,
    `x.attribute[k]`, `setattr(x, "attribute", v)`, hands to `x.attribute.<method>(...)`, and
    a class body's `attribute = ...` (any `x`: more strings, never fewer). A parameter stored
    there gives the arguments the modules' calls of its function pass, and its default:
    `addTypeEqualityFunc(self, typeobj, function)` stores `function`, and `TestCase.__init__`
    calls `self.addTypeEqualityFunc(dict, 'assertDictEqual')`. An element of another
    attribute gives that attribute's strings; a module constant, the strings it holds; an
    empty container, a number or a function, none. None when one of them is computed
    (composed, returned by a call, unpacked from `*args`): any name. What a repository passes
    to such a method is not seen (the one assumption of `standard_method_reach`), nor a
    container of strings filled through an alias (`names = self.attribute;
    names.append(...)`)."""
    indexes = []
    for filename in sources:
        index = _source_index(filename)
        if index is None:
            return None
        indexes.append(index)
    try:
        return frozenset(_StateNames(indexes).of(attribute))
    except _Unknown:
        return None


@dataclass(eq=False)
class _Function:
    node: ast.FunctionDef | ast.AsyncFunctionDef | None  # None: a class body
    globals: dict
    positional: list[str] = field(default_factory=list)
    keyword_only: set[str] = field(default_factory=set)
    varargs: set[str] = field(default_factory=set)
    defaults: dict[str, ast.AST] = field(default_factory=dict)
    assigned: dict[str, list[ast.AST]] = field(default_factory=dict)
    bound: bool = False  # a method called as `x.name(...)`: its first parameter is x


@dataclass
class _ModuleIndex:
    # attribute name → (stored value, the function it is stored in); "*": setattr(x, name, v)
    stores: dict[str, list[tuple[ast.AST, _Function]]] = field(default_factory=dict)
    # function name → (call, the function it is made in)
    calls: dict[str, list[tuple[ast.Call, _Function]]] = field(default_factory=dict)
    functions: dict[str, list[_Function]] = field(default_factory=dict)


@cache
def _source_index(filename: str) -> _ModuleIndex | None:
    tree = _source_tree(filename)
    if tree is None or filename not in _SOURCE_GLOBALS:
        return None
    index = _ModuleIndex()
    _index_scope(tree.body, _Function(None, _SOURCE_GLOBALS[filename]), index, in_class=False)
    return index


def _index_scope(body: list[ast.stmt], scope: _Function, index: _ModuleIndex, in_class: bool):
    """Record the stores, calls and functions of one scope's statements (nested scopes get
    their own `_Function`)."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.extend(node.decorator_list)
            stack.extend(d for d in (*node.args.defaults, *node.args.kw_defaults) if d)
            function = _function_of(node, scope.globals, in_class)
            index.functions.setdefault(node.name, []).append(function)
            _index_scope(node.body, function, index, in_class=False)
            continue
        if isinstance(node, ast.ClassDef):
            stack.extend(node.bases)
            stack.extend(node.decorator_list)
            body_scope = _Function(None, scope.globals)
            for statement in node.body:
                if isinstance(statement, ast.Assign):
                    for target in statement.targets:
                        if isinstance(target, ast.Name):
                            index.stores.setdefault(target.id, []).append(
                                (statement.value, body_scope)
                            )
            _index_scope(node.body, body_scope, index, in_class=True)
            continue
        if isinstance(node, ast.Lambda):
            stack.append(node.body)  # its parameters are not followed: calls in it are kept
            continue
        _index_node(node, scope, index)
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _function_of(node, globals_: dict, in_class: bool) -> _Function:
    args = node.args
    function = _Function(node, globals_)
    function.positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    function.keyword_only = {a.arg for a in args.kwonlyargs}
    function.varargs = {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    with_default = function.positional[len(function.positional) - len(args.defaults) :]
    function.defaults.update(zip(with_default, args.defaults, strict=True))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if default is not None:
            function.defaults[arg.arg] = default
    decorators = {d.id for d in node.decorator_list if isinstance(d, ast.Name)}
    function.bound = in_class and "staticmethod" not in decorators
    return function


def _index_node(node: ast.AST, scope: _Function, index: _ModuleIndex) -> None:
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value: ast.AST | None = node if isinstance(node, ast.AugAssign) else node.value
        if value is None:
            return
        for target in targets:
            _bind_local(scope, target, value)
            stored = target
            while isinstance(stored, ast.Subscript):
                stored = stored.value
            if isinstance(stored, ast.Attribute):
                index.stores.setdefault(stored.attr, []).append((value, scope))
    elif isinstance(node, ast.NamedExpr):
        _bind_local(scope, node.target, node.value)
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        _bind_local(scope, node.target, node.iter)
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        _bind_local(scope, node.optional_vars, node)
    elif isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name is not None:
            index.calls.setdefault(name, []).append((node, scope))
        if isinstance(func, ast.Attribute):
            stored = func.value
            while isinstance(stored, ast.Subscript):
                stored = stored.value
            if isinstance(stored, ast.Attribute) and func.attr not in NOT_ADDING:
                # `x.attribute.append(v)`, `x.attribute.update(d)` (any method but those
                # known to add nothing)
                for argument in (*node.args, *(k.value for k in node.keywords)):
                    index.stores.setdefault(stored.attr, []).append((argument, scope))
        elif name == "setattr" and len(node.args) == 3:
            named = node.args[1]
            key = named.value if isinstance(named, ast.Constant) else "*"
            index.stores.setdefault(str(key), []).append((node.args[2], scope))


def _bind_local(scope: _Function, target: ast.AST, value: ast.AST) -> None:
    if isinstance(target, ast.Name):
        scope.assigned.setdefault(target.id, []).append(value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _bind_local(
                scope, element.value if isinstance(element, ast.Starred) else element, value
            )


NOT_ADDING = CONTAINER_READS | {"popitem", "remove", "discard", "clear", "index", "count"}
NOT_ADDING |= {"sort", "reverse", "__getitem__", "__contains__", "__len__", "__iter__"}
NOT_ADDING |= {"startswith", "endswith", "split", "join", "format", "strip", "lower", "upper"}
EMPTY_CONTAINERS = frozenset({"dict", "list", "set", "tuple", "frozenset", "OrderedDict"})
EMPTY_CONTAINERS |= {"defaultdict", "deque", "ChainMap", "object"}


class _StateNames:
    def __init__(self, indexes: list[_ModuleIndex]) -> None:
        self.indexes = indexes
        self.seen: set[tuple] = set()

    def of(self, attribute: str) -> set[str]:
        if ("attr", attribute) in self.seen:
            return set()
        self.seen.add(("attr", attribute))
        found: set[str] = {f"{STATE_MARK}{attribute}"}
        for index in self.indexes:
            for value, scope in (*index.stores.get(attribute, ()), *index.stores.get("*", ())):
                found |= self.feed(value, scope)
        return found

    def feed(self, value: ast.AST, scope: _Function) -> set[str]:
        if isinstance(value, ast.Constant):
            return {value.value} if isinstance(value.value, str) else set()
        if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
            return self._union(value.elts, scope)
        if isinstance(value, ast.Dict):
            return self._union([k for k in value.keys if k is not None] + value.values, scope)
        if isinstance(value, (ast.Lambda, ast.Compare)):
            return set()  # a function, a bool
        if isinstance(value, ast.Name):
            return self._name(value.id, scope)
        if isinstance(value, ast.Attribute):
            owner = _dotted(value.value, scope.globals)
            if owner is not None:
                return _constant_names(getattr(owner, value.attr, None))
            return self.of(value.attr)
        if isinstance(value, ast.Subscript):
            return self.feed(value.value, scope)
        if isinstance(value, ast.IfExp):
            return self.feed(value.body, scope) | self.feed(value.orelse, scope)
        if isinstance(value, ast.BoolOp):
            return self._union(value.values, scope)
        if isinstance(value, ast.Call):
            func = value.func
            if isinstance(func, ast.Attribute) and func.attr in CONTAINER_READS:
                return self.feed(func.value, scope)
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in EMPTY_CONTAINERS and not value.args and not value.keywords:
                return set()
        raise _Unknown  # computed: any name

    def _union(self, values: list, scope: _Function) -> set[str]:
        found: set[str] = set()
        for value in values:
            found |= self.feed(value, scope)
        return found

    def _name(self, name: str, scope: _Function) -> set[str]:
        key = ("name", id(scope), name)
        if key in self.seen:
            return set()
        self.seen.add(key)
        if name in scope.varargs:
            raise _Unknown
        if name in scope.positional or name in scope.keyword_only:
            return self._parameter(scope, name)
        if name in scope.assigned:
            return self._union(scope.assigned[name], scope)
        return _constant_names(scope.globals.get(name, getattr(builtins, name, None)))

    def _parameter(self, scope: _Function, name: str) -> set[str]:
        """What the modules' calls of the function pass for its parameter `name`."""
        assert scope.node is not None
        found: set[str] = {f"{FEED_MARK}{scope.node.name}"}
        if name in scope.defaults:
            found |= self.feed(scope.defaults[name], scope)
        at = scope.positional.index(name) if name in scope.positional else None
        for index in self.indexes:
            for call, caller in index.calls.get(scope.node.name, ()):
                if any(isinstance(a, ast.Starred) for a in call.args) or any(
                    k.arg is None for k in call.keywords
                ):
                    raise _Unknown  # `f(*args)`: any argument
                if at is not None:
                    shift = 1 if scope.bound and isinstance(call.func, ast.Attribute) else 0
                    if 0 <= at - shift < len(call.args):
                        found |= self.feed(call.args[at - shift], caller)
                for keyword in call.keywords:
                    if keyword.arg == name:
                        found |= self.feed(keyword.value, caller)
        return found


def _dotted(node: ast.AST, globals_: dict) -> object:
    """The module-level object a name or dotted name stands for (None: not one)."""
    if isinstance(node, ast.Name):
        return globals_.get(node.id)
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value, globals_)
        return getattr(owner, node.attr, None) if owner is not None else None
    return None


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
        raise _Unknown
    code = function.__code__
    names = code.co_varnames
    if isinstance(slot, int):
        index = slot + bound
        if index < code.co_argcount:
            return names[index]
        raise _Unknown  # into *args, or an error
    if slot in names[code.co_posonlyargcount : code.co_argcount + code.co_kwonlyargcount]:
        return slot
    raise _Unknown  # into **kwargs, or an error


def _definition_after(order: tuple[type, ...], name: str, start: int) -> object:
    for owner in order[start:]:
        if name in owner.__dict__:
            return owner.__dict__[name]
    raise _Unknown


@cache
def _holder_uses(
    holder: type, slot: int | str, sources: tuple[str, ...]
) -> tuple[frozenset[str], frozenset[str]] | None:
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
            if owner is not object and (
                _class_source(owner) is None or "__new__" in owner.__dict__
            ):
                raise _Unknown  # C code, or a constructor of its own
        init = _definition_after(order, "__init__", 0)
        found, held = _param_uses(order, init, _parameter(init, slot, True), sources, ())
        if not held:
            raise _Unknown  # not kept: whatever the rest does with it is not followed
        returns = results = False
        for owner in order[:-1]:
            for value in vars(owner).values():
                for function in _functions_of(value):
                    uses = _HolderUses(function, held, order, sources)
                    found |= uses.scan()
                    returns = returns or uses.returns
                    results = results or uses.results_used
        if returns and results:
            raise _Unknown  # a method may use the holder another one returns
        return frozenset(found), frozenset(held)
    except _Unknown:
        return None


def _functions_of(value: object) -> list[types.FunctionType]:
    """The Python functions a class attribute runs (a property's accessors too)."""
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        accessors = [value.fget, value.fset, value.fdel]
        if not all(f is None or isinstance(f, types.FunctionType) for f in accessors):
            raise _Unknown
        return [f for f in accessors if isinstance(f, types.FunctionType)]
    if isinstance(value, functools.cached_property):
        value = value.func
    if isinstance(value, types.FunctionType):
        return [value]
    if hasattr(type(value), "__get__") and not isinstance(
        value, (types.GetSetDescriptorType, types.MemberDescriptorType)
    ):
        raise _Unknown  # a descriptor whose code is not read
    return []


def _param_uses(
    order: tuple[type, ...],
    function: object,
    param: str,
    sources: tuple[str, ...],
    visiting: tuple,
) -> tuple[set[str], set[str]]:
    """What a holder's `__init__` (or a method it calls with the parameter) does with the
    parameter `param`, the instance: its lookups, and the holder's attributes it is stored
    in."""
    if (function, param) in visiting or not isinstance(function, types.FunctionType):
        raise _Unknown
    node = _definition(function)
    if node is None or function.__code__.co_argcount == 0:
        raise _Unknown
    uses = _ParamUses(param, node, function.__globals__, sources)
    uses.holder = function.__code__.co_varnames[0]
    uses.order = order
    uses.visiting = (*visiting, (function, param))
    owner = next((k for k in order if function in vars(k).values()), None)
    if owner is None:
        raise _Unknown
    uses.owner_class = owner
    uses.owner = owner.__name__
    if uses.run() is None:
        raise _Unknown
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
        self.found |= found
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
        raise _Unknown


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

    def scan(self) -> set[str]:
        code = self.function.__code__
        if code.co_argcount == 0:
            if code.co_flags & inspect.CO_VARARGS:
                raise _Unknown
            return set()
        node = _definition(self.function)
        if node is None:
            raise _Unknown
        self.node = node
        self.holder = code.co_varnames[0]
        if self.run() is None:
            raise _Unknown
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
        raise _Unknown

    def _holder_use(self, node: ast.Name) -> None:
        if not isinstance(node.ctx, ast.Load):
            return  # `self = None`: the name rebound
        parent = self.parents[node]
        if isinstance(parent, ast.Attribute) and parent.value is node:
            if parent.attr in self.held:
                return  # the instance: `_visit` follows it
            if parent.attr == "__dict__":
                raise _Unknown
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
                raise _Unknown  # a bound method of the holder, handed on
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
        raise _Unknown  # the holder handed over
