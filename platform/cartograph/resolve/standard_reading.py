"""What the standard library's classes are and what their methods reach, read from the
standard library itself: the computing process (`standard_process.py`) answers the indexer's
questions (`resolve/standard.py`) with these functions, importing the modules it reads.

A repository class on a standard-library base (`unittest.TestCase`, `logging.Handler`,
`socketserver.BaseRequestHandler`) inherits methods whose code runs outside the repository and
may call back what the class overrides: `handler.handle(record)` runs `Handler.handle`, which
calls `self.emit(record)`, the subclass's `emit`. The Python that indexes has those classes and,
for the pure-Python ones, their source: `class_members` names what a base has (what an
override can be called back as), `method_reach` what one inherited method may look up on its
instance, read from its source (`assertEqual` reaches `fail`, never `setUpClass`, which the
test runner calls).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
import types
from functools import cache

from cartograph.resolve.mro import c3
from cartograph.resolve.standard_answers import Reach, is_standard_module
from cartograph.resolve.standard_source import class_source, definition_of
from cartograph.resolve.standard_uses import Uses, _Uses, class_key


@cache
def standard_class(top: str, written: str) -> type | None:
    """The class of Python's standard library (of the Python that indexes) written `written`
    in a module that has it from the standard module `top`: `unittest.TestCase` after `import
    unittest`, `TestCase` after `from unittest import TestCase`, `mock.Mock` after `from
    unittest import mock`. None when it is not one (a module outside the standard library, an
    alias, a subscripted or computed base)."""
    if not is_standard_module(top):
        return None
    parts = written.split("[")[0].split(".")
    for path in (parts[1:], parts):
        found = _standard_attribute(top, path) if path else None
        if isinstance(found, type):
            return found
    return None


@cache
def class_members(top: str, written: str) -> frozenset[str] | None:
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
def method_reach(bases: tuple[tuple[str, str], ...], method: str) -> Reach | None:
    """What calling `method` on an instance of a class whose bases outside the repository
    are the standard classes `bases` ((top, written) pairs, see `standard_class`: those of
    the class and of its repository ancestors) may look up on that instance, directly or
    through the methods it reaches: the names a repository method can be called back as
    (`Reach.looked_up`), and those it only sets there (`Reach.stored`). None when that cannot
    be known (then any member of the bases can be).

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
      store in that attribute, `state_names`: `addTypeEqualityFunc(self, typeobj,
      function)` stores its parameter, which `TestCase.__init__` passes as
      `'assertDictEqual'`, `'assertListEqual'` …), or to a parameter of the function (the
      caller's: any name, as for `TestCase(methodName)`), or to a computation (`'do_' +
      self.command`: any name);
    - the instance handed to a standard class that keeps it (`_AssertRaisesContext(expected,
      self)` in `assertRaises`, `holder_uses`): what that class's `__init__` looks up on it
      and what any method of the class looks up through the attributes it is kept in
      (`self.test_case.failureException`), when the holder is only used by its own methods
      and by the code that made it, which calls its methods, returns it or uses it in a
      `with` statement.
    The strings kept in the instance's state are those the standard library's own code puts
    there, as far as this function can see. The reach names the attributes it took strings
    from (`Reach.state`: `_type_equality_funcs`) and the functions whose parameters store
    them (`Reach.feeds`: `addTypeEqualityFunc`), so that the resolver can check the repository: a class of
    the order that sets such an attribute or calls such a function
    (`self.addTypeEqualityFunc(Money, 'assertMoneyEqual')`) may have put any name there, and
    then any of its methods can be called back. The gap left: a string handed over by code
    outside the classes of the order (a helper function calling
    `case.addTypeEqualityFunc(...)`), or stored through an alias (`state_names`).

    The instance (or such a holder) returned is fine from the method the repository calls:
    it goes back to the repository's code, which the resolver reads (`Reach.returns`).

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


def _reach(classes: list[type], method: str) -> Reach | None:
    # the classes in the order the instance's class looks them up (the repository classes
    # between them left out: an override among them is a target of its own)
    order: list[type] = c3(object, classes, [c.__mro__ for c in classes])[1:]
    if object not in order:
        order.append(object)
    at = {class_key(k): i for i, k in enumerate(order)}
    sources = tuple(dict.fromkeys(f for f in map(class_source, order) if f is not None))

    def definition(name: str, start: int) -> type | None:
        return next((k for k in order[start:] if name in k.__dict__), None)

    if definition(method, 0) is None:
        return None  # not a method of the bases (an instance attribute, `__getattr__`'s)
    reach = Uses()
    done: set[tuple[type, str]] = set()
    # (name, where in the order its definition is looked for from, only set on the instance)
    todo = [(method, 0, False)]
    entry = True
    while todo:
        name, start, stored = todo.pop()
        if stored:  # a setter of the bases runs, a method does not
            reach.stored.add(name)
            found = definition(name, 0)
            if found is None or not _data_descriptor(found.__dict__[name]):
                continue
        else:
            reach.names.add(name)
        owner = definition(name, start)
        if owner is None:
            continue
        uses = member_uses(owner, name, sources)
        if uses is None or (uses.returns and not entry):
            return None  # (the instance returned to the base's own code, not the caller's)
        reach.returns = reach.returns or uses.returns
        entry = False
        if (owner, name) in done:
            continue
        done.add((owner, name))
        reach.state |= uses.state
        reach.feeds |= uses.feeds
        todo += [(used, 0, False) for used in uses.names]
        todo += [(used, 0, True) for used in uses.stored]
        # `super().name`: the next definition
        todo += [(used, order.index(owner) + 1, False) for used in uses.supers]
        for classes_used, after in ((uses.from_class, 0), (uses.after_class, 1)):
            for key, used in classes_used:
                if key not in at:
                    return None  # another class's method run on the instance
                todo.append((used, at[key] + after, False))
    return Reach(
        frozenset(reach.names),
        frozenset(reach.stored),
        frozenset(reach.state),
        frozenset(reach.feeds),
        reach.returns,
    )


def _data_descriptor(value: object) -> bool:
    kind = type(value)
    return hasattr(kind, "__set__") or hasattr(kind, "__delete__")


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


@cache
def member_uses(owner: type, name: str, sources: tuple[str, ...]) -> Uses | None:
    """What the definition of `name` in the class `owner` itself reaches (see
    `method_reach`; `sources`: the files of the classes of the order, whose code
    may keep names in the instance's state); None when unknown."""
    value = owner.__dict__[name]
    if isinstance(value, staticmethod):
        return Uses()  # never given the instance (handing it over is the caller's)
    if isinstance(value, classmethod):
        return _function_uses(value.__func__, sources)
    if isinstance(value, property):
        found = Uses()
        for accessor in (value.fget, value.fset, value.fdel):
            uses = _function_uses(accessor, sources) if accessor is not None else Uses()
            if uses is None:
                return None
            found.add(uses)
        return found
    if isinstance(value, functools.cached_property):
        return _function_uses(value.func, sources)
    if isinstance(value, types.FunctionType):
        return _function_uses(value, sources)
    if isinstance(value, C_CALLABLES):
        return Uses(set(OBJECT_CALLS.get(name, ()))) if owner is object else None
    if isinstance(value, (types.GetSetDescriptorType, types.MemberDescriptorType)):
        return Uses()  # a slot or a C attribute: no code of the class runs
    if hasattr(type(value), "__get__"):
        return None  # a descriptor whose code is not read here
    return Uses()  # data: a constant, a class, a callable that is not bound


@cache
def _function_uses(function: object, sources: tuple[str, ...]) -> Uses | None:
    if not isinstance(function, types.FunctionType) or hasattr(function, "__wrapped__"):
        return None  # C code, or a wrapper (inspect would show the source it wraps)
    code = function.__code__
    if code.co_argcount == 0:
        # no positional parameter: the instance, if given, is in *args
        return None if code.co_flags & inspect.CO_VARARGS else Uses()
    node = definition_of(function)
    if node is None:
        return None
    uses = _Uses(code.co_varnames[0], node, function.__globals__, sources)
    parts = function.__qualname__.split(".")
    if len(parts) > 1 and parts[-2] != "<locals>":
        uses.owner = parts[-2]  # `self.__x` in class `K` is `self._K__x`
    return uses.run()
