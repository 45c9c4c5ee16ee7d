def helper():
    pass


def other():
    pass


def produce():
    yield helper
    yield other


def consume():
    for f in produce():
        f()


class Countdown:
    def __iter__(self):
        return self

    def __next__(self):
        return helper


def count():
    for f in Countdown():
        f()


def identity(value):
    return value


def through():
    identity(helper)()
