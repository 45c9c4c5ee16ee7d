from __future__ import annotations

import typing as t

F = t.TypeVar("F", bound=t.Callable[..., t.Any])


class Scaffold:
    def route(self, rule: str) -> t.Callable[[F], F]:
        def decorator(f: F) -> F:
            self.add_url_rule(rule, f)
            return f

        return decorator

    def get(self, rule: str) -> t.Callable[[F], F]:
        return self._method_route("GET", rule)

    def _method_route(self, method: str, rule: str) -> t.Callable[[F], F]:
        return self.route(rule)

    def add_url_rule(self, rule: str, view_func: t.Callable[..., t.Any] | None = None) -> None:
        raise NotImplementedError


def register(scaffold: Scaffold, rule: str, view: t.Callable[..., t.Any]) -> None:
    scaffold.add_url_rule(rule, view)
