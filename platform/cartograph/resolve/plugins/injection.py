"""Dependency injection by default value (FastAPI, and Starlette apps using it): a parameter
whose default is `Depends(get_db)` or `Security(get_user)` holds what that function returns."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cartograph.parsing.facts import BINDING_VALUE, SCOPE_PARENT
from cartograph.resolve.core import Found
from cartograph.resolve.values import Function

if TYPE_CHECKING:
    from cartograph.resolve.python import ModuleFacts, Program

INJECTORS = frozenset({"Depends", "Security"})


class InjectionPlugin:
    def parameter_value(
        self, program: Program, mod: ModuleFacts, scope: int, row: list
    ) -> Found | None:
        default = row[BINDING_VALUE][3]
        if default is None or default[0] != "c" or default[2] is None:
            return None
        injector = default[1]
        name = injector[1] if injector[0] == "n" else injector[2] if injector[0] == "a" else ""
        if name not in INJECTORS:
            return None
        parent = mod.scopes[scope][SCOPE_PARENT]
        header = parent if parent >= 0 else 0
        dependency = program.evaluate(mod, header, default[2], 1 << 62).value
        if not isinstance(dependency, Function):
            return None
        returned = program.returns(dependency.module, dependency.scope).value
        return Found(returned, "injection") if returned is not None else None
