"""Classes for Python's resolution: each class's bases, linearization (C3) and what its
bases outside the repository are, and what a name on a class or its instances holds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from cartograph.parsing.facts import (
    ATTR_NAME,
    ATTR_OBJECT,
    ATTR_POS,
    ATTR_SCOPE,
    ATTR_TYPE,
    ATTR_VALUE,
    BINDING_VALUE,
    SCOPE_BASES,
    SCOPE_BODY,
    SCOPE_KIND,
    SCOPE_NAME,
    SCOPE_PARENT,
)
from cartograph.resolve.core import UNKNOWN, Found, render
from cartograph.resolve.mro import c3
from cartograph.resolve.standard import standard_class_members
from cartograph.resolve.values import (
    BUILTIN,
    Class,
    External,
    Function,
    Instance,
    Sequence,
    Value,
)

if TYPE_CHECKING:
    from cartograph.resolve.python import ModuleFacts, Program


@dataclass(slots=True)
class ClassInfo:
    module: ModuleFacts
    scope: int
    linearization: list[tuple[ModuleFacts, int]]
    # top-level modules of the bases outside the repository, of this class or its ancestors
    # ("" when a base's origin is unknown, e.g. a class built by a function call)
    external_bases: list[str]
    # bases of this class itself that are outside the repository: (as written, top-level module
    # they come from, "" when unknown)
    direct_external: list[tuple[str, str]]
    # the attribute names of the external bases, of this class or its ancestors (what code
    # outside the repository can call back by name); None when one of them is not known (a
    # base outside the standard library)
    external_members: frozenset[str] | None
    # those bases as (top-level module, base as written) for `standard_method_reach`, of this
    # class and its ancestors; None when external_members is
    standard_bases: tuple[tuple[str, str], ...] | None
    # resolved direct bases: (module, scope, via, order among the declared bases, 1 = first)
    bases: list[tuple[ModuleFacts, int, str, int]]


class Member(NamedTuple):
    """What a name on a class holds: the value, the class that binds it (module name,
    scope) and the via of a binding that is not a `def` (None for a `def`)."""

    value: Value
    owner: tuple[str, int]
    via: str | None


class ClassTable:
    """The classes of one resolution run, computed on first use and memoized."""

    def __init__(self, program: Program) -> None:
        self.program = program

    def info(self, mod: ModuleFacts, scope: int) -> ClassInfo | None:
        return self.program.memo.cached(
            ("class", mod.path, scope), lambda: self._info(mod, scope), None
        )

    def _info(self, mod: ModuleFacts, scope: int) -> ClassInfo:
        program = self.program
        row = mod.scopes[scope]
        parent = row[SCOPE_PARENT]
        header = parent if parent >= 0 else 0
        bases: list[tuple[ModuleFacts, int, str, int]] = []
        external: list[str] = []
        direct_external: list[tuple[str, str]] = []
        base_mros: list[list[tuple[ModuleFacts, int]] | None] = []
        members: set[str] | None = set()
        standard: list[tuple[str, str]] | None = []
        for order, base in enumerate(row[SCOPE_BASES], 1):
            value, via = program.evaluate(mod, header, base, row[SCOPE_BODY])
            known: frozenset[str] | None = frozenset()
            known_bases: tuple[tuple[str, str], ...] | None = ()
            if isinstance(value, Class):
                if (value.module.path, value.scope) == (mod.path, scope):
                    continue
                bases.append((value.module, value.scope, via or "scope", order))
                info = self.info(value.module, value.scope)
                base_mros.append(info.linearization if info is not None else None)
                if info is not None:
                    external.extend(info.external_bases)
                    known = info.external_members
                    known_bases = info.standard_bases
            elif value != BUILTIN:
                written = render(base)
                top = value.top if isinstance(value, External) else ""
                direct_external.append((written, top))
                external.append(top)
                known = standard_class_members(top, written) if top else None
                known_bases = ((top, written),) if known is not None else None
            members = None if members is None or known is None else members | known
            if standard is not None and known_bases is not None:
                standard.extend(b for b in known_bases if b not in standard)
            else:
                standard = None
        mro = c3((mod, scope), [(b[0], b[1]) for b in bases], base_mros)
        frozen = None if members is None else frozenset(members)
        standard_bases = None if standard is None or frozen is None else tuple(standard)
        return ClassInfo(mod, scope, mro, external, direct_external, frozen, standard_bases, bases)

    def has_external_base(self, mod: ModuleFacts, scope: int) -> bool:
        info = self.info(mod, scope)
        return info is not None and bool(info.external_bases)

    def member(
        self,
        mod: ModuleFacts,
        scope: int,
        name: str,
        instance: bool = True,
        skip_self: bool = False,
    ) -> Member | None:
        """Find `name` on a class (on its instances: what methods assign to `self.name` too),
        along its linearization; None when the repository's classes do not bind it."""
        key = ("cmember", mod.path, scope, name, instance, skip_self)
        return self.program.memo.cached(
            key, lambda: self._member(mod, scope, name, instance, skip_self), None
        )

    def method(self, of: Class | Instance, name: str, instance: bool = True) -> Function | None:
        """The function `name` is on a class or an instance's class (None: not a function)."""
        found = self.member(of.module, of.scope, name, instance=instance)
        return found.value if found is not None and isinstance(found.value, Function) else None

    def _member(self, mod, scope, name, instance, skip_self) -> Member | None:
        info = self.info(mod, scope)
        if info is None:
            return None
        mro = info.linearization[1:] if skip_self else info.linearization
        for owner_mod, owner_scope in mro:
            rows = owner_mod.bindings(owner_scope).get(name)
            if not rows:
                continue
            for row in reversed(rows):
                binding = row[BINDING_VALUE]
                if binding[0] == "def":
                    target = binding[1]
                    kind = Class if owner_mod.scopes[target][SCOPE_KIND] == "class" else Function
                    return Member(kind(owner_mod, target), (owner_mod.name, owner_scope), None)
            for row in reversed(rows):
                value, via = self.program.binding_value(owner_mod, owner_scope, row)
                if value is not None:
                    annotated = row[BINDING_VALUE][0] == "ann"
                    if annotated and isinstance(value, Instance) and not instance:
                        continue
                    return Member(value, (owner_mod.name, owner_scope), via)
        if instance:
            for owner_mod, owner_scope in mro:
                found = self.instance_attribute(owner_mod, owner_scope, name)
                if found.value is not None:
                    return Member(found.value, (owner_mod.name, owner_scope), found.via)
        return None

    def instance_attribute(self, mod: ModuleFacts, scope: int, name: str) -> Found:
        """Type of `self.name` assigned in a method of this class (annotation beats value)."""
        program = self.program

        def compute() -> Found:
            candidates = []
            for row in mod.facts["attrs"]:
                method = row[ATTR_SCOPE]
                if row[ATTR_NAME] != name or mod.scopes[method][SCOPE_PARENT] != scope:
                    continue
                if mod.first_param(method) != row[ATTR_OBJECT]:
                    continue
                candidates.append(row)
            # annotations first, then __init__, then the rest; later assignments win inside each
            candidates.sort(
                key=lambda r: (
                    r[ATTR_TYPE] is not None,
                    mod.scopes[r[ATTR_SCOPE]][SCOPE_NAME] == "__init__",
                    r[ATTR_POS],
                )
            )
            for row in reversed(candidates):
                method = row[ATTR_SCOPE]
                if row[ATTR_TYPE] is not None:
                    typed = program.evaluate_type(mod, method, row[ATTR_TYPE])
                    if typed.value is not None:
                        return typed
                value = program.evaluate(mod, method, row[ATTR_VALUE], row[ATTR_POS])
                if isinstance(value.value, (Instance, Sequence, Function, Class)):
                    return value
            return UNKNOWN

        return program.memo.cached(("iattr", mod.path, scope, name), compute)

    def attribute_holder(self, mod: ModuleFacts, scope: int, name: str) -> tuple:
        """The class in the MRO whose methods assign `self.name` (or whose body binds it);
        the class itself when none does: (module, scope)."""

        def compute() -> tuple:
            info = self.info(mod, scope)
            for owner_mod, owner_scope in info.linearization if info is not None else ():
                if name in owner_mod.bindings(owner_scope):
                    return owner_mod, owner_scope
                for row in owner_mod.facts["attrs"]:
                    method = row[ATTR_SCOPE]
                    if (
                        row[ATTR_NAME] == name
                        and owner_mod.scopes[method][SCOPE_PARENT] == owner_scope
                    ):
                        return owner_mod, owner_scope
            return mod, scope

        return self.program.memo.cached(("holder", mod.path, scope, name), compute, (mod, scope))
