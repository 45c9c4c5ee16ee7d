"""click: a function decorated `@click.command()` / `@click.group()` is a command object;
`@grp.command()` / `@grp.group()` on a group made that way (or `grp.add_command(cmd)`) makes
a subcommand, whose callback click runs when the group is invoked with its name. So the group
calls each of its subcommands (via `framework`): a test invoking the group
(`runner.invoke(cli, ["sync"])`) reaches the subcommand's code. Attributes of a command are
click's (`cli.main(...)` and `cli.invoke(ctx)` run its callback, `cli.callback` is the
function itself).

Only where click is outside the repository: click's own code, indexed with it, is followed
by the core like any other (`Group.command` returns the decorator that registers)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cartograph.parsing.facts import (
    REF_EXPR,
    REF_KIND,
    REF_LOOKUP,
    REF_POS,
    SCOPE_KIND,
    SCOPE_START,
)
from cartograph.resolve.core import Found
from cartograph.resolve.plugins.registration import decorated_by, registrations
from cartograph.resolve.values import External, Function, Runs

if TYPE_CHECKING:
    from cartograph.resolve.core import EdgeSet
    from cartograph.resolve.python import ModuleFacts, Program

CLICK = External("click")
MAKERS = frozenset({"command", "group"})  # the decorators that make a command
RUN_METHODS = frozenset({"main", "invoke", "__call__"})  # they run the command's callback
VIA = "framework"


def command_of(program: Program, function: Function) -> tuple[bool, Function | None]:
    """(whether click made the function a command, the repository group it was registered
    on by its decorator, if any)."""

    def compute() -> tuple[bool, Function | None]:
        for registration in registrations(program, function.module, function.scope):
            if registration.name not in MAKERS:
                continue
            owner = registration.owner
            if owner == CLICK:
                return True, None
            if isinstance(owner, Function) and command_of(program, owner)[0]:
                return True, owner
        return False, None

    if not decorated_by(function.module, function.scope, MAKERS):
        return False, None
    key = ("click-command", function.module.path, function.scope)
    return program.memo.cached(key, compute, (False, None))


class ClickPlugin:
    def decorated_attribute(self, program: Program, function: Function, name: str) -> Found | None:
        if not command_of(program, function)[0]:
            return None
        if name == "callback":
            return Found(function, VIA)
        if name in RUN_METHODS:
            return Found(Runs(function, CLICK), VIA)
        return Found(CLICK, VIA)  # click's own attribute of the command object

    def module_edges(self, program: Program, mod: ModuleFacts, edges: EdgeSet) -> None:
        """A group calls the subcommands registered on it, by decorator or `add_command`."""
        for scope, row in enumerate(mod.scopes):
            if row[SCOPE_KIND] != "function" or not mod.decorators(scope):
                continue
            _made, group = command_of(program, Function(mod, scope))
            if group is not None:
                line = group.row[SCOPE_START]
                edges.add("CALLS", group.symbol_id, mod.symbol_ids[scope], line, VIA)
        for ref in mod.facts["refs"]:
            expr = ref[REF_EXPR]
            if ref[REF_KIND] != "c" or not expr or expr[0] != "a" or expr[2] != "add_command":
                continue
            pos = ref[REF_POS]
            group = program.evaluate(mod, ref[REF_LOOKUP], expr[1], pos).value
            if not isinstance(group, Function) or not command_of(program, group)[0]:
                continue
            for _slot, argument in mod.arguments(pos, expr)[:1]:
                command = program.evaluate(mod, ref[REF_LOOKUP], argument, pos).value
                if isinstance(command, Function) and command_of(program, command)[0]:
                    line = group.row[SCOPE_START]
                    edges.add("CALLS", group.symbol_id, command.symbol_id, line, VIA)
