"""The values Python's resolution evaluates expressions to, each with its protocol.

A value is what an expression may hold at run time, as far as the resolver can tell: a module,
a class, an instance of one, a function, a container with its elements, one of several values
(a union), something from outside the repository. Every value answers the same questions —
the protocol of `Value` —, so a rule about calls or attributes asks the value and never tests
its kind:

- `attribute(program, via, name)`: what `value.name` holds;
- `call_result(program, via)`: what calling it returns;
- `called(program, via)`: the functions and classes a call of it runs, for CALLS edges;
- `subscript(program, key)` and `iterated(program)`: an element, by a literal key or any;
- `alternatives()`: the values it may be (a union's members, else itself).

Every evaluation gives a `Found` (the value and the rule that found it, its `via`), or
`UNKNOWN`. A value is immutable and compared by its fields; modules compare by identity (one
`ModuleFacts` per module and run). Values never leave one resolution run: the flow stage gets
symbol ids.

A new kind of value is a class here with the protocol methods that differ from `Value`'s; a
new rule about an existing kind is a method of that kind, or a plugin (resolve/plugins).
"""

from __future__ import annotations

import builtins
import io
import marshal
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cartograph.parsing.facts import SCOPE_DECORATORS, SCOPE_NAME, SCOPE_RETURNS
from cartograph.resolve.core import UNKNOWN, Found

if TYPE_CHECKING:
    from cartograph.resolve.python import ModuleFacts, Program

# the public methods of the built-in types and of io's classes: a call of one on a value of
# unknown type is most likely theirs (`.update`, `.write`, `.get`), and the standard library
# calls them on objects of the repository handed to it (`io.TextIOWrapper(stream)` calls
# `stream.readable()`): duck typing
PROTOCOL_METHOD_NAMES = frozenset(
    name
    for kind in (dict, list, set, frozenset, str, bytes, bytearray, tuple, int, float, io.IOBase,
                 io.TextIOWrapper, io.BufferedWriter, io.BufferedReader)
    for name in dir(kind)
    if not name.startswith("_")
)  # fmt: skip

# the names that evaluate to `BUILTIN` where nothing binds them
BUILTINS = frozenset(dir(builtins)) | {
    "__file__",
    "__name__",
    "__doc__",
    "__spec__",
    "__path__",
    "__loader__",
    "__builtins__",
    "__package__",
    "reveal_type",
    "__debug__",
}
STDLIB = frozenset(sys.stdlib_module_names)  # top-level modules an `External` may name
MAX_UNION = 8  # members a union value holds; more is not a value worth following
PROPERTY_DECORATORS = frozenset({"property", "cached_property"})
ACCESSOR_DECORATORS = frozenset({"setter", "getter", "deleter"})
# the `via` with which a class called through these keeps it (else "constructor")
CLASS_CALL_VIAS = frozenset({"decorator", "protocol", "container"})


class Value:
    """The protocol: what the resolver may ask of any value. The defaults answer "not known";
    each kind overrides what it knows."""

    __slots__ = ()

    def alternatives(self) -> tuple[Value, ...]:
        return (self,)

    def attribute(self, program: Program, via: str | None, name: str) -> Found:
        return UNKNOWN

    def call_result(self, program: Program, via: str | None) -> Found:
        return UNKNOWN

    def called(self, program: Program, via: str | None) -> list[tuple[Definition, str | None]]:
        """The functions and classes a call of this value runs, with the via of each edge."""
        return []

    def subscript(self, program: Program, via: str | None, key: Any) -> Found:
        return UNKNOWN

    def iterated(self, program: Program, via: str | None) -> Found:
        return UNKNOWN

    def definition(self) -> Definition | None:
        """The function or class this value is (what a REFERENCES edge names), else None."""
        return None


@dataclass(slots=True, unsafe_hash=True)
class Module(Value):
    module: ModuleFacts

    def attribute(self, program: Program, via: str | None, name: str) -> Found:
        return program.module_member(self.module, name)


@dataclass(slots=True, unsafe_hash=True)
class Definition(Value):
    """A `def` or `class` of the repository (or of a provider's): a symbol."""

    module: ModuleFacts
    scope: int

    @property
    def symbol_id(self) -> str:
        return self.module.symbol_ids[self.scope]

    @property
    def row(self) -> list:
        return self.module.scopes[self.scope]

    def definition(self) -> Definition | None:
        return self


@dataclass(slots=True, unsafe_hash=True)
class Function(Definition):
    def attribute(self, program: Program, via: str | None, name: str) -> Found:
        # a decorated name holds what its decorators made: `@command() def hello` is a
        # Command, so `hello.invoke` is Command.invoke
        if self.module.decorators(self.scope):
            made = program.held.decorated_value(self.module, self.scope)
            if isinstance(made, Instance):
                return made.attribute(program, "decorator", name)
            return program.framework_attribute(self, name)
        return UNKNOWN

    def call_result(self, program: Program, via: str | None) -> Found:
        returned = program.returns(self.module, self.scope).value
        return Found(returned, "return") if returned is not None else UNKNOWN

    def called(self, program: Program, via: str | None) -> list[tuple[Definition, str | None]]:
        return [(self, via)]

    def is_property(self) -> bool:
        """A `@property` / `cached_property` getter, or its `@name.setter` / `.deleter`."""
        for decorator in self.row[SCOPE_DECORATORS]:
            owner, _, last = decorator.rpartition(".")
            if last in PROPERTY_DECORATORS or (owner and last in ACCESSOR_DECORATORS):
                return True
        return False

    def returns_self(self) -> bool:
        """Annotated `-> Self`: called on a class or instance, an instance of that class."""
        annotation = self.row[SCOPE_RETURNS]
        if annotation is None or annotation[0] not in "na":
            return False
        return (annotation[1] if annotation[0] == "n" else annotation[2]) == "Self"

    @property
    def name(self) -> str:
        return self.row[SCOPE_NAME]


@dataclass(slots=True, unsafe_hash=True)
class Class(Definition):
    def attribute(self, program: Program, via: str | None, name: str) -> Found:
        return _member(program, self, via, name, instance=False)

    def call_result(self, program: Program, via: str | None) -> Found:
        return Found(Instance(self.module, self.scope), "constructor")

    def subscript(self, program: Program, via: str | None, key: Any) -> Found:
        """`Config[str]`: a generic class's alias, which constructs and holds what the class
        does (unknown when the class defines its own `__class_getitem__`)."""
        if program.classes.method(self, "__class_getitem__", instance=False) is not None:
            return UNKNOWN
        return Found(self, via)

    def called(self, program: Program, via: str | None) -> list[tuple[Definition, str | None]]:
        """The class (its construction) and its `__init__`."""
        class_via = via if via in CLASS_CALL_VIAS else "constructor"
        made: list[tuple[Definition, str | None]] = [(self, class_via)]
        init = program.classes.method(self, "__init__", instance=False)
        if init is not None:
            made.append((init, class_via))
        return made


@dataclass(slots=True, unsafe_hash=True)
class Instance(Value):
    """An instance of a class of the repository."""

    module: ModuleFacts
    scope: int

    @property
    def cls(self) -> Class:
        return Class(self.module, self.scope)

    def attribute(self, program: Program, via: str | None, name: str) -> Found:
        if name == "__class__":
            return Found(self.cls, via)
        return _member(program, self, via, name, instance=True)

    def call_result(self, program: Program, via: str | None) -> Found:
        call = program.classes.method(self, "__call__")
        if call is None:
            return UNKNOWN
        returned = program.returns(call.module, call.scope).value
        return Found(returned, "return") if returned is not None else UNKNOWN

    def called(self, program: Program, via: str | None) -> list[tuple[Definition, str | None]]:
        call = program.classes.method(self, "__call__")
        return [(call, via)] if call is not None else []

    def iterated(self, program: Program, via: str | None) -> Found:
        """The iteration protocol: what `__iter__` returns — a generator's or an annotated
        iterator's element, or an instance whose `__next__` gives it."""
        start = program.classes.method(self, "__iter__")
        if start is None:
            return UNKNOWN
        iterator = program.returns(start.module, start.scope).value
        if isinstance(iterator, Sequence):
            return iterator.iterated(program, "protocol")
        if not isinstance(iterator, Instance):
            return UNKNOWN
        step = program.classes.method(iterator, "__next__")
        if step is None:
            return UNKNOWN
        element = program.returns(step.module, step.scope).value
        return Found(element, "protocol") if element is not None else UNKNOWN


def _member(program: Program, base: Class | Instance, via: str | None, name: str, instance: bool):
    """`name` on a class or an instance: what the class or its bases bind, a property's
    getter's result on an instance; an external base's something when the repository does
    not define it."""
    found = program.classes.member(base.module, base.scope, name, instance=instance)
    if found is None:
        # not defined in the repository: it may come from an external base class
        info = program.classes.info(base.module, base.scope)
        origins = [m for m in (info.external_bases if info else ()) if m]
        return Found(External(origins[0]), via) if origins else UNKNOWN
    value, owner, member_via = found
    if isinstance(value, Function) and value.is_property():
        # reading a property runs its getter: the value is what the getter returns
        if not instance:
            return Found(value, via)  # on the class: the property object itself
        return value.call_result(program, via)
    if via == "self":
        if isinstance(value, Function) or member_via is None:
            same = owner == (base.module.name, base.scope)
            return Found(value, "self" if same else "inheritance")
        return Found(value, member_via)
    if isinstance(value, Function) or member_via is None:
        return Found(value, via)
    return Found(value, member_via)


@dataclass(slots=True, unsafe_hash=True)
class Super(Value):
    """`super()` inside a method of class `scope` (of an instance, or of the class itself in a
    classmethod)."""

    module: ModuleFacts
    scope: int
    instance: bool

    def attribute(self, program: Program, via: str | None, name: str) -> Found:
        found = program.classes.member(
            self.module, self.scope, name, instance=self.instance, skip_self=True
        )
        return Found(found.value, "super") if found is not None else UNKNOWN


@dataclass(slots=True, unsafe_hash=True)
class Sequence(Value):
    """A container typed by an annotation (`list[Command]`, `dict[str, Handler]`): its
    element's value and, for a mapping, its key's."""

    element: Value | None
    key: Value | None

    def subscript(self, program: Program, via: str | None, key: Any) -> Found:
        return Found(self.element, via) if self.element is not None else UNKNOWN

    def iterated(self, program: Program, via: str | None) -> Found:
        found = self.key if self.key is not None else self.element
        return Found(found, via) if found is not None else UNKNOWN


@dataclass(slots=True, unsafe_hash=True)
class FixedTuple(Value):
    """A tuple whose positions are typed (`-> tuple[str, Command | None]`)."""

    items: tuple[Value | None, ...]

    def subscript(self, program: Program, via: str | None, key: Any) -> Found:
        if isinstance(key, int) and -len(self.items) <= key < len(self.items):
            item = self.items[key]
            return Found(item, via) if item is not None else UNKNOWN
        return UNKNOWN


@dataclass(slots=True, unsafe_hash=True)
class Box(Value):
    """A container display (`{"a": f, "b": g}`, `[f, g]`) of `scope`, bound to `name` (None:
    not bound to a name), with its items as the parser gave them (marshalled, to hash). What is
    stored into the named container later (`c[k] = f`, `.append(f)`) counts too."""

    module: ModuleFacts
    scope: int
    name: str | None
    items: bytes

    @classmethod
    def of(cls, module: ModuleFacts, scope: int, name: str | None, items: list) -> Box:
        return cls(module, scope, name, marshal.dumps(items))

    def entries(self) -> list:
        return marshal.loads(self.items)

    def subscript(self, program: Program, via: str | None, key: Any) -> Found:
        found = program.held.elements(self, key)
        return found[0] if len(found) == 1 else UNKNOWN

    def iterated(self, program: Program, via: str | None) -> Found:
        return self.subscript(program, via, None)


@dataclass(slots=True, unsafe_hash=True)
class Lambda(Value):
    """A lambda of `scope`, with the calls of its body (marshalled, to hash)."""

    module: ModuleFacts
    scope: int
    calls: bytes

    def body_calls(self, program: Program) -> list[Definition]:
        """The functions and classes its body calls."""
        found = []
        for callee, pos in marshal.loads(self.calls):
            value = program.evaluate(self.module, self.scope, callee, pos).value
            if isinstance(value, Definition):
                found.append(value)
        return found

    def called(self, program: Program, via: str | None) -> list[tuple[Definition, str | None]]:
        return [
            made for value in self.body_calls(program) for made in value.called(program, "lambda")
        ]


@dataclass(slots=True, unsafe_hash=True)
class External(Value):
    """Something from outside the repository, by its top-level module (`requests`, `typing`).
    Its attributes and call results are external too."""

    top: str

    def attribute(self, program: Program, via: str | None, name: str) -> Found:
        return Found(self, via)

    def call_result(self, program: Program, via: str | None) -> Found:
        return Found(self, via)


@dataclass(slots=True, unsafe_hash=True)
class Returning(Value):
    """A callable known by its type only (`Callable[[...], R]`, an annotation): calling it
    gives `result`; no function of the repository is known to run."""

    result: Value

    def call_result(self, program: Program, via: str | None) -> Found:
        return Found(self.result, "annotation")


@dataclass(slots=True, unsafe_hash=True)
class TypeVariable(Value):
    """`T = TypeVar("T", bound=Base)`: as an annotation, an instance of its bound (any
    subclass of it); `bound` None when it has none."""

    bound: Class | None


@dataclass(slots=True, unsafe_hash=True)
class Runs(Value):
    """A method of a framework's object that runs a function of the repository (a click
    command's `main`, a Celery task's `delay`): calling it calls the function (via
    `framework`); what it returns is the framework's. Made by the framework plugins."""

    function: Function
    framework: External

    def call_result(self, program: Program, via: str | None) -> Found:
        return Found(self.framework, via)

    def called(self, program: Program, via: str | None) -> list[tuple[Definition, str | None]]:
        return [(self.function, "framework")]


@dataclass(slots=True, unsafe_hash=True)
class Builtin(Value):
    """A builtin name (`len`, `print`): never an edge, never unresolved."""


BUILTIN = Builtin()
TYPING = External("typing")


@dataclass(slots=True, unsafe_hash=True)
class Union(Value):
    """One of several values (`A | B`, parametrize cases of two kinds): an attribute, a call
    result are each member's; a call runs each member."""

    members: tuple[Value, ...]

    def alternatives(self) -> tuple[Value, ...]:
        return self.members

    def attribute(self, program: Program, via: str | None, name: str) -> Found:
        return _each(member.attribute(program, via, name) for member in self.members)

    def call_result(self, program: Program, via: str | None) -> Found:
        return _each(member.call_result(program, via) for member in self._called_members())

    def called(self, program: Program, via: str | None) -> list[tuple[Definition, str | None]]:
        return [made for member in self._called_members() for made in member.called(program, via)]

    def _called_members(self) -> tuple[Value, ...]:
        """The members a call of the union calls: the `Callable[...]` ones when it has some
        (`-> Group | Callable[[F], Group]`: the call is the callable's, the other member is
        what another overload gives), else all."""
        declared = tuple(m for m in self.members if isinstance(m, Returning))
        return declared or self.members


def declares_callable(value: Value) -> bool:
    """`Callable[[F], R]` from an annotation, alone or in a union."""
    if isinstance(value, Returning):
        return True
    return isinstance(value, Union) and any(isinstance(m, Returning) for m in value.members)


def names_no_function(value: Value) -> bool:
    """A value that says what calling it gives but not which function runs (`typing`'s
    values, a declared callable): the functions the code returns, or what callers pass, are
    what runs, for edges and flows."""
    return value == TYPING or declares_callable(value)


def _each(found) -> Found:
    known = [f for f in found if f.value is not None]
    if not known:
        return UNKNOWN
    return Found(union_of([f.value for f in known]), known[0].via)


def union_of(values: list) -> Value | None:
    """One value for several: the value itself when they are all the same, else a union of
    the distinct ones (unions flattened); None for none, or more than MAX_UNION."""
    members: list = []
    for value in values:
        for member in value.alternatives():
            if member not in members:
                members.append(member)
    if not members or len(members) > MAX_UNION:
        return None
    return members[0] if len(members) == 1 else Union(tuple(members))


# the values a function's result is followed for (a module, an external value, a builtin or
# a super proxy returned is not)
RETURNED_KINDS = (Instance, Class, Function, Sequence, Box, Lambda, FixedTuple)
