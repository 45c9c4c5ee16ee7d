from __future__ import annotations

import typing as t

from pkg.scaffold import Scaffold


class App(Scaffold):
    def __init__(self) -> None:
        self.view_functions: dict[str, t.Callable[..., t.Any]] = {}

    def add_url_rule(self, rule: str, view_func: t.Callable[..., t.Any] | None = None) -> None:
        if view_func is not None:
            self.view_functions[rule] = view_func

    def dispatch_request(self, rule: str) -> t.Any:
        return self.view_functions[rule]()


class Recorder:
    """Not a Scaffold: a method of the same name never receives what a Scaffold is given."""

    def __init__(self) -> None:
        self.entries: list[t.Callable[..., t.Any]] = []

    def add_url_rule(self, rule: str, view_func: t.Callable[..., t.Any] | None = None) -> None:
        if view_func is not None:
            self.entries.append(view_func)

    def replay(self) -> None:
        for entry in self.entries:
            entry()
