"""What a framework's decorator registers: the decorators of a definition whose callee is a
framework's (`@click.group()`, `@app.task`, `@cli.command()`), read from the facts without
importing anything. The framework plugins (click commands, task queues) share it."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from cartograph.parsing.facts import SCOPE_PARENT
from cartograph.resolve.values import Value

if TYPE_CHECKING:
    from cartograph.resolve.python import ModuleFacts, Program


class Registration(NamedTuple):
    """One decorator of a definition: the name it is called by (`command` of
    `@cli.command()`), the value its callee's owner holds (`cli`'s, a module's, an external
    package's; the callee's own value when it is a plain name), and where it is written."""

    name: str
    owner: Value | None
    pos: int


def decorated_by(mod: ModuleFacts, scope: int, names: frozenset[str]) -> bool:
    """Whether a decorator of the definition is called by one of these names, as written
    (`@cli.command()`: "command"): the cheap test before evaluating any."""
    return any(text.partition("(")[0].rpartition(".")[2] in names for text in mod.decorators(scope))


def registrations(program: Program, mod: ModuleFacts, scope: int) -> list[Registration]:
    """Each decorator of a definition, top to bottom, as a `Registration`."""

    def compute() -> list[Registration]:
        parent = max(mod.scopes[scope][SCOPE_PARENT], 0)
        found = []
        for pos, expr in mod.decorations().get(scope, ()):
            callee = expr[1] if expr and expr[0] == "c" else expr
            if not callee or callee[0] not in "an":
                continue
            if callee[0] == "a":
                name, owner_expr = callee[2], callee[1]
            else:
                name, owner_expr = callee[1], callee
            owner = program.evaluate(mod, parent, owner_expr, pos).value
            found.append(Registration(name, owner, pos))
        return found

    return program.memo.cached(("registrations", mod.path, scope), compute, [])
