from __future__ import annotations

import typing as t


class Context:
    def invoke(self, callback: Command | t.Callable[..., t.Any], *args: t.Any) -> t.Any:
        if isinstance(callback, Command):
            other = callback
            callback = other.callback
        return callback(*args)


class Command:
    def __init__(self, name: str, callback: t.Callable[..., t.Any]) -> None:
        self.name = name
        self.callback = callback

    def invoke(self, ctx: Context) -> t.Any:
        return ctx.invoke(self.callback)

    def run_directly(self) -> t.Any:
        return self.callback()


class Timer:
    def __init__(self, on_tick: t.Callable[[], None]) -> None:
        self.callback = on_tick

    def tick(self) -> None:
        self.callback()


def command(name: str) -> t.Callable[[t.Callable[..., t.Any]], Command]:
    def decorator(f: t.Callable[..., t.Any]) -> Command:
        return Command(name, callback=f)

    return decorator


class Registry:
    def __init__(self) -> None:
        self.handlers: dict[str, t.Callable[[], str]] = {}

    def register(self, name: str) -> t.Callable[[t.Callable[[], str]], t.Callable[[], str]]:
        def decorator(handler: t.Callable[[], str]) -> t.Callable[[], str]:
            self.handlers[name] = handler
            return handler

        return decorator

    def ensure_sync(self, func: t.Callable[[], str]) -> t.Callable[[], str]:
        return func

    def dispatch(self, name: str) -> str:
        return self.ensure_sync(self.handlers[name])()
