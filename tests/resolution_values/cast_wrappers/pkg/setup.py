import functools
import typing as t
from functools import update_wrapper

F = t.TypeVar("F", bound=t.Callable[..., t.Any])


def setupmethod(f: F) -> F:
    def wrapper_func(self, *args: t.Any, **kwargs: t.Any) -> t.Any:
        return f(self, *args, **kwargs)

    return t.cast(F, update_wrapper(wrapper_func, f))


def logged(f: F) -> F:
    def logging_wrapper(*args: t.Any) -> t.Any:
        return f(*args)

    return functools.update_wrapper(logging_wrapper, f)  # type: ignore[return-value]


class Handler:
    def handle(self) -> str:
        return "handled"


def as_handler(value: object) -> Handler:
    return t.cast(Handler, value)


def opaque(value: object) -> t.Any:
    return t.cast(t.Any, value)
