import functools

REGISTRY = []


def trace(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


def register(func):
    REGISTRY.append(func)
    return func


def retry(times):
    def decorate(func):
        def wrapper(*args):
            for _ in range(times):
                return func(*args)

        return wrapper

    return decorate


def make_option(name):
    return name


def parametrize(name, values):
    def apply(func):
        return func

    return apply
