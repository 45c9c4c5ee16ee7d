"""Parameters as pydantic-annotated types, for the surfaces that validate with pydantic (MCP
tools, REST routes): the same bounds, lengths and choices as the `Param`, and its own
normalisation as an after-validator, so a value refused anywhere is refused everywhere."""

from __future__ import annotations

from typing import Annotated, Any

from cartograph.operations.base import Param
from cartograph.operations.values import CommaList, TextList
from pydantic import AfterValidator, Field


def constraints(param: Param) -> dict[str, Any]:
    """The JSON-schema constraints of a parameter, as pydantic `Field` keywords."""
    value = param.value
    found: dict[str, Any] = {"description": param.help or None}
    if param.minimum is not None:
        found["ge"] = param.minimum
    if param.maximum is not None:
        found["le"] = param.maximum
    if isinstance(value, TextList):
        found["max_length"] = value.max_items
    elif value.python is str and not isinstance(value, CommaList):
        if value.min_length:
            found["min_length"] = value.min_length
        if value.max_length is not None:
            found["max_length"] = value.max_length
        if value.pattern:
            found["pattern"] = value.pattern
    return found


def annotation(param: Param, spelled: str, field: Any = Field, given: bool = False) -> Any:
    """`Annotated[type, field(constraints), AfterValidator(normalise)]`; `field` is pydantic's
    Field or one of FastAPI's (Query, Path). `given`: always there (a path parameter), so never
    None."""
    python = param.value.python
    if param.default is None and not given:
        python = python | None

    def normalise(value: Any) -> Any:
        return None if value is None else param.parse(value, spelled)

    return Annotated[python, field(**constraints(param)), AfterValidator(normalise)]
