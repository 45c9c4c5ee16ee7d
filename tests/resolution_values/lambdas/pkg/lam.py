from pkg.work import audit, cleanup, compute, kept, never, on_a, on_b

KEEP = []
HANDLERS = {"a": lambda p: on_a(p), "b": lambda p: on_b(p)}


def apply(fn, value):
    return fn(value)


def store(fn):
    KEEP.append(fn)


def direct():
    return (lambda x: compute(x))(1)


def through_variable():
    f = lambda x: audit(x)  # noqa: E731
    return f(2)


def through_argument():
    return apply(lambda v: cleanup(v), 3)


def never_called():
    store(lambda: kept())
    g = lambda: never()  # noqa: E731
    return g


def run_a(p):
    return HANDLERS["a"](p)
