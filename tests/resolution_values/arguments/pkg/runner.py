REGISTRY = []


def handler(payload):
    return ("module-level handler", payload)


def run(handler, payload):
    return handler(payload)


def run_kw(payload, *, on_done):
    return on_done(payload)


def outer(callback):
    return middle(callback)


def middle(fn):
    return innermost(fn=fn)


def innermost(fn):
    return fn("hop")


def pair(first, second):
    return second(first)


def choose(ok, fail):
    return ok("chosen")


def keep(callback):
    REGISTRY.append(callback)
    return callback


def build(cls, name):
    return cls(name)
