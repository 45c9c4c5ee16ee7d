"""Plugins: what a framework decides that Python itself does not, added to the Python
resolver at fixed points (`PythonPlugin`). The core evaluates the language — names, imports,
classes, calls, values flowing through them —; a plugin knows a convention: pytest gives a
test the fixture its parameter names, FastAPI's `Depends(get_db)` makes the parameter what
`get_db` returns.

A plugin implements any of the hooks below (a hook it does not define is not called) and is
listed in PLUGINS; docs/resolution.md ("Writing a plugin") walks through one. Plugins never
import the code they describe: they read the same facts the core does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from cartograph.resolve.core import EdgeSet, Found
    from cartograph.resolve.python import ModuleFacts, Program
    from cartograph.resolve.values import Function


class PythonPlugin(Protocol):
    """The hooks a plugin may implement (each optional)."""

    def parameter_value(
        self, program: Program, mod: ModuleFacts, scope: int, row: list
    ) -> Found | None:
        """The value a function's parameter holds (`row`: its binding) when its annotation
        does not say: Found(value, via), or None to leave it to the other plugins."""
        ...

    def decorated_attribute(self, program: Program, function: Function, name: str) -> Found | None:
        """What `function.name` holds when a framework's decorator turned the function into
        the framework's object (a click command's `main`, a Celery task's `delay`): Found,
        or None to leave it to the other plugins."""
        ...

    def module_edges(self, program: Program, mod: ModuleFacts, edges: EdgeSet) -> None:
        """Edges a module's resolution adds because of the framework (a test calling the
        fixtures it requests)."""
        ...


def _plugins() -> tuple:
    from cartograph.resolve.plugins.click_commands import ClickPlugin
    from cartograph.resolve.plugins.injection import InjectionPlugin
    from cartograph.resolve.plugins.pytest import PytestPlugin
    from cartograph.resolve.plugins.task_queues import TaskQueuePlugin

    return (PytestPlugin(), InjectionPlugin(), ClickPlugin(), TaskQueuePlugin())


PLUGINS: tuple = _plugins()
