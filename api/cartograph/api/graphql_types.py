"""GraphQL object types made from the answer types (cartograph.render.json_form_type): the same
fields as the answer's JSON form, which gives MCP its output schemas and REST its response
schemas — one source for all three (tests/test_catalogue.py checks them against it).

A dataclass or TypedDict becomes an object type of the same name and fields (snake_case fields
spelled in camelCase, as GraphQL has them); `str`, `int`, `float`, `bool` stay what they are,
`X | None` is nullable, `list[X]` a list; what GraphQL cannot type (tuples, mappings, `Any`)
is the `JSON` scalar, as the answer's JSON form writes it. A type may be given a GraphQL type
of its own (a symbol row is the walkable `Symbol`), with how its values become that type.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from typing import Any, Union, get_args, get_origin

import strawberry
from cartograph.render import to_data
from strawberry.scalars import JSON
from typing_extensions import is_typeddict

Special = tuple[Any, Callable[[Any], Any]]  # a GraphQL type, and how a value becomes it


class AnswerTypes:
    """The object types made so far, each once, by the Python type it is made from."""

    def __init__(
        self, special: dict[Any, Special] | None = None, reserved: frozenset[str] = frozenset()
    ) -> None:
        self._special = dict(special or {})
        self._made: dict[Any, Any] = {}
        self._making: set[Any] = set()
        # GraphQL type names are one namespace: the schema's hand-written types' (`reserved`)
        # and those made here; a second class of a name gets its module's name in front
        self._reserved = reserved
        self._names = set(reserved)

    def of(self, python: Any) -> Any:
        """The GraphQL annotation of values of `python`."""
        if python in self._special:
            return self._special[python][0]
        origin, args = get_origin(python), get_args(python)
        if origin in (Union, types.UnionType):
            present = [a for a in args if a is not type(None)]
            if len(present) == 1:
                return self.of(present[0]) | None
            return JSON
        if origin is list:
            return list[self.of(args[0])]  # type: ignore[misc]
        if python in (str, int, float, bool):
            return python
        if _fields(python) is not None and python not in self._making:
            return self._object(python)
        return JSON

    def made(self) -> dict[Any, Any]:
        """The object types made so far, by the Python type each is made from."""
        return dict(self._made)

    @property
    def reserved(self) -> frozenset[str]:
        return frozenset(self._reserved)

    def value(self, value: Any, python: Any) -> Any:
        """`value` (of `python`) as the GraphQL type `of(python)` has it."""
        if value is None:
            return None
        if python in self._special:
            return self._special[python][1](value)
        origin, args = get_origin(python), get_args(python)
        if origin in (Union, types.UnionType):
            present = [a for a in args if a is not type(None)]
            return self.value(value, present[0]) if len(present) == 1 else to_data(value)
        if origin is list:
            return [self.value(each, args[0]) for each in value]
        if python in (str, int, float, bool):
            return value
        fields = _fields(python)
        if fields is not None and python in self._made:
            made = self._made[python]
            get = value.get if isinstance(value, dict) else lambda name: getattr(value, name)
            return made(**{name: self.value(get(name), hint) for name, hint in fields.items()})
        return to_data(value)

    def _object(self, python: Any) -> Any:
        if python in self._made:
            return self._made[python]
        fields = _fields(python)
        assert fields is not None
        self._making.add(python)
        try:
            annotations = {name: self.of(hint) for name, hint in fields.items()}
        finally:
            self._making.discard(python)
        name = own_name = python.__name__
        if name in self._names:  # team.Touch beside model.Touch: TeamTouch
            name = python.__module__.rpartition(".")[2].capitalize() + name
        assert name not in self._names, f"two answer types are called {name}"
        self._names.add(name)
        shell = type(name, (), {"__annotations__": annotations, "__module__": __name__})
        doc = " ".join((python.__doc__ or "").split()) or None
        if doc and dataclasses.is_dataclass(python) and doc.startswith(f"{own_name}("):
            doc = None  # the signature dataclasses write, no description
        made = strawberry.type(shell, name=name, description=doc)
        self._made[python] = made
        return made


def _fields(python: Any) -> dict[str, Any] | None:
    """The fields of a dataclass or TypedDict, with their types (None: it is neither)."""
    if isinstance(python, type) and dataclasses.is_dataclass(python):
        hints = typing.get_type_hints(python)
        return {f.name: hints[f.name] for f in dataclasses.fields(python)}
    if is_typeddict(python):
        return typing.get_type_hints(python)
    return None
