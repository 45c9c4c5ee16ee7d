import typing as t

GroupT = t.TypeVar("GroupT", bound="Group")
Anything = t.TypeVar("Anything")


class Command:
    def __init__(self, name, callback):
        self.name = name
        self.callback = callback

    def main(self):
        return self.callback()


class Group(Command):
    def command(self) -> t.Callable[[t.Callable[..., t.Any]], Command]:
        def decorator(f):
            return Command(f.__name__, f)

        return decorator

    def add(self, name):
        return name


def decorator_for(cls):
    def decorator(f):
        return cls(f.__name__, f)

    return decorator


def group(
    name: t.Optional[str] = None, cls: t.Optional[t.Type[GroupT]] = None
) -> t.Union[Group, t.Callable[[t.Callable[..., t.Any]], t.Union[Group, GroupT]]]:
    if cls is None:
        cls = t.cast(t.Type[GroupT], Group)
    if callable(name):
        return decorator_for(cls)(name)
    return decorator_for(cls)


def anything(value: Anything) -> t.Callable[[t.Callable[..., t.Any]], Anything]:
    def decorator(f):
        return value

    return decorator
